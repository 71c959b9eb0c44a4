"""A non-deterministic engine over a real Celery fleet with spot checks on every batch: the probe at
the run's start marks it unverifiable, so no batch is played again to be compared, no worker is
quarantined for the engine's differences, the run completes, and status, report and dashboard
say it is unverifiable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from celery_testkit import NODE_HOST, WorkerPool
from engine_testkit import python_engine_file
from sprt_testkit import run_cli
from starlette.testclient import TestClient

from coordinator.store import Store
from coordinator.web.app import create_app
from wire.sealing import FleetKeys

SECRET = "the-fleet-master-secret-of-the-unverifiable-test"
SPRT_ARGS = ("--elo0", "-50", "--elo1", "50", "--alpha", "0.001", "--beta", "0.001")


def test_a_random_engine_is_unverifiable_and_nobody_is_quarantined(
    workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARBITER_SECRET", SECRET)  # the coordinator's; workers hold their own keys
    keys = FleetKeys(SECRET.encode())
    for name in ("w1", "w2"):
        env = {
            "ARBITER_WORKER_KEY": keys.credential(f"{name}@{NODE_HOST}"),
            "ARBITER_SECRET": "",
            "ARBITER_PROGRAM_CACHE": str(tmp_path / f"cache-{name}"),
        }
        workers.start(name, env=env)
    random_engine = python_engine_file(tmp_path / "random", "plain_engine.py", ["--random"], "random")
    db = tmp_path / "store.db"
    store_url = f"sqlite:///{db}"
    done = run_cli(
        "sprt", "congo", "--candidate", str(random_engine), "--nodes", "200", "--max-games", "8",
        "--batch-pairs", "2", "--seed", "3", "--verify-fraction", "1", *SPRT_ARGS,
        "--broker", workers.broker, "--store", store_url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "random is not deterministic" in done.stderr and "unverifiable" in done.stderr

    shown = run_cli("status", "1", "--json", "--store", store_url)
    data = json.loads(shown.stdout)
    assert data["state"] == "finished" and data["games"] == 8
    assert data["quarantined"] == [] and data["refused"] == []
    assert data["unverifiable"] == ["random"]
    assert data["config"]["candidate_program"]["deterministic"] is False
    listed = run_cli("status", "--store", store_url).stdout.splitlines()
    assert listed[1].endswith("(unverifiable)"), listed
    detail = run_cli("status", "1", "--store", store_url).stdout
    assert "unverifiable: random did not play alike again" in detail and "quarantined" not in detail

    report = run_cli("report", "1", "--store", store_url, "-o", str(tmp_path / "report.html"))
    assert report.returncode == 0 and report.stdout.splitlines()[1].startswith("unverifiable: random")
    assert 'id="unverifiable">unverifiable: random' in (tmp_path / "report.html").read_text()
    store = Store(store_url, read_only=True)
    try:
        with TestClient(create_app(store)) as client:
            page = client.get("/runs/1")
        assert page.status_code == 200 and 'id="unverifiable"' in page.text
    finally:
        store.close()
