"""Workers on other hosts, with real network separation: Linux network namespaces.

Redis and the coordinator run in a hub namespace; each worker runs in a host namespace of its own,
under its own host name, and reaches Redis only through the hub's address on a private bridge
(``netns_testkit``). During one SPRT run a host's link is cut while it is playing a batch and later
healed, a third host joins, and a host is removed for good (worker killed, link and namespace
deleted) while it is playing. The run must end with exactly the counts (pentanomial, W/D/L,
counted batches, decision) of the same run on the local process pool.

The test needs root and iproute2: elsewhere it skips, saying why; where both are there (and always
under ``CI``) a failure to build the network fails the test instead of skipping it.
"""

from __future__ import annotations

import os
import re
import secrets
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery_testkit import START_TIMEOUT, redis_server_path, wait_until
from netns_testkit import SUBNET, HostWorker, Network, ip, log_text
from process_testkit import CommandPause, pause_when
from sprt_testkit import cli_command, run_cli, status_json, write_book, write_weights

import engine

GAME = "congo"
#: Batches of a few tenths of a second (2 pairs at 1000 nodes), so that a cut lands in the middle of
#: one; 60 of them, so that every event happens while the run goes on (they wait on the 3 s lease
#: and a worker's start, not on games: on this 2-core machine, busy, they were over with 16 batches
#: stored, after 5 s).
RUN_ARGS = ("--seed", "21", "--nodes", "1000", "--batch-pairs", "2", "--max-games", "240")
#: Wide SPRT bounds: the run ends at its game budget, not before the events.
SPRT_ARGS = ("--elo0", "-20", "--elo1", "20", "--alpha", "0.001", "--beta", "0.001")
#: The coordinator presumes a batch lost after this long without its result (seconds).
LEASE_SECONDS = "3"
#: Bound on the whole distributed run (seconds).
RUN_TIMEOUT = 180.0
#: Bound on waiting for one event of the run (seconds).
EVENT_TIMEOUT = 60.0
REDIS_PORT = 6379


class Run:
    """The coordinator's process (in the hub), its SQLite store and its output."""

    def __init__(self, net: Network, tmp_path: Path, broker: str, files: list[str]) -> None:
        """Start ``arbiter sprt`` in the hub namespace against ``broker``."""
        self.db = tmp_path / "multihost.db"
        self.log = tmp_path / "coordinator.log"
        env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
        env["ARBITER_LEASE_SECONDS"] = LEASE_SECONDS
        argv = [*cli_command("sprt", GAME, *files, *RUN_ARGS, *SPRT_ARGS)]
        argv += ["--broker", broker, "--store", f"sqlite:///{self.db}"]
        self.process = net.popen(None, argv, self.log, env=env)

    def results(self) -> list[tuple[int, str]]:
        """(batch, worker host) of every stored result (the store read-only; workers are named
        by their Celery node name, worker@HOST)."""
        if not self.db.exists():
            return []
        connection = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=5)
        try:
            rows = connection.execute("SELECT batch_index, worker FROM results").fetchall()
        except sqlite3.OperationalError:  # tables not created yet
            rows = []
        finally:
            connection.close()
        return [(int(index), str(worker).rpartition("@")[2]) for index, worker in rows]  # worker@HOST

    def output(self) -> str:
        """What the coordinator printed."""
        return log_text(self.log)

    def wait_for(self, predicate: Callable[[], Any], what: str) -> None:
        """Wait (bounded) for ``predicate`` while the run is still going on."""

        def check() -> Any:
            assert self.process.poll() is None, f"the run ended before {what}:\n{self.output()[-3000:]}"
            return predicate()

        wait_until(check, EVENT_TIMEOUT, what, interval=0.02)


def status(db: Path) -> dict[str, Any]:
    """``arbiter status 1 --json`` of a SQLite store."""
    return status_json(f"sqlite:///{db}", 1)


def near_default() -> dict[str, int]:
    """A candidate a few points of pawn from the defaults: the run is decided by its budget."""
    pawn = next(w for w in engine.weights(GAME) if w.name == "pawn")
    return {"pawn": pawn.default + 4}


def test_workers_on_other_hosts_cut_healed_joined_and_removed(network: Network, tmp_path: Path) -> None:
    net = network
    files = [
        *("--candidate", str(write_weights(tmp_path / "candidate.json", near_default()))),
        *("--book", str(write_book(tmp_path / "book.txt", GAME, count=24, seed=3))),
    ]
    local = tmp_path / "local.db"
    done = run_cli(
        "sprt", GAME, *files, *RUN_ARGS, *SPRT_ARGS, "--concurrency", "2", "--store", f"sqlite:///{local}"
    )
    assert done.returncode == 0, done.stderr
    expected = status(local)
    assert expected["decision"] == "budget", expected  # the run lasts its whole budget

    # Redis on the hub's bridge address only (not 0.0.0.0, not loopback), with a password.
    password = secrets.token_hex(8)
    broker = f"redis://:{password}@{net.hub_address}:{REDIS_PORT}/0"
    redis_argv = [str(redis_server_path()), "--bind", net.hub_address, "--port", str(REDIS_PORT)]
    redis_argv += ["--requirepass", password, "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    net.popen(None, redis_argv, tmp_path / "redis.log")
    cli = ["redis-cli", "-h", net.hub_address, "-p", str(REDIS_PORT), "--no-auth-warning", "-a", password]
    wait_until(lambda: net.run(None, [*cli, "ping"]).strip() == "PONG", START_TIMEOUT, "redis-server")
    assert net.run(None, [*cli, "config", "get", "bind"]).split() == ["bind", net.hub_address]
    net.add_host("h1", 1)
    net.add_host("h2", 2)
    # Nothing can leave the namespaces: none has a default route, and this test's own namespace
    # has no address of the test network.
    for name in (None, "h1", "h2"):
        assert "default" not in net.routes(name), net.routes(name)
    assert f"{SUBNET}." not in ip("-o", "addr", "show").stdout
    assert net.run("h1", [*cli, "ping"]).strip() == "PONG"  # a host reaches Redis over the bridge

    workers = {name: HostWorker(net, name, broker, tmp_path) for name in ("h1", "h2")}
    for worker in workers.values():
        worker.wait_ready()
    run = Run(net, tmp_path, broker, files)

    # 1. h1's link is cut while it plays a batch; a third host starts its worker meanwhile. The run
    #    cannot end before the batch lost with h1 is sent again (its lease runs out). Stop, check,
    #    act: h1 is stopped while it plays, the cut comes only if its batch is still unstored then,
    #    and it goes on (its result now cut off) once the link is down.
    h1 = CommandPause(workers["h1"].process.pid)

    def h1_playing() -> bool:
        assert run.process.poll() is None, f"the run ended before h1 played:\n{run.output()[-3000:]}"
        return bool(run.results()) and workers["h1"].playing() and workers["h1"].started_unstored(net, cli)

    pause_when(h1, h1_playing, EVENT_TIMEOUT, "h1 playing a batch")
    try:
        net.cut("h1")
    finally:
        h1.resume()
    net.add_host("h3", 3)
    workers["h3"] = HostWorker(net, "h3", broker, tmp_path)
    # The batch h1 played is lost: a batch, sent again when its lease runs out, or a spot check of
    # another worker's batch, which this machine then plays.
    lost = re.compile(r"sending it again|spot check of batch \d+ of run \d+ by worker@h1 failed")
    run.wait_for(lambda: lost.search(run.output()), "the batch lost with h1 to be played again")
    net.heal("h1")
    run.wait_for(workers["h3"].is_ready, "the worker on h3 to be ready")

    # 2. h2 goes away for good while it plays a batch: worker killed, link and namespace deleted.
    #    It is stopped while it plays (so it takes no other batch), and killed only once h3 has a
    #    result stored: the host that joined plays, whatever the speed of the machine.
    h2 = CommandPause(workers["h2"].process.pid)

    def h2_playing() -> bool:
        assert run.process.poll() is None, f"the run ended before h2 played:\n{run.output()[-3000:]}"
        return workers["h2"].playing() and workers["h2"].started_unstored(net, cli)

    pause_when(h2, h2_playing, EVENT_TIMEOUT, "h2 playing a batch")
    try:
        run.wait_for(lambda: any(host == "h3" for _, host in run.results()), "a result of h3")
    finally:
        net.kill(workers["h2"].process)  # stopped or not, SIGKILL ends it
        h2.resume()
    net.remove_host("h2")

    # The healed link carries h1's traffic again: the batch it was playing at the cut gets through,
    # or is stopped there by its revocation.
    wait_until(lambda: not workers["h1"].playing(), EVENT_TIMEOUT, "h1's batch from before the cut to end")
    run.process.wait(timeout=RUN_TIMEOUT)
    assert run.process.returncode == 0, run.output()[-3000:]

    final = status(run.db)
    for key in ("state", "pentanomial", "wdl", "games", "counted_batches", "decision"):
        assert final[key] == expected[key], (key, final[key], expected[key])
    stored = run.results()
    assert sorted(index for index, _ in stored) == list(range(final["counted_batches"]))  # each once
    hosts = {host for _, host in stored}
    assert "h3" in hosts and hosts <= {"h1", "h2", "h3"}, hosts  # the host that joined played
    assert password not in run.output()  # the broker URL is only ever printed masked
