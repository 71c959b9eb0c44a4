#!/usr/bin/env bash
# Creates .venv (if missing) and installs arbiter into it, editable, with the Rust extension
# built by maturin in the cargo profile $ARBITER_CARGO_PROFILE (release by default; CI uses ci,
# release without fat LTO), and arbiter-engine beside it. Safe to run again: nothing is
# reinstalled while the sources that go into the build are unchanged (a stamp in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo (the Rust toolchain) is required; install it with rustup" >&2
    exit 1
fi
profile="${ARBITER_CARGO_PROFILE:-release}"
stamp=.venv/.arbiter-build-stamp
# Everything the build reads: the Rust workspace, the build settings and the Python files the
# engine version hashes (engine/, wire/, worker/).
sources_hash() {
    {
        echo "$profile"
        find engine wire worker Cargo.toml Cargo.lock pyproject.toml -type f \
            \( -name '*.rs' -o -name '*.py' -o -name '*.toml' -o -name Cargo.lock \) -print0 \
            | LC_ALL=C sort -z | xargs -0 sha256sum
    } | sha256sum | cut -d' ' -f1
}
# arbiter's own modules as bytecode, written here since a Python run with PYTHONDONTWRITEBYTECODE
# (as CI machines often are) never writes it: otherwise every process (each command, Celery
# worker and pool process) compiles them again, about 0.15 s of CPU. Only what changed is compiled.
compile_sources() {
    [ ! -x .venv/bin/python ] || .venv/bin/python -m compileall -q coordinator wire worker engine >/dev/null
}
wanted="$(sources_hash)"
if [ -x .venv/bin/python ] && [ -x .venv/bin/arbiter-engine ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    compile_sources
    exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
# The Python dependencies install (one core) while the Rust builds compile: the
# extension is built first by maturin as pip's build would build it, so that the editable install
# at the end finds it up to date.
pyproject() {  # the requirements pyproject.toml lists under $1 (a Python expression on it)
    .venv/bin/python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb')); print('\n'.join($1))"
}
mapfile -t backend < <(pyproject "p['build-system']['requires']")
mapfile -t deps < <(pyproject "p['project']['dependencies'] + p['project']['optional-dependencies']['dev']")
.venv/bin/python -m pip install -q "${backend[@]}"
deps_log="$(mktemp)" build_log="$(mktemp)" deps_pid=""
trap '[ -z "$deps_pid" ] || kill "$deps_pid" 2>/dev/null || true; rm -f "$deps_log" "$build_log"' EXIT
.venv/bin/python -m pip install -q "${deps[@]}" >"$deps_log" 2>&1 &
deps_pid=$!
if ! .venv/bin/maturin build -i .venv/bin/python --compatibility off --profile "$profile" >"$build_log" 2>&1; then
    cat "$build_log" >&2
    exit 1
fi
# arbiter-engine, the built-in engine as a program speaking the engine protocol, beside arbiter.
cargo build --quiet --profile "$profile" -p arbiter-engine
if ! wait "$deps_pid"; then
    cat "$deps_log" >&2
    echo "setup: installing the Python dependencies failed" >&2
    exit 1
fi
deps_pid=""  # reaped: nothing left to stop
MATURIN_PEP517_ARGS="--profile $profile" .venv/bin/python -m pip install -q --no-build-isolation -e '.[dev]'
install -m 0755 "target/$profile/arbiter-engine" .venv/bin/arbiter-engine
compile_sources
echo "$wanted" > "$stamp"
