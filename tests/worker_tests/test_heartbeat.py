"""A worker's heartbeat: its interval from the environment, its JSON both ways (what does not
read is refused naming the field), the batches read off the active tasks, and a publisher whose
broker fails: logged once, retried, never raised."""

from __future__ import annotations

import logging
import threading
from typing import Any

import orjson
import pytest

from wire.heartbeat import HEARTBEAT_ENV, Heartbeat, heartbeat_key, heartbeat_seconds, sealed
from worker.heartbeat import Publisher, batches_of

BEAT = Heartbeat(
    name="w1@host",
    cores=4,
    nps=2_000_000.0,
    engine="0.1.0",
    host="host",
    started=1_700_000_000.0,
    sent=1_700_000_100.0,
    ttl=30.0,
    batches=((3, 7), (3, 8)),
    sandbox="bubblewrap, seccomp",
    refuses_programs=False,
)


def test_interval_from_the_environment() -> None:
    assert heartbeat_seconds({}) == 10.0
    assert heartbeat_seconds({HEARTBEAT_ENV: " 0.5 "}) == 0.5
    for bad in ("0", "-1", "x", "1e9", "nan"):
        with pytest.raises(ValueError, match=f"{HEARTBEAT_ENV}: expected a number of seconds"):
            heartbeat_seconds({HEARTBEAT_ENV: bad})


def test_a_heartbeat_reads_back_as_sent() -> None:
    assert Heartbeat.from_json(orjson.loads(orjson.dumps(BEAT.to_json()))) == BEAT
    value = orjson.loads(sealed(BEAT, None))
    assert value["worker"] == "w1@host" and value["mac"] is None
    assert heartbeat_key("w1@host") == "arbiter:heartbeat:w1@host"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cores": 0}, "heartbeat: cores: expected an integer from 1"),
        ({"cores": True}, "heartbeat: cores: expected an integer"),
        ({"batches": [[1]]}, "expected \\[run id, batch index\\]"),
        ({"batches": [[1, -1]]}, "heartbeat: batch index"),
        ({"refuses_programs": "no"}, "refuses_programs: expected true or false"),
        ({"name": "x" * 301}, "heartbeat: name: longer than 300"),
        ({"extra": 1}, "unknown field"),
        ({"ttl": 0}, "heartbeat: ttl"),
    ],
)
def test_what_does_not_read_is_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Heartbeat.from_json({**BEAT.to_json(), **change})


def test_batches_read_off_the_active_tasks() -> None:
    payload = '{"run_id": 12, "batch_index": 3, "game": "congo"}'
    found = batches_of(
        [{"payload": payload}, {"payload": '{"run_id":2,"batch_index":9}'}, {"x": 1}, None, "a"]
    )
    assert found == ((2, 9), (12, 3))


class FailingClient:
    """A broker that never answers (and counts the writes tried)."""

    def __init__(self) -> None:
        self.tries = 0
        self.tried = threading.Event()

    def set(self, *_: Any, **__: Any) -> None:
        self.tries += 1
        if self.tries >= 3:
            self.tried.set()
        raise ConnectionError("down: AUTH hunter2 refused")

    def delete(self, *_: Any) -> None:
        raise ConnectionError("down")


def test_a_failing_broker_is_logged_once_masked_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    client = FailingClient()
    publisher = Publisher(client, "w1@host", lambda: BEAT, None, 0.01, "redis://:hunter2@h/0")
    with caplog.at_level(logging.INFO, logger="worker.heartbeat"):
        publisher.start()
        assert client.tried.wait(10), "the publisher stopped trying"
        publisher.stop()
    failures = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failures == ["heartbeat to redis://:***@h/0 failed (retried every 0.01s): down: AUTH *** refused"]
    assert client.tries >= 3
