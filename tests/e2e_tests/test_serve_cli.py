"""``arbiter serve`` as a command: bad input is one line on stderr and exit status 2 (a bad port, a
store that is not there or holds no arbiter store, a port taken, an address not of this machine),
it listens on loopback by default, answers, and stops on Ctrl-C; listening elsewhere warns."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest
from celery_testkit import free_port, wait_until
from process_testkit import read_line
from sprt_testkit import cli_command, run_cli

from coordinator.cli.serve import exposure_warning
from coordinator.store import Store

#: Bound on the server's start and stop (seconds).
WAIT = 60.0


def assert_usage_error(args: list[str], says: str) -> None:
    """``arbiter serve ARGS`` fails at once with one line naming the problem."""
    done = run_cli("serve", *args)
    assert done.returncode == 2, done
    assert done.stderr.startswith("arbiter serve: ") and says in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_bad_input_is_one_line_and_status_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    store = tmp_path / "store.db"
    Store(f"sqlite:///{store}").close()
    assert_usage_error(["--port", "70000", "--store", f"sqlite:///{store}"], "--port")
    assert_usage_error(["--store", f"sqlite:///{tmp_path / 'none.db'}"], "no store at")
    assert_usage_error(["--store", f"sqlite:///{empty}"], "no arbiter store there")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert_usage_error(["--store", f"sqlite:///{store}", "--port", str(port)], f"port {port}")
    assert_usage_error(["--store", f"sqlite:///{store}", "--host", "192.0.2.1"], "cannot listen on 192.0.2.1")
    assert empty.stat().st_size == 0  # nothing was created in it


def test_serves_on_loopback_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    Store(f"sqlite:///{store}").close()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "ARBITER_STORE"}
    process = subprocess.Popen(
        cli_command("serve", "--store", f"sqlite:///{store}", "--port", str(port)),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        first = read_line(process.stderr, WAIT, "arbiter serve's first line")
        assert (
            first == f"arbiter: dashboard on http://127.0.0.1:{port}/ (store sqlite:///{store}, read-only)\n"
        )

        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/runs", timeout=5) as answer:
                    return json.load(answer)["runs"] == []
            except OSError:
                return False

        wait_until(answers, WAIT, "the dashboard to answer")
        process.send_signal(signal.SIGINT)
        assert process.wait(WAIT) == 130
        assert process.stderr.read().strip() == "arbiter serve: interrupted"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(WAIT)


@pytest.mark.parametrize(
    ("host", "address", "warned"),
    [("127.0.0.1", "127.0.0.1", False), ("localhost", "::1", False), ("127.0.0.2", "127.0.0.2", False),
     ("0.0.0.0", "0.0.0.0", True), ("::", "::", True), ("dash.example", "10.1.2.3", True)],
)  # fmt: skip
def test_only_loopback_is_quiet(host: str, address: str, warned: bool) -> None:
    warning = exposure_warning(host, address, 8000)
    assert (warning is not None) == warned
    if warning is not None:
        assert warning.startswith(f"arbiter serve: warning: listening on {host}, not loopback")
        assert "docs/deploy.md" in warning and "\n" not in warning
