#!/usr/bin/env bash
# The whole test suite: Rust tests and clippy, ruff and mypy (strict), then pytest (engine,
# coordinator, worker, end-to-end with real redis-server, PostgreSQL and Celery workers, and workers
# on hosts made of network namespaces). Sets up what it needs first. Cargo builds use the profile
# $ARBITER_CARGO_PROFILE (release by default; .ci/run sets ci).
#
#   scripts/test.sh [PYTEST ARGS]            everything
#   scripts/test.sh --quick [PYTEST ARGS]    the inner loop: ruff, then the unit and fast
#                                            integration tests (pytest -m "$QUICK"); no cargo,
#                                            mypy, Redis, Celery, browser or end-to-end tests
#
# pytest runs on $ARBITER_TEST_WORKERS processes (pytest-xdist; by default two more than the
# cores, since end-to-end tests spend part of their time waiting on servers and workers), each test
# module on one of them (--dist loadscope: a module's fixtures are made once), the longest modules
# first (tests/durations.json, written by `pytest --record-durations` on the whole suite; xdist's
# own reordering, by number of tests, is off). The Rust tests, clippy and mypy run beside it, in
# the CPU time that the end-to-end tests leave while they wait on their servers and workers (at
# the same priority: under `nice` they starved, and the Rust tests' bounded waits ran out); their
# output follows pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
# Bytecode is written (into __pycache__ folders, which git ignores) even where the environment says
# not to: otherwise every Python process the suite starts (commands, Celery workers, pool processes)
# compiles what it imports again, and each pytest process rewrites and compiles every test module
# (collecting the suite: 7 s of CPU, 4 s with the bytecode written).
unset PYTHONDONTWRITEBYTECODE
QUICK="(unit or integration) and not slow and not browser"
profile="${ARBITER_CARGO_PROFILE:-release}"
parallel=(-n "${ARBITER_TEST_WORKERS:-$(($(nproc) + 2))}" --dist loadscope --no-loadscope-reorder)
scripts/setup.sh
if [ "${1:-}" = "--quick" ]; then
    shift
    scripts/ensure-postgres.sh
    scripts/ensure-bubblewrap.sh
    .venv/bin/ruff check engine coordinator wire worker tests benchmarks
    exec .venv/bin/python -m pytest "${parallel[@]}" -m "$QUICK" "$@"
fi
scripts/ensure-redis.sh
scripts/ensure-chromium.sh
scripts/ensure-postgres.sh
scripts/ensure-iproute2.sh
scripts/ensure-bubblewrap.sh
.venv/bin/ruff check engine coordinator wire worker tests benchmarks

checks_log="$(mktemp)"
trap 'rm -f "$checks_log"' EXIT
checks() {  # in a background subshell, which keeps set -e: the first failure ends it
    cargo test --profile "$profile" --workspace --exclude arbiter-python
    cargo clippy --profile "$profile" --workspace --all-targets -- -D warnings
    .venv/bin/mypy
}
checks >"$checks_log" 2>&1 &
checks_pid=$!

status=0
.venv/bin/python -m pytest "${parallel[@]}" "$@" || status=$?
checks_status=0
wait "$checks_pid" || checks_status=$?
echo "--- cargo test, clippy and mypy (run beside pytest)"
cat "$checks_log"
if [ "$checks_status" -ne 0 ]; then
    echo "cargo test, clippy or mypy failed (exit status $checks_status)" >&2
    [ "$status" -ne 0 ] || status=$checks_status
fi
exit "$status"
