#!/usr/bin/env bash
# The PostgreSQL tests start their own server (initdb + postgres in a temporary folder, on a free
# loopback port; see tests/pg_testkit.py); install Debian's server packages when they are missing.
# No cluster is created and no service is started: the packaged server is never used.
set -euo pipefail
found() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1
}
found && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # Tell postgresql-common not to create (and start) the default cluster on port 5432.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/arbiter-tests.conf
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    (service postgresql stop || true) >/dev/null 2>&1 # in case a packaged cluster was started anyway
    found || { echo "ensure-postgres: installed postgresql but found no initdb" >&2; exit 1; }
else
    echo "ensure-postgres: PostgreSQL's server is missing; install it (Debian: apt-get install postgresql)" >&2
    exit 1
fi
