"""Who is online, against a real redis-server and real Celery workers: a worker's heartbeats list
it (``arbiter workers``, the dashboard's ``/api/workers`` and workers page) with its pool size and
the store's refusals of it, proved its own under the fleet's secret; a heartbeat forged in a keyed
worker's name is shown unproved, one copied under another name not at all; a killed worker is gone
once its heartbeat's time to live passes; a worker names the batch it plays; an unreachable broker
is one masked line; ``arbiter serve --broker`` (or ``$ARBITER_BROKER``) serves the list; what a
heartbeat says reaches a terminal only made safe."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from celery_testkit import NODE_HOST, RedisDatabase, WorkerPool, free_port, wait_until
from process_testkit import read_line
from sprt_testkit import cli_command, run_cli
from starlette.testclient import TestClient
from test_celery_faults import make_config

import engine
from coordinator.executors.celery.executor import CeleryExecutor
from coordinator.fleet import Broker, Fleet, online
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store
from coordinator.web.app import create_app
from coordinator.web.pages import NO_BROKER
from wire.heartbeat import HEARTBEAT_ENV, MAX_BYTES, TTL_INTERVALS, Heartbeat, heartbeat_key, sealed
from wire.sealing import FleetKeys

SECRET = "the-fleet-master-secret-of-the-heartbeat-test"
FLEET = FleetKeys(SECRET.encode())
#: Heartbeat interval of the test workers (seconds): their keys live three of them.
INTERVAL = 0.5
#: Bound on a worker's first heartbeat being read, and on a killed one's going (seconds).
APPEARS = 30.0
GONE = 20.0


def node(name: str) -> str:
    """A test worker's node name."""
    return f"{name}@{NODE_HOST}"


def listed(broker: Broker, keys: FleetKeys | None = FLEET) -> Fleet:
    """The fleet as the broker shows it now (no store)."""
    return online(broker, None, keys)


def store_with_refusals(path: Path, worker: str, count: int) -> str:
    """A store whose one run refused ``count`` answers of ``worker``; its URL."""
    url = f"sqlite:///{path}"
    store = Store(url)
    config = SprtConfig(
        game="congo",
        candidate=engine.validate_weights("congo", None),
        baseline=engine.validate_weights("congo", None),
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
    )
    run_id = store.create_run(RunKind.SPRT, "congo", config.to_json(), config.fingerprint())
    store.start_batch(run_id, 0, "0" * 64, 0)
    for _ in range(count):
        store.refuse_batch(run_id, 0, "not sealed", worker=worker)
    store.close()
    return url


def test_a_live_worker_is_listed_proved_and_gone_once_killed(
    redis_server: RedisDatabase, workers: WorkerPool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        "ARBITER_WORKER_KEY": FLEET.credential(node("w1")),
        "ARBITER_SECRET": "",
        HEARTBEAT_ENV: str(INTERVAL),
    }
    worker = workers.start("w1", via="arbiter", env=env)
    broker = Broker(redis_server.url)
    client = redis_server.client()
    fleet = wait_until(
        lambda: (f := listed(broker)).workers and f, APPEARS, "the worker's heartbeat", interval=0.1
    )
    [w1] = fleet.workers
    beat = w1.beat
    assert (beat.name, beat.cores, w1.proof, beat.engine) == (node("w1"), 1, "proved", engine.ENGINE_VERSION)
    assert 0 < client.pttl(heartbeat_key(node("w1"))) <= TTL_INTERVALS * INTERVAL * 1000
    # the bench speed comes with the second heartbeat
    wait_until(lambda: listed(broker).workers[0].speed_factor, APPEARS, "the worker's speed", interval=0.1)

    # forgeries: unsealed in the name of a keyed worker (w2 has a credential, no process); w1's own
    # sealed heartbeat copied under w3's name
    now = Heartbeat.from_json(
        orjson.loads(orjson.loads(client.get(heartbeat_key(node("w1"))) or b"")["body"])
    )
    forged = sealed(dataclasses.replace(now, name=node("w2")), None)
    client.set(heartbeat_key(node("w2")), forged, ex=60)
    client.set(heartbeat_key(node("w3")), client.get(heartbeat_key(node("w1"))) or b"", ex=60)

    monkeypatch.setenv("ARBITER_SECRET", SECRET)
    store_url = store_with_refusals(tmp_path / "store.db", node("w1"), 2)
    shown = run_cli("workers", "--broker", redis_server.url, "--store", store_url, "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    rows = {w["name"]: w for w in data["workers"]}
    assert set(rows) == {node("w1"), node("w2")}
    assert (rows[node("w1")]["proved"], rows[node("w1")]["cores"], rows[node("w1")]["refusals"]) == (
        True,
        1,
        2,
    )
    assert (rows[node("w2")]["proved"], rows[node("w2")]["proof"]) == (False, "unsealed")
    assert [u["key"] for u in data["unreadable"]] == [node("w3")]
    assert f"heartbeat of '{node('w3')}' ignored" in shown.stderr

    table = run_cli("workers", "--broker", redis_server.url, "--store", store_url)
    assert table.returncode == 0, table.stderr
    lines = {line.split()[0]: line.split() for line in table.stdout.splitlines()[1:]}
    assert lines[node("w1")][1:3] == ["yes", "1"] and lines[node("w2")][1] == "unsealed"

    monkeypatch.delenv("ARBITER_SECRET")
    unkeyed = json.loads(run_cli("workers", "--broker", redis_server.url, "--json", cwd=tmp_path).stdout)
    assert {w["proof"] for w in unkeyed["workers"]} == {"not checked (no secret)"}
    assert {w["refusals"] for w in unkeyed["workers"]} == {None}  # no store here

    # the dashboard lists the same
    store = Store(store_url, read_only=True)
    with TestClient(create_app(store, broker_url=redis_server.url, keys=FLEET)) as site:
        answer = site.get("/api/workers")
        assert answer.status_code == 200, answer.text
        api = {w["name"]: w for w in answer.json()["workers"]}
        assert api[node("w1")]["proved"] and api[node("w1")]["refusals"] == 2
        assert api[node("w2")]["proof"] == "unsealed"
        page = site.get("/workers").text
        assert "<h2>Online now</h2>" in page and "unsealed" in page
        assert page.index(node("w2")) < page.index("<h2>History</h2>")  # w2 only has a heartbeat
        assert 'href="/workers/w1%40' in page and 'href="/workers/w2%40' not in page  # no history: no page
    store.close()

    worker.kill(signal.SIGKILL)  # no clean stop: its key stays until it expires
    wait_until(
        lambda: node("w1") not in {w.beat.name for w in listed(broker).workers},
        GONE,
        "the killed worker's heartbeat to expire",
        interval=0.1,
    )
    # and a heartbeat forged in its name, now it is gone, is not taken for its own
    client.set(heartbeat_key(node("w1")), sealed(now, None), ex=60)
    [ghost] = [w for w in listed(broker).workers if w.beat.name == node("w1")]
    assert (ghost.proved, ghost.proof) == (False, "unsealed")
    broker.close()


def test_no_worker_an_unreachable_broker_and_a_dashboard_without_one(
    redis_server: RedisDatabase, tmp_path: Path
) -> None:
    empty = run_cli("workers", "--broker", redis_server.url, cwd=tmp_path)
    assert (empty.returncode, empty.stdout) == (0, f"no worker online on {redis_server.url}\n"), empty.stderr

    port = free_port()
    down = run_cli("workers", "--broker", f"redis://:hunter2-secret@127.0.0.1:{port}/0", cwd=tmp_path)
    assert down.returncode == 2 and down.stdout == ""
    [line] = down.stderr.splitlines()
    assert line.startswith(f"arbiter workers: broker redis://:***@127.0.0.1:{port}/0 is unreachable")
    assert "hunter2" not in down.stderr

    store_url = store_with_refusals(tmp_path / "store.db", node("w1"), 1)
    store = Store(store_url, read_only=True)
    with TestClient(create_app(store)) as site:
        page = site.get("/workers")
        assert page.status_code == 200 and "arbiter serve --broker URL" in page.text
        assert NO_BROKER.split(":")[0] in page.text and node("w1") in page.text  # the history is there
        missing = site.get("/api/workers")
        assert missing.status_code == 404 and "knows no broker" in missing.text
    with TestClient(create_app(store, broker_url=f"redis://:hunter2-secret@127.0.0.1:{port}/0")) as site:
        page = site.get("/workers")
        assert page.status_code == 200 and "is unreachable" in page.text and "hunter2" not in page.text
        assert site.get("/api/workers").status_code == 503
    with pytest.raises(ValueError, match="heartbeats need a Redis broker"):
        create_app(store, broker_url="amqp://guest@localhost//")
    store.close()


def test_a_playing_worker_names_its_batch(redis_server: RedisDatabase, workers: WorkerPool) -> None:
    endless = make_config(limits=engine.Limits(nodes=5_000_000), batch_pairs=8, max_games=None)
    workers.start("busy", env={HEARTBEAT_ENV: str(INTERVAL)})
    broker = Broker(redis_server.url)

    def playing() -> list[tuple[tuple[int, int], ...]]:
        return [w.beat.batches for w in listed(broker, None).workers]

    with CeleryExecutor(redis_server.url, concurrency=1) as executor:
        executor.submit(endless.batch_plan().payload(7, 3))
        wait_until(lambda: playing() == [((7, 3),)], APPEARS, "the heartbeat to name the batch", interval=0.1)
        executor.cancel()  # revoked: the worker stops playing it
    wait_until(lambda: playing() == [()], APPEARS, "the heartbeat to say the worker is idle", interval=0.1)
    broker.close()


def w9_online(redis_server: RedisDatabase, tmp_path: Path) -> str:
    """An unsealed heartbeat of w9 (3 cores) in ``redis_server``, and a store that refused one
    of its answers; the store's URL."""
    beat = Heartbeat(
        name=node("w9"),
        cores=3,
        nps=None,
        engine=engine.ENGINE_VERSION,
        host="elsewhere",
        started=time.time(),
        sent=time.time(),
        ttl=60.0,
        batches=(),
        sandbox="bubblewrap, seccomp",
        refuses_programs=False,
    )
    redis_server.client().set(heartbeat_key(beat.name), sealed(beat, None), ex=60)
    return store_with_refusals(tmp_path / "store.db", node("w9"), 1)


@contextmanager
def serving(store_url: str, broker_url: str) -> Iterator[str]:
    """``arbiter serve`` of ``store_url`` with ``$ARBITER_BROKER`` (and no secret) on a free port:
    its base URL once it says so; stopped by Ctrl-C at the end."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_SECRET")}
    env["ARBITER_BROKER"] = broker_url
    process = subprocess.Popen(
        cli_command("serve", "--store", store_url, "--port", str(port)),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        first = read_line(process.stderr, APPEARS, "arbiter serve's first line")
        assert first.endswith(f"read-only; workers online on {broker_url})\n"), first
        yield f"http://127.0.0.1:{port}"
        process.send_signal(signal.SIGINT)
        assert process.wait(APPEARS) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(APPEARS)


def test_serve_with_a_broker_lists_the_workers_online(redis_server: RedisDatabase, tmp_path: Path) -> None:
    store_url = w9_online(redis_server, tmp_path)
    bad = run_cli("serve", "--store", store_url, "--broker", "amqp://user:hunter2@host//")
    assert bad.returncode == 2 and "hunter2" not in bad.stderr
    assert bad.stderr == (
        "arbiter serve: --broker: expected a Redis URL (redis://, rediss:// or unix://), got amqp://user:***@host//\n"
    )
    with serving(store_url, redis_server.url) as base:

        def listed_there() -> list[dict[str, object]]:
            try:
                with urllib.request.urlopen(f"{base}/api/workers", timeout=5) as answer:
                    return list(json.load(answer)["workers"])
            except OSError:
                return []

        [w9] = wait_until(listed_there, APPEARS, "the dashboard to list w9")
        assert (w9["name"], w9["cores"], w9["refusals"]) == (node("w9"), 3, 1)
        assert w9["proof"] == "not checked (no secret)"


def test_the_workers_page_in_a_browser(redis_server: RedisDatabase, tmp_path: Path, chromium: Any) -> None:
    store_url = w9_online(redis_server, tmp_path)
    with serving(store_url, redis_server.url) as base:
        context = chromium.new_context()
        errors: list[str] = []
        context.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page = context.new_page()
        wait_until(lambda: page.goto(f"{base}/workers").ok, APPEARS, "the workers page", interval=0.2)
        online_now = page.locator("h2:text('Online now') + table")
        cells = online_now.locator("tbody tr").first.locator("td").all_text_contents()
        assert cells[:3] == [node("w9"), "not checked (no secret)", "3"]
        history = page.locator("h2:text('History') + table").locator("tbody tr").first
        assert history.locator("td").first.text_content() == node("w9")  # its refused answer
        assert errors == []
        context.close()


def test_reading_is_bounded(redis_server: RedisDatabase) -> None:
    client = redis_server.client()
    for i in range(5):
        client.set(heartbeat_key(f"n{i}@x"), "{}", ex=60)
    client.rpush(heartbeat_key("list@x"), "a")  # not a string
    client.set(heartbeat_key("huge@x"), "x" * (MAX_BYTES + 1), ex=60)
    broker = Broker(redis_server.url)
    raws, truncated = broker.heartbeats(limit=3)
    assert len(raws) == 3 and truncated
    raws, truncated = broker.heartbeats()
    assert not truncated and len(raws) == 7
    fleet = online(broker, None, FLEET)
    assert fleet.workers == () and len(fleet.unreadable) == 7
    reasons = dict(fleet.unreadable)
    assert "longer than" in reasons["huge@x"] and "longer than" in reasons["list@x"]
    broker.close()


def test_hostile_names_reach_no_terminal(redis_server: RedisDatabase, tmp_path: Path) -> None:
    evil = "evil\x1b[2J\x07@x"
    beat = Heartbeat(
        name=evil,
        cores=1,
        nps=None,
        engine="0.1\x1b]0;title\x07",
        host="h\r\nfake line",
        started=time.time(),
        sent=time.time(),
        ttl=60.0,
        batches=(),
        sandbox="none\x1b[31m",
        refuses_programs=True,
    )
    client = redis_server.client()
    client.set(heartbeat_key(evil), sealed(beat, None), ex=60)
    client.set(heartbeat_key("junk\x1b[2J@x"), "not json\x1b[2J", ex=60)
    shown = run_cli("workers", "--broker", redis_server.url, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout + shown.stderr and "\x07" not in shown.stdout
    assert len(shown.stdout.splitlines()) == 2 and len(shown.stderr.splitlines()) == 1
    as_json = json.loads(run_cli("workers", "--broker", redis_server.url, "--json", cwd=tmp_path).stdout)
    assert as_json["workers"][0]["name"] == evil  # JSON keeps it, escaped by JSON itself
