#!/bin/sh
# Install a Java runtime for the Spark tests (make system-deps; never run by make test). Says what
# it does; without root or apt-get it only says how.
if command -v java >/dev/null 2>&1; then
    echo "install_java: java is installed"
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install_java: not root or no apt-get: install a Java runtime yourself (the Spark tests skip without it)" >&2
    exit 0
fi
echo "install_java: apt-get install default-jre-headless"
apt-get update -qq || true
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends default-jre-headless \
    || echo "install_java: apt-get install default-jre-headless failed (the Spark tests will skip)" >&2
exit 0
