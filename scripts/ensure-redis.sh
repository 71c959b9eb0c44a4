#!/usr/bin/env bash
# The distributed tests start their own redis-server; install Debian's package when missing.
set -euo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
    # The tests start their own server on a free port; the packaged service is not needed.
    (service redis-server stop || true) >/dev/null 2>&1
else
    echo "ensure-redis: redis-server is missing; install it (Debian: apt-get install redis-server)" >&2
    exit 1
fi
