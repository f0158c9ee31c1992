#!/bin/sh
# Install a Java runtime for the Spark tests when it is missing and we are root;
# otherwise do nothing (the Spark tests skip without Java).
if command -v java >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install_java: no java and cannot install it (the Spark tests will be skipped)" >&2
    exit 0
fi
apt-get update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null 2>&1 \
    || echo "install_java: apt-get install default-jre-headless failed (the Spark tests will be skipped)" >&2
exit 0
