#!/usr/bin/env bash
# The whole test suite: Rust tests and clippy, ruff and mypy (strict), then pytest (engine,
# coordinator, worker, end-to-end with real redis-server, PostgreSQL and Celery workers, and workers
# on hosts made of network namespaces). Sets up what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/ensure-redis.sh
scripts/ensure-chromium.sh
scripts/ensure-postgres.sh
scripts/ensure-iproute2.sh
cargo test --release --workspace --exclude arbiter-python
cargo clippy --release --workspace --all-targets -- -D warnings
.venv/bin/ruff check engine coordinator worker tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
