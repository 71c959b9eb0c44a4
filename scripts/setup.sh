#!/usr/bin/env bash
# Creates .venv (if missing) and installs arbiter into it, editable, with the Rust extension
# built in release mode by maturin. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo (the Rust toolchain) is required; install it with rustup" >&2
    exit 1
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# arbiter-engine, the built-in engine as a program speaking the engine protocol, beside arbiter.
cargo build --quiet --release -p arbiter-engine
install -m 0755 target/release/arbiter-engine .venv/bin/arbiter-engine
