"""``arbiter server`` on embedded defaults (SQLite, this machine's pool), as users run it: runs
submitted by the CLI and the API are played to their end with the counts a terminal's run gets,
after ``kill -9`` too; stop, resume and rerun; a follower's Ctrl-C leaves the run going; a webhook
fires; bad submissions are 4xx with nothing stored; a terminal never plays a run the server holds;
the fleet is shared among submitters as documented."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import wait_until
from process_testkit import WorkerPause, pause_when, read_line
from server_testkit import ServerProcess, gone
from sprt_testkit import cli_command, run_cli, status_json, write_book, write_weights

from coordinator.registry import kind_of
from coordinator.runs import RunKind
from coordinator.store import Store

GAME = "congo"
#: Bound on a run's end (seconds).
RUN_WAIT = 180.0


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "book": write_book(tmp_path / "book.txt", GAME, count=12),
        "candidate": write_weights(tmp_path / "candidate.json", {"pawn": 150, "mobility": 6}),
    }


def sprt(files: dict[str, Path], *extra: str) -> list[str]:
    """``sprt`` arguments of a small fixed-node run."""
    args = ["sprt", GAME, "--candidate", str(files["candidate"]), "--book", str(files["book"])]
    return [*args, "--batch-pairs", "2", "--seed", "5", "--nodes", "300", *extra]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path, f"sqlite:///{tmp_path / 'server.db'}", args=("--concurrency", "2"))
    try:
        yield process.start()
    finally:
        process.stop()


def counts(store: str, run_id: int) -> tuple[list[int], int]:
    """A run's pentanomial and games, as its store says."""
    data = status_json(store, run_id)
    return data["pentanomial"], data["games"]


def local_counts(tmp_path: Path, args: list[str], label: str) -> tuple[list[int], int]:
    """The counts of the same run played by a terminal, in a store of its own."""
    store = f"sqlite:///{tmp_path / label}.db"
    done = run_cli(*args, "--store", store)
    assert done.returncode == 0, done.stderr
    return counts(store, 1)


def mid_run(server: ServerProcess, run_id: int) -> bool:
    """True once the run counted a batch; AssertionError when it ended already."""
    row = server.run(run_id)
    assert row["state"] != "finished", f"run {run_id} ended before it could be caught mid-run"
    return bool(row["games"] > 0)


class Hooks:
    """A webhook receiver on a free loopback port: the JSON bodies it was posted."""

    def __init__(self) -> None:
        self.bodies: queue.Queue[dict[str, Any]] = queue.Queue()
        received = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                received.put(json.loads(self.rfile.read(length)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/hook"

    def next(self) -> dict[str, Any]:
        return self.bodies.get(timeout=RUN_WAIT)


def test_a_cli_submission_ends_with_a_terminals_counts(
    server: ServerProcess, files: dict[str, Path], tmp_path: Path
) -> None:
    args = sprt(files, "--max-games", "24")
    done = run_cli(*args, "--server", server.url)
    assert done.returncode == 0, done.stderr
    assert "submitted" in done.stderr and "games: 24" in done.stdout
    row = server.run(1)
    assert row["state"] == "finished" and row["owner"]
    assert counts(server.store, 1) == local_counts(tmp_path, args, "local")
    again = run_cli(*args, "--server", server.url)  # the same configuration: the same run, shown
    assert again.returncode == 0 and "already on the server" in again.stderr
    assert len(server.get("/api/v1/runs")["runs"]) == 1


def test_kill_9_mid_run_then_restart_ends_with_the_same_counts(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    store = f"sqlite:///{tmp_path / 'server.db'}"
    args = sprt(files, "--max-games", "40", "--nodes", "600")
    first = ServerProcess(tmp_path, store, args=("--concurrency", "1")).start()
    follower = subprocess.Popen(cli_command(*args, "--server", first.url), stderr=subprocess.PIPE, text=True)
    try:
        assert follower.stderr is not None
        assert "submitted" in read_line(follower.stderr, RUN_WAIT, "the submission")
        # stop, check, act: the server's processes are held still once a batch counts, so the run
        # is unfinished at the kill however fast the machine plays
        held = WorkerPause(first.process.pid)  # type: ignore[union-attr]
        pause_when(held, lambda: mid_run(first, 1), RUN_WAIT, "a counted batch")
        assert Store(store).get_run(1).state.unfinished  # type: ignore[union-attr]
        started = first.kill()
        held.resume()  # the SIGTERM the kernel sent them on the server's death is handled now
        assert started, "the run was played by a process of the server"
        wait_until(lambda: gone(started), 60, "the run's processes to end with the server")
        second = ServerProcess(tmp_path, store, args=("--concurrency", "1"), port=first.port).start()
        try:
            assert second.wait_state(1, ("finished",), RUN_WAIT)["games"] == 40
            assert follower.wait(RUN_WAIT) == 0, (
                follower.stderr.read()
            )  # it waited for the server to come back
        finally:
            second.stop()
    finally:
        follower.kill()
        first.stop()
    assert counts(store, 1) == local_counts(tmp_path, args, "local")


def test_stop_resume_rerun_and_webhooks(server: ServerProcess, files: dict[str, Path]) -> None:
    hooks = Hooks()
    args = sprt(files, "--max-games", "200", "--nodes", "600")
    follower = subprocess.Popen(
        cli_command(*args, "--server", server.url, "--webhook", hooks.url), stderr=subprocess.PIPE, text=True
    )
    assert follower.stderr is not None
    assert "submitted" in read_line(follower.stderr, RUN_WAIT, "the submission")
    held = WorkerPause(server.process.pid)  # type: ignore[union-attr]
    pause_when(held, lambda: mid_run(server, 1), RUN_WAIT, "a counted batch")
    try:  # the run cannot end while the follower detaches and the stop is asked
        follower.send_signal(signal.SIGINT)  # Ctrl-C detaches
        try:
            detached = follower.wait(60)
        except subprocess.TimeoutExpired:
            follower.kill()
            raise AssertionError(f"Ctrl-C did not detach the follower: {follower.communicate()[1]}") from None
        assert detached == 130
        assert "goes on" in follower.stderr.read()
        assert server.run(1)["state"] == "running"
        stopped = run_cli("stop", "1", "--server", server.url)
        assert stopped.returncode == 0, stopped.stderr
    finally:
        held.resume()
    assert server.wait_state(1, ("stopped",), RUN_WAIT)["games"] < 200
    body = hooks.next()
    assert body["arbiter"]["run_id"] == 1 and body["arbiter"]["state"] == "stopped"
    assert "1" in body["content"] and body["text"] == body["content"]
    status, answer = server.request("POST", "/api/v1/runs/1/resume")
    assert status == 202 and answer["run"]["state"] == "queued"
    server.request("PATCH", "/api/v1/runs/1", {"priority": 0})
    row = server.wait_state(1, ("finished",), RUN_WAIT)
    assert row["games"] == 200
    assert hooks.next()["arbiter"]["state"] == "finished"
    again = run_cli("rerun", "1", "--server", server.url, "--seed", "77", "--no-follow")
    assert again.returncode == 0, again.stderr
    rerun = server.run(2)
    assert (
        rerun["config"]["seed"] == 77 and rerun["config"]["candidate"] == server.run(1)["config"]["candidate"]
    )
    server.request("DELETE", "/api/v1/runs/2")
    assert [r["id"] for r in server.get("/api/v1/runs")["runs"]] == [1]


def test_bad_submissions_are_4xx_naming_the_field_and_store_nothing(
    server: ServerProcess, files: dict[str, Path]
) -> None:
    from coordinator.sprt.config import SprtConfig

    good = kind_of(RunKind.SPRT).encode(
        SprtConfig.from_json(json.loads(json.dumps(_config_of(server, files))))
    )
    cases: list[tuple[Any, str]] = [
        ([], "body"),
        ({"kind": "trial", "config": good}, "kind"),
        ({"kind": "sprt"}, "config"),
        ({"kind": "sprt", "config": {**good, "engine_version": "0.0.0"}}, "config.engine_version"),
        ({"kind": "sprt", "config": {**good, "limits": {"nodes": -4}}}, "config"),
        ({"kind": "sprt", "config": {**good, "colour": 1}}, "config.colour"),
        ({"kind": "sprt", "config": good, "priority": 12}, "priority"),
        ({"kind": "sprt", "config": good, "throughput": "much"}, "throughput"),
        ({"kind": "sprt", "config": good, "owner": "a b"}, "owner"),
        ({"kind": "sprt", "config": good, "webhooks": ["ftp://x"]}, "webhooks[0]"),
        ({"kind": "sprt", "config": good, "extra": 1}, "extra"),
    ]
    before = len(server.get("/api/v1/runs")["runs"])
    for body, field in cases:
        status, answer = server.request("POST", "/api/v1/runs", body)
        assert status == 400, (body, answer)
        assert answer["error"].startswith(f"{field}:"), (field, answer)
    for raw in (b"{not json", b"[" * 100_000, b'{"priority": ' + b"9" * 5000 + b"}"):  # nested, a huge int
        status, answer = server.request("POST", "/api/v1/runs", data=raw)
        assert status == 400 and answer["error"].startswith("body: expected JSON"), (raw[:20], status, answer)
    status, answer = server.request("POST", "/api/v1/programs", data=b"not an archive")
    assert status == 400 and "archive" in answer["error"]
    status, answer = server.request("PATCH", "/api/v1/runs/1", {"priority": 3})
    assert status == 404
    assert len(server.get("/api/v1/runs")["runs"]) == before


def _config_of(server: ServerProcess, files: dict[str, Path]) -> dict[str, Any]:
    """The configuration the CLI would submit for a small SPRT (from a run of a scratch store)."""
    scratch = server.directory / "scratch.db"
    done = run_cli(*sprt(files, "--max-games", "4"), "--store", f"sqlite:///{scratch}")
    assert done.returncode == 0, done.stderr
    run = Store(f"sqlite:///{scratch}").get_run(1)
    assert run is not None
    return run.config


def test_a_terminal_never_plays_a_run_the_server_holds(server: ServerProcess, files: dict[str, Path]) -> None:
    status, answer = server.request(
        "POST", "/api/v1/runs", {"kind": "sprt", "config": {**_config_of(server, files), "max_games": 4000}}
    )
    assert status == 201, answer
    run_id = answer["run"]["id"]
    server.wait_state(run_id, ("running",), RUN_WAIT)
    done = run_cli("resume", str(run_id), "--store", server.store)
    assert done.returncode == 2 and "is being played by s1" in done.stderr, done.stderr
    server.request("POST", f"/api/v1/runs/{run_id}/stop")
    server.wait_state(run_id, ("stopped",), RUN_WAIT)


def test_the_fleet_is_shared_by_submitter_then_throughput(
    server: ServerProcess, files: dict[str, Path]
) -> None:
    config = _config_of(server, files)
    submitted = {}
    for owner, seed, throughput in (("ann", 1, 100), ("ann", 2, 300), ("bob", 3, 100)):
        body = {"kind": "sprt", "config": {**config, "seed": seed, "max_games": 4000}}
        status, answer = server.request(
            "POST", "/api/v1/runs", {**body, "owner": owner, "throughput": throughput}
        )
        assert status == 201, answer
        submitted[(owner, seed)] = answer["run"]["id"]

    def shares() -> dict[int, float] | None:
        rows = {r["id"]: r["share"] for r in server.get("/api/v1/runs")["runs"]}
        return rows if all(rows.get(i) is not None for i in submitted.values()) else None

    found = wait_until(shares, RUN_WAIT, "every run to get its share")
    assert found[submitted[("ann", 1)]] == pytest.approx(0.125)
    assert found[submitted[("ann", 2)]] == pytest.approx(0.375)
    assert found[submitted[("bob", 3)]] == pytest.approx(0.5)
    status, _ = server.request("PATCH", f"/api/v1/runs/{submitted[('bob', 3)]}", {"priority": 1})
    assert status == 200
    found = wait_until(
        lambda: s if (s := shares()) and s[submitted[("bob", 3)]] == 1.0 else None, 60, "bob first"
    )
    assert found[submitted[("ann", 1)]] == 0.0
    listing = run_cli("status", "--store", server.store)
    assert "share" in listing.stdout
    for run_id in submitted.values():
        server.request("POST", f"/api/v1/runs/{run_id}/stop")
    for run_id in submitted.values():
        server.wait_state(run_id, ("stopped",), RUN_WAIT)
    assert os.path.isdir(server.logs)


def test_an_engine_file_travels_with_the_submission(
    server: ServerProcess, files: dict[str, Path], tmp_path: Path
) -> None:
    from engine_testkit import arbiter_engine_file

    engine_file = arbiter_engine_file(tmp_path / "ae")
    args = ["sprt", GAME, "--candidate", str(engine_file), "--book", str(files["book"]), "--batch-pairs", "2"]
    args += ["--seed", "3", "--nodes", "300", "--max-games", "8"]
    done = run_cli(*args, "--server", server.url)
    assert done.returncode == 0, done.stderr
    row = server.run(1)
    program = row["config"]["candidate_program"]
    assert row["state"] == "finished" and row["games"] == 8
    assert program["name"] == "arbiter-engine" and program["deterministic"] is True
    assert Store(server.store).program_archive(program["digest"]) is not None
    status, answer = server.request(
        "POST",
        "/api/v1/runs",
        {
            "kind": "sprt",
            "config": {**row["config"], "seed": 9, "candidate_program": {**program, "digest": "0" * 64}},
        },
    )
    assert status == 400 and answer["error"].startswith("config.candidate_program.digest:"), answer
