#!/bin/sh
# Install the distribution's Chromium for the inspect-view browser test (make system-deps; never
# run by make test). Says what it does; without root or apt-get it only says how.
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
    echo "install_chromium: chromium is installed"
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install_chromium: not root or no apt-get: install Chromium yourself (the browser test skips without it)" >&2
    exit 0
fi
echo "install_chromium: apt-get install chromium"
apt-get update -qq || true
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
    || echo "install_chromium: apt-get install chromium failed (the browser test will skip)" >&2
exit 0
