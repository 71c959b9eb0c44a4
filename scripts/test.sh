#!/usr/bin/env bash
# The whole test suite: Rust unit and perft tests, then pytest (engine, coordinator, worker,
# end-to-end with real redis-server, PostgreSQL and Celery workers, and workers on hosts made of
# network namespaces). Sets up what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/ensure-redis.sh
scripts/ensure-chromium.sh
scripts/ensure-postgres.sh
scripts/ensure-iproute2.sh
cargo test --release --workspace --exclude arbiter-python
.venv/bin/ruff check engine coordinator worker tests benchmarks
.venv/bin/python -m pytest "$@"
