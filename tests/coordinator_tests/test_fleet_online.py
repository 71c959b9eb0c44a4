"""Who is online, the pure part: each heartbeat checked (proved, unsealed, a bad seal, replayed,
not checked without the secret; not a heartbeat of the worker its key names) and merged with what
the store holds against its worker; and the store's query of that standing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

import engine
from coordinator.fleet.online import (
    BAD_SEAL,
    PROVED,
    STALE,
    UNCHECKED,
    UNSEALED,
    RawHeartbeat,
    check,
    fleet_of,
    merge,
)
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store, WorkerStanding
from wire.heartbeat import MAX_BYTES, Heartbeat, sealed
from wire.sealing import FleetKeys

KEYS = FleetKeys(b"the fleet's secret")
OTHER = FleetKeys(b"another fleet's secret")
NOW = 1_700_000_100.0


def beat(name: str = "w1@host", **changes: object) -> Heartbeat:
    """A heartbeat of ``name`` sent at NOW, living 30 s."""
    base = Heartbeat(
        name=name,
        cores=2,
        nps=1_250_000.0,
        engine="0.1.0",
        host="host",
        started=NOW - 100,
        sent=NOW,
        ttl=30.0,
        batches=((4, 1),),
        sandbox="bubblewrap, seccomp",
        refuses_programs=False,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def raw(
    b: Heartbeat, key: bytes | None, node: str | None = None, remaining: float | None = 26.0
) -> RawHeartbeat:
    """``b`` as Redis would hold it, sealed under ``key``."""
    return RawHeartbeat(node or b.name, sealed(b, key).encode(), remaining)


def test_a_heartbeat_sealed_under_its_workers_key_is_proved() -> None:
    seen = check(raw(beat(), KEYS.worker_key("w1@host")), KEYS, NOW)
    assert seen.proof == PROVED and seen.beat == beat()
    assert seen.last_seen == pytest.approx(4.0)  # 30 s to live, 26 left


def test_what_is_not_proved_says_why() -> None:
    mine = KEYS.worker_key("w1@host")
    assert check(raw(beat(), None), KEYS, NOW).proof == UNSEALED
    assert check(raw(beat(), OTHER.worker_key("w1@host")), KEYS, NOW).proof == BAD_SEAL
    assert check(raw(beat(), KEYS.worker_key("w2@host")), KEYS, NOW).proof == BAD_SEAL  # another's key
    assert check(raw(beat(sent=NOW - 3600), mine), KEYS, NOW).proof == STALE  # replayed
    assert check(raw(beat(), mine), None, NOW).proof == UNCHECKED  # no secret: nothing proved
    # a sealed body changed afterwards no longer verifies
    value = orjson.loads(sealed(beat(), mine))
    value["body"] = value["body"].replace('"cores":2', '"cores":64')
    forged = check(RawHeartbeat("w1@host", orjson.dumps(value), 20.0), KEYS, NOW)
    assert forged.proof == BAD_SEAL and forged.beat.cores == 64


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "longer than"),
        (b"{not json", "not JSON"),
        (b'{"worker": "w1@host"}', "sealed answer: missing"),
        (b"[1, 2]", "expected a JSON object"),
    ],
)
def test_what_is_not_a_heartbeat_is_refused(value: bytes | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check(RawHeartbeat("w1@host", value, 10.0), KEYS, NOW)


def test_a_heartbeat_that_never_expires_is_refused() -> None:
    with pytest.raises(ValueError, match="never expires"):
        check(raw(beat(), KEYS.worker_key("w1@host"), remaining=None), KEYS, NOW)


def test_a_heartbeat_copied_under_another_name_is_refused() -> None:
    copied = raw(beat(), KEYS.worker_key("w1@host"), node="w2@host")
    with pytest.raises(ValueError, match="it names 'w1@host'"):
        check(copied, KEYS, NOW)


def test_merge_adds_the_stores_standing_by_name() -> None:
    seen = [check(raw(beat(n), KEYS.worker_key(n)), KEYS, NOW) for n in ("w2@host", "w1@host")]
    rows = merge(seen, {"w2@host": WorkerStanding(3, (5, 9))})
    assert [r.beat.name for r in rows] == ["w1@host", "w2@host"]
    assert (rows[0].refusals, rows[0].quarantined) == (0, ())
    assert (rows[1].refusals, rows[1].quarantined) == (3, (5, 9))
    assert rows[1].proved and rows[1].speed_factor == pytest.approx(0.5)
    assert rows[1].to_json()["batches"] == [{"run": 4, "batch": 1}]
    assert [r.refusals for r in merge(seen, None)] == [None, None]


def test_the_fleet_keeps_what_did_not_read_apart() -> None:
    fleet = fleet_of(
        [raw(beat(), None), RawHeartbeat("junk@x", b"x" * 10, 5.0), RawHeartbeat("big@x", None, 5.0)],
        KEYS,
        NOW,
        None,
    )
    assert [w.beat.name for w in fleet.workers] == ["w1@host"] and not fleet.workers[0].proved
    assert [node for node, _ in fleet.unreadable] == ["big@x", "junk@x"]
    assert str(MAX_BYTES) in fleet.unreadable[0][1]
    assert fleet.cores == 2 and fleet.playing() == {4: 1}


def test_the_fleet_adds_up_cores_and_batches_per_run() -> None:
    beats = [
        beat("a@x", cores=8, batches=((1, 0), (2, 5))),
        beat("b@x", cores=4, batches=((1, 1),)),
        beat("c@x"),
    ]
    fleet = fleet_of([raw(b, None) for b in beats], None, NOW, None)
    assert fleet.cores == 14 and fleet.playing() == {1: 2, 2: 1, 4: 1}
    assert fleet.to_json()["playing"] == {"1": 2, "2": 1, "4": 1}


def test_the_store_says_each_workers_refusals_and_quarantines(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'fleet.db'}")
    config = SprtConfig(
        game="congo",
        candidate=engine.validate_weights("congo", None),
        baseline=engine.validate_weights("congo", None),
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
    )
    run_id = store.create_run(RunKind.SPRT, "congo", config.to_json(), config.fingerprint())
    store.start_batch(run_id, 0, "0" * 64, 0)
    store.refuse_batch(run_id, 0, "bad seal", worker="w1@host")
    store.refuse_batch(run_id, 0, "bad seal", worker="w1@host")
    store.refuse_batch(run_id, 0, "late", worker="w3@host")
    store.quarantine_worker(run_id, "w1@host", "caught")
    standing = store.standing(["w1@host", "w2@host"])
    assert standing == {"w1@host": WorkerStanding(2, (run_id,)), "w2@host": WorkerStanding(0, ())}
    store.close()
