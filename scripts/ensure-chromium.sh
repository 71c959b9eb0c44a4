#!/usr/bin/env bash
# The report tests open the HTML reports in a real headless Chromium (Debian's package, driven by
# Playwright; nothing downloads a browser). Install Debian's chromium when it is missing.
set -euo pipefail
for candidate in chromium chromium-browser; do
    command -v "$candidate" >/dev/null 2>&1 && exit 0
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
    echo "ensure-chromium: chromium is missing; install it (Debian: apt-get install chromium)" >&2
    exit 1
fi
