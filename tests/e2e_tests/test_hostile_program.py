"""A hostile engine program (tests/engines/hostile_engine.py) on a keyed Celery fleet: the
coordinator holds ARBITER_SECRET and runs the program in its run-start probe, its own checks and
``arbiter engine check``; the worker holds its ARBITER_WORKER_KEY and plays it. Everywhere the
program reaches no key, file, socket or namespace, changes nothing outside its scratch folder, and
no process it started outlives the run. ``arbiter worker --check-sandbox`` says the same of this
machine, and says it is not sandboxed where no sandbox can be made."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from celery_testkit import WorkerPool
from engine_testkit import python_engine_file
from process_testkit import descendants
from referee_testkit import processes_named, require_sandbox, wait_gone
from sprt_testkit import run_cli, status_json

from wire.sealing import FleetKeys

SECRET = "the-fleet-master-secret-of-the-hostile-program-test"
SPRT_ARGS = ("--elo0", "-50", "--elo1", "50", "--alpha", "0.001", "--beta", "0.001")
#: The hostile engine's name when none of its 16 attempts got anywhere.
CLEAN_NAME = "hostile: 0 of 16 reached"


@pytest.fixture(autouse=True)
def sandboxed() -> None:
    require_sandbox()


def hostile_file(tmp_path: Path, broker: str, marker: str) -> tuple[Path, Path, Path]:
    """The hostile engine file, aimed at a planted file in the worker's home, the store, another
    program's file in the worker's cache, a file to change, the broker's redis-server; and the
    home folder and the file to change. (Not at a folder holding its own: the sandbox shows such
    a folder with its own folder in it, and nothing else.)"""
    home = tmp_path / "home"
    home.mkdir()
    (home / "planted-secret").write_text("the worker's secret\n")
    victim = tmp_path / "victim.txt"
    victim.write_text("unchanged\n")
    cache = tmp_path / "cache-w1"  # the worker's program cache, with another program's file
    cache.mkdir()
    (cache / "other-program").write_text("another author's engine\n")
    url = urlsplit(broker)
    targets = {
        "read": [str(home / "planted-secret"), str(tmp_path / "store.db"), str(cache / "other-program")],
        "change": [str(victim)],
        "create_in": [str(tmp_path), str(home)],
        "tcp": [[url.hostname, url.port]],
        "netns": [f"/proc/{os.getpid()}/ns/net"],
        "marker": marker,
        "children": 3,
        "fork_bomb": 16,
    }
    engine_file = python_engine_file(
        tmp_path / "hostile", "hostile_engine.py", ["--targets", json.dumps(targets)], "hostile"
    )
    return engine_file, home, victim


def test_a_hostile_program_reaches_nothing_on_a_worker_and_on_the_coordinator(
    workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"arbiter-hostile-{os.getpid()}-{time.monotonic_ns()}"
    engine_file, home, victim = hostile_file(tmp_path, workers.broker, marker)
    monkeypatch.setenv("ARBITER_SECRET", SECRET)  # the coordinator's: probe and checks run here
    monkeypatch.setenv("HOME", str(home))
    keys = FleetKeys(SECRET.encode())
    credential = keys.credential("w1@arbiter-test")
    worker = workers.start(
        "w1",
        via="arbiter",
        env={
            "ARBITER_WORKER_KEY": credential,
            "ARBITER_SECRET": "",
            "ARBITER_PROGRAM_CACHE": str(tmp_path / "cache-w1"),
            "HOME": str(home),
        },
    )
    assert "engine programs run sandboxed (bubblewrap, seccomp filter on)" in worker.output()
    # The worker and its pool's processes hold the key in memory only: not in /proc/PID/environ.
    for pid in [worker.process.pid, *descendants(worker.process.pid)]:
        with open(f"/proc/{pid}/environ", "rb") as f:
            assert credential.split(":", 1)[1].encode() not in f.read(), pid

    checked = run_cli("engine", "check", str(engine_file), "--game", "congo")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert CLEAN_NAME in checked.stdout

    store_url = f"sqlite:///{tmp_path / 'store.db'}"
    done = run_cli(
        "sprt", "congo", "--candidate", str(engine_file), "--nodes", "200", "--max-games", "8",
        "--batch-pairs", "2", "--seed", "3", "--verify-fraction", "1", *SPRT_ARGS,
        "--broker", workers.broker, "--store", store_url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = status_json(store_url, 1)
    assert data["state"] == "finished" and data["games"] == 8
    assert data["quarantined"] == [] and data["refused"] == [], data
    shown = json.dumps(data)
    assert CLEAN_NAME in shown and "crashed" not in shown, shown

    worker.kill()
    assert wait_gone(marker, 10.0), f"left behind: {processes_named(marker)}"
    assert victim.read_text() == "unchanged\n"
    assert (home / "planted-secret").read_text() == "the worker's secret\n"
    made = [p for folder in (tmp_path, home) for p in folder.iterdir() if p.name.startswith("reach-")]
    assert made == []


def test_check_sandbox_reports_this_machine() -> None:
    done = run_cli("worker", "--check-sandbox", "--broker", "redis://127.0.0.1:6379/0")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("arbiter worker: sandbox: bubblewrap")
    assert lines[-1] == "arbiter worker: sandboxed: an engine program reaches none of the above"
    assert not [line for line in lines if "REACHED" in line]


def test_check_sandbox_without_bubblewrap_says_not_sandboxed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PATH where no bwrap is: the attempts run as an unsandboxed program would, and reach.
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    done = run_cli("worker", "--check-sandbox", "--broker", "redis://127.0.0.1:1/0")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no sandbox: bubblewrap (bwrap) is not installed" in done.stdout
    assert "NOT sandboxed" in done.stderr


def test_workers_without_a_sandbox_refuse_programs_and_say_why(
    workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two workers on machines without bubblewrap (a PATH where no bwrap is): each refuses the
    # program's batch with the reason, the run fails on it, and the status says why.
    monkeypatch.setenv("ARBITER_SECRET", SECRET)
    keys = FleetKeys(SECRET.encode())
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    for name in ("w1", "w2"):
        worker = workers.start(
            name,
            via="arbiter",
            env={
                "ARBITER_WORKER_KEY": keys.credential(f"{name}@arbiter-test"),
                "ARBITER_SECRET": "",
                "ARBITER_PROGRAM_CACHE": str(tmp_path / f"cache-{name}"),
                "PATH": str(no_bwrap),
            },
        )
        assert "engine programs are refused: no sandbox here (bubblewrap (bwrap) is not installed)" in (
            worker.output()
        )
    engine_file = python_engine_file(tmp_path / "plain", "plain_engine.py", [], "plain")
    store_url = f"sqlite:///{tmp_path / 'store.db'}"
    done = run_cli(
        "sprt", "congo", "--candidate", str(engine_file), "--nodes", "200", "--max-games", "8",
        "--batch-pairs", "2", "--seed", "3", *SPRT_ARGS, "--broker", workers.broker, "--store", store_url,
    )  # fmt: skip
    assert done.returncode != 0
    data = status_json(store_url, 1)
    reasons = {r["reason"] for r in data["refused"]}
    assert reasons and all("engine programs run only in a sandbox" in r for r in reasons), data["refused"]
    assert "bubblewrap (bwrap) is not installed" in next(iter(reasons))
