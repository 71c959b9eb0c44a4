"""Who is online, from the heartbeats read off the broker: each heartbeat checked (is it a
heartbeat, does its seal prove the worker it names sent it) and merged with what the store holds
against that worker (refused answers, quarantines). Pure: the Redis and store reads are in
:mod:`coordinator.fleet.read`.

A heartbeat is a worker's claim about itself. With the fleet's secret a reader can prove who sent
one (:data:`PROVED`); anything else is shown marked: sent without a seal (:data:`UNSEALED`), under
a seal that does not verify (:data:`BAD_SEAL`: a forgery, or a worker of another fleet), proved but
sent long ago (:data:`STALE`: replayed, or a clock far off), or not checked because the reader
holds no secret (:data:`UNCHECKED`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from coordinator.store.rows import WorkerStanding
from wire.heartbeat import MAX_BYTES, SEAL_TASK, Heartbeat
from wire.sealing import FleetKeys, unseal
from wire.speed import REFERENCE_NPS

PROVED = "proved"
UNSEALED = "unsealed"
BAD_SEAL = "bad seal"
STALE = "stale"
UNCHECKED = "not checked (no secret)"
#: Seconds a proved heartbeat's own send time may be off the reader's clock beyond its time to live.
CLOCK_SLACK = 120.0


@dataclass(frozen=True)
class RawHeartbeat:
    """One heartbeat key as Redis holds it: the worker it is named for, its value (None when it is
    longer than :data:`wire.heartbeat.MAX_BYTES` or not a string), and the seconds its time to
    live still has (None: it has none, so no worker wrote it)."""

    node: str
    value: bytes | None
    remaining: float | None


@dataclass(frozen=True)
class Seen:
    """A heartbeat that reads, how far its seal proves it, and how long ago it was written."""

    beat: Heartbeat
    proof: str
    last_seen: float


@dataclass(frozen=True)
class OnlineWorker:
    """One live worker: what its heartbeat says (``beat``: name, pool size, bench speed, engine,
    host, start, the batches it plays, how it runs programs), how long ago it was heard, whether
    its heartbeat is proved to be its own, and what the store holds against it (``refusals`` None
    when no store was read)."""

    beat: Heartbeat
    last_seen: float
    proof: str
    refusals: int | None
    quarantined: tuple[int, ...]

    @property
    def proved(self) -> bool:
        """True when its seal proves the worker it names sent the heartbeat."""
        return self.proof == PROVED

    @property
    def speed_factor(self) -> float | None:
        """Its bench speed against the reference machine's (2.0: twice as fast), or None."""
        nps = self.beat.nps
        return None if nps is None else nps / REFERENCE_NPS

    def to_json(self) -> dict[str, Any]:
        """The row as JSON (``arbiter workers --json``, ``/api/workers``)."""
        b = self.beat
        return {
            "name": b.name,
            "proved": self.proved,
            "proof": self.proof,
            "cores": b.cores,
            "speed_factor": None if self.speed_factor is None else round(self.speed_factor, 3),
            "nps": None if b.nps is None else round(b.nps),
            "engine": b.engine,
            "host": b.host,
            "started": b.started,
            "batches": [{"run": run, "batch": batch} for run, batch in b.batches],
            "last_seen": round(self.last_seen, 1),
            "sandbox": b.sandbox,
            "refuses_programs": b.refuses_programs,
            "refusals": self.refusals,
            "quarantined": list(self.quarantined),
        }


@dataclass(frozen=True)
class Fleet:
    """The live workers, by name; the heartbeat keys that did not read (node: why); and whether
    there were more keys than were read."""

    workers: tuple[OnlineWorker, ...]
    unreadable: tuple[tuple[str, str], ...] = ()
    truncated: bool = False

    @property
    def cores(self) -> int:
        """Batches the listed workers say they play at once, in all."""
        return sum(w.beat.cores for w in self.workers)

    def playing(self) -> dict[int, int]:
        """Batches being played now, by run id (as the workers say: for display, never counting)."""
        counts: dict[int, int] = {}
        for w in self.workers:
            for run, _ in w.beat.batches:
                counts[run] = counts.get(run, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The fleet as JSON."""
        return {
            "cores": self.cores,
            "playing": {str(run): n for run, n in sorted(self.playing().items())},
            "workers": [w.to_json() for w in self.workers],
            "unreadable": [{"key": node, "reason": why} for node, why in self.unreadable],
            "truncated": self.truncated,
        }


def check(raw: RawHeartbeat, keys: FleetKeys | None, now: float) -> Seen:
    """``raw`` read and its seal checked under ``keys`` (the fleet's, or None) at time ``now``
    (seconds since the epoch); ValueError when it is not a heartbeat of the worker its key names."""
    if raw.value is None:
        raise ValueError(f"not a heartbeat (longer than {MAX_BYTES} bytes, or not text)")
    if raw.remaining is None:
        raise ValueError("it never expires: a worker's heartbeat always does")
    try:
        value = orjson.loads(raw.value)
    except orjson.JSONDecodeError:
        raise ValueError("not JSON") from None
    claim = unseal(value, SEAL_TASK, None)  # the body, as a claim; checks the sealed shape
    beat = Heartbeat.from_json(claim.body)
    if not beat.name == claim.worker == raw.node:
        raise ValueError(f"it names {beat.name!r}, sealed as {claim.worker!r}")
    proof = UNCHECKED
    if keys is not None:
        try:
            unseal(value, SEAL_TASK, keys)
            proof = PROVED
        except ValueError:
            proof = UNSEALED if value.get("mac") is None else BAD_SEAL
        if proof == PROVED and abs(now - beat.sent) > beat.ttl + CLOCK_SLACK:
            proof = STALE
    return Seen(beat, proof, max(0.0, beat.ttl - raw.remaining))


def merge(seen: Sequence[Seen], standing: Mapping[str, WorkerStanding] | None) -> tuple[OnlineWorker, ...]:
    """The rows of the live workers, by name: each heartbeat with what the store holds against
    its worker (``standing``; None when no store was read)."""
    rows = []
    for s in sorted(seen, key=lambda s: s.beat.name):
        held = None if standing is None else standing.get(s.beat.name, WorkerStanding(0, ()))
        refusals, quarantined = (None, ()) if held is None else (held.refusals, held.quarantined)
        rows.append(OnlineWorker(s.beat, s.last_seen, s.proof, refusals, quarantined))
    return tuple(rows)


def fleet_of(
    raws: Sequence[RawHeartbeat],
    keys: FleetKeys | None,
    now: float,
    standing: Mapping[str, WorkerStanding] | None,
    truncated: bool = False,
) -> Fleet:
    """The fleet the heartbeat keys ``raws`` show (see :func:`check` and :func:`merge`)."""
    seen, unreadable = [], []
    for raw in raws:
        try:
            seen.append(check(raw, keys, now))
        except ValueError as e:
            unreadable.append((raw.node, " ".join(str(e).split())[:300]))
    return Fleet(merge(seen, standing), tuple(sorted(unreadable)), truncated)


def age_text(seconds: float) -> str:
    """``4 s``, ``3 min``, ``2 h``: how long ago, for a table."""
    if not math.isfinite(seconds) or seconds < 0:
        return "?"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"
