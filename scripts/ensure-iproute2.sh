#!/usr/bin/env bash
# The multi-host test (tests/e2e_tests/test_multihost.py) builds network namespaces with iproute2's
# `ip`, as root; install Debian's package when it is missing and we are root (elsewhere the test
# skips, saying why).
set -euo pipefail
command -v ip >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iproute2 >/dev/null
fi
exit 0
