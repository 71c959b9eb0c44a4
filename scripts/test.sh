#!/usr/bin/env bash
# The whole test suite: Rust unit and perft tests, then pytest (engine, coordinator, worker,
# end-to-end with real redis-server and Celery workers). Sets up what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/ensure-redis.sh
cargo test --release --workspace --exclude arbiter-python
.venv/bin/ruff check engine coordinator worker tests benchmarks
.venv/bin/python -m pytest "$@"
