"""``arbiter worker-key NODE`` and the credential it prints, as an operator uses them: one line to
install on a worker, made only from the master secret, that never holds the secret itself; bad
input is one line and exit status 2, and never shows a key."""

from __future__ import annotations

import os
import subprocess

import cli_fork
from celery_testkit import free_port

from wire.sealing import FleetKeys, read_credential

TIMEOUT = 60
MASTER = "the fleet's master secret, long and random"


def arbiter(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``arbiter ARGS`` with no ``ARBITER_*`` variable but ``env``, forked from a process that has
    imported arbiter (``cli_fork``)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    return cli_fork.run(list(args), None, clean | env, TIMEOUT)


def one_line_usage_error(done: subprocess.CompletedProcess[str], command: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arbiter {command}: "), done.stderr
    return lines[0]


def test_a_credential_is_made_from_the_master_secret_and_holds_only_this_workers_key() -> None:
    done = arbiter("worker-key", "w1@machine1", ARBITER_SECRET=MASTER)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    name, _, credential = done.stdout.strip().partition("=")
    assert name == "ARBITER_WORKER_KEY" and done.stdout.count("\n") == 1
    keys = read_credential(credential)
    fleet = FleetKeys(MASTER.encode())
    assert keys.node == "w1@machine1" and keys.key == fleet.worker_key("w1@machine1")
    assert keys.public_key == fleet.public_key and keys.master is None
    assert MASTER not in credential and MASTER.encode().hex() not in credential
    again = arbiter("worker-key", "w1@machine1", ARBITER_SECRET=MASTER)
    assert again.stdout == done.stdout  # derived: the same line whenever it is asked again
    other = arbiter("worker-key", "w1@machine1", ARBITER_SECRET=MASTER + "!")
    assert other.stdout != done.stdout


def test_bad_input_is_one_line_and_status_2() -> None:
    line = one_line_usage_error(arbiter("worker-key", "w1@machine1"), "worker-key")
    assert "set ARBITER_SECRET" in line
    for node in ("w1", "w1@%h", "w 1@host"):
        line = one_line_usage_error(arbiter("worker-key", node, ARBITER_SECRET=MASTER), "worker-key")
        assert f"NODE: worker name {node!r}: expected a Celery node name like w1@host" in line, line


def test_a_worker_runs_as_its_credentials_node_only() -> None:
    credential = FleetKeys(MASTER.encode()).credential("w1@machine1")
    broker = f"redis://127.0.0.1:{free_port()}/0"
    line = one_line_usage_error(
        arbiter("worker", "--broker", broker, "--name", "w2@machine1", ARBITER_WORKER_KEY=credential),
        "worker",
    )
    assert "credential (ARBITER_WORKER_KEY) is for w1@machine1" in line
    broken = credential[:-8] + "AAAAAAAA"
    line = one_line_usage_error(arbiter("worker", "--broker", broker, ARBITER_WORKER_KEY=broken), "worker")
    assert "ARBITER_WORKER_KEY: not a worker credential" in line and broken not in line
    reached = arbiter("worker", "--broker", broker, ARBITER_WORKER_KEY=credential)
    assert "unreachable" in reached.stderr  # the credential read; the broker is the next check
