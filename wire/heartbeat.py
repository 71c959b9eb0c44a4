"""Heartbeats as they sit on the broker: each worker says, every few seconds, that it is online
and what it is doing.

A worker's main process publishes one Redis key on its broker, ``arbiter:heartbeat:NODE``, every
:func:`heartbeat_seconds` (``$ARBITER_HEARTBEAT_SECONDS``, default 10), with a time to live of
:data:`TTL_INTERVALS` intervals: a worker that stops, however it stops, is gone once its key
expires (a clean stop deletes the key at once). The value is the worker's :class:`Heartbeat`
(name, pool size, bench speed, engine version, host, the batches it plays now, how it runs engine
programs), sealed under the worker's own key the way its answers are (:func:`wire.sealing.seal`,
task id :data:`SEAL_TASK`), so that a reader holding the fleet's secret can tell a worker's own
heartbeat from one anybody with access to Redis wrote in its name. Without a key it is sent
unsealed: a claim.

``worker.heartbeat`` publishes them; ``coordinator.fleet`` reads the keys.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from wire.fields import check_float, check_int, check_list, check_object, check_str
from wire.sealing import MAX_REASON_TEXT, seal

#: Seconds between two heartbeats (any positive number; tests use a fraction of the default).
HEARTBEAT_ENV = "ARBITER_HEARTBEAT_SECONDS"
DEFAULT_SECONDS = 10.0
#: Shortest and longest interval accepted.
SECONDS_RANGE = (0.1, 3600.0)
#: A heartbeat's key lives this many intervals: one or two lost publishes do not hide a worker.
TTL_INTERVALS = 3
#: Every heartbeat key starts so; the rest is the worker's node name.
KEY_PREFIX = "arbiter:heartbeat:"
#: What a heartbeat is sealed as, in place of a task id: a heartbeat can never pass for an answer.
SEAL_TASK = "arbiter-heartbeat"
#: The longest heartbeat value read (a real one is a few hundred bytes).
MAX_BYTES = 16_384
#: Batches listed in one heartbeat (a worker plays one per process).
MAX_BATCHES = 256


def heartbeat_seconds(environ: Mapping[str, str] | None = None) -> float:
    """``$ARBITER_HEARTBEAT_SECONDS`` (a positive number of seconds), or 10; ValueError else."""
    text = (os.environ if environ is None else environ).get(HEARTBEAT_ENV, "").strip()
    if not text:
        return DEFAULT_SECONDS
    low, high = SECONDS_RANGE
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not low <= value <= high:
        raise ValueError(
            f"{HEARTBEAT_ENV}: expected a number of seconds from {low:g} to {high:g}, got {text!r}"
        )
    return value


def heartbeat_key(node: str) -> str:
    """The Redis key of worker ``node``'s heartbeat."""
    return KEY_PREFIX + node


@dataclass(frozen=True)
class Heartbeat:
    """What a worker says of itself: its node name, pool size (``cores``), bench speed (nodes per
    second of one core, :func:`worker.speed.bench_nps`; None until measured), engine version,
    host, when it started and sent this (seconds since the epoch, its clock), how long the key
    lives (``ttl``, seconds), the batches it plays now (run id, batch index), how it runs engine
    programs (``sandbox``), and whether it refuses batches that name one."""

    name: str
    cores: int
    nps: float | None
    engine: str
    host: str
    started: float
    sent: float
    ttl: float
    batches: tuple[tuple[int, int], ...]
    sandbox: str
    refuses_programs: bool

    def to_json(self) -> dict[str, Any]:
        """The heartbeat as JSON: every field, each batch a list."""
        return asdict(self) | {"batches": [list(b) for b in self.batches]}

    @classmethod
    def from_json(cls, data: Any) -> Heartbeat:
        """A heartbeat read back; ValueError naming the first field that is wrong."""
        d = check_object(data, "heartbeat", FIELDS)
        batches = check_list(d["batches"], "heartbeat: batches")
        if len(batches) > MAX_BATCHES:
            raise ValueError(f"heartbeat: batches: more than {MAX_BATCHES}")
        pairs = []
        for item in batches:
            pair = check_list(item, "heartbeat: batch")
            if len(pair) != 2:
                raise ValueError("heartbeat: batch: expected [run id, batch index]")
            pairs.append(
                (check_int(pair[0], "heartbeat: run id"), check_int(pair[1], "heartbeat: batch index"))
            )
        if not isinstance(d["refuses_programs"], bool):
            raise ValueError("heartbeat: refuses_programs: expected true or false")
        return cls(
            name=check_str(d["name"], "heartbeat: name", max_length=300),
            cores=check_int(d["cores"], "heartbeat: cores", low=1, high=1_000_000),
            nps=None if d["nps"] is None else check_float(d["nps"], "heartbeat: nps"),
            engine=check_str(d["engine"], "heartbeat: engine", max_length=200),
            host=check_str(d["host"], "heartbeat: host", max_length=300),
            started=check_float(d["started"], "heartbeat: started", high=1e11),
            sent=check_float(d["sent"], "heartbeat: sent", high=1e11),
            ttl=check_float(d["ttl"], "heartbeat: ttl", low=0.1, high=1e6),
            batches=tuple(pairs),
            sandbox=check_str(d["sandbox"], "heartbeat: sandbox", max_length=MAX_REASON_TEXT),
            refuses_programs=d["refuses_programs"],
        )


FIELDS = ("name", "cores", "nps", "engine", "host", "started", "sent", "ttl", "batches", "sandbox",
          "refuses_programs")  # fmt: skip


def sealed(beat: Heartbeat, key: bytes | None) -> str:
    """The value of ``beat``'s key: the heartbeat sealed under the worker's ``key`` (unsealed
    without one), as JSON text."""
    return orjson.dumps(seal(beat.to_json(), SEAL_TASK, beat.name, "", key)).decode()


def redis_client(url: str) -> Any:
    """A redis-py client of a Redis broker URL (``redis://``, ``rediss://``, ``unix://``) with short
    timeouts; ValueError for another broker."""
    import redis

    from wire.celeryconfig import CONNECT_TIMEOUT, REDIS_URL, is_redis_url

    if not is_redis_url(url):
        raise ValueError(f"heartbeats need a Redis broker, {REDIS_URL}, not {url.partition('://')[0]}://")
    return redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=CONNECT_TIMEOUT)
