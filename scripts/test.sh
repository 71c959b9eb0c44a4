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
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK="(unit or integration) and not slow and not browser"
profile="${ARBITER_CARGO_PROFILE:-release}"
scripts/setup.sh
if [ "${1:-}" = "--quick" ]; then
    shift
    scripts/ensure-postgres.sh
    .venv/bin/ruff check engine coordinator worker tests benchmarks
    exec .venv/bin/python -m pytest -m "$QUICK" "$@"
fi
scripts/ensure-redis.sh
scripts/ensure-chromium.sh
scripts/ensure-postgres.sh
scripts/ensure-iproute2.sh
cargo test --profile "$profile" --workspace --exclude arbiter-python
cargo clippy --profile "$profile" --workspace --all-targets -- -D warnings
.venv/bin/ruff check engine coordinator worker tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
