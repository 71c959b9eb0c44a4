#!/usr/bin/env bash
# Engine programs run in a bubblewrap sandbox (worker/referee/sandbox.py); the referee, worker and
# end-to-end tests start programs. Install Debian's bubblewrap (and libseccomp, whose filter it
# loads) when missing and we are root; elsewhere the sandbox tests skip, saying why.
set -euo pipefail
command -v bwrap >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends bubblewrap libseccomp2 >/dev/null
else
    echo "ensure-bubblewrap: bwrap is missing; install it (Debian: apt-get install bubblewrap)" >&2
    exit 1
fi
