"""The wire format between a coordinator and its workers: the one definition of a batch.

A :class:`BatchPayload` is what a coordinator sends (a slice of openings of one run, with the
weights, limits and seed that decide its games); a :class:`BatchResult` is what a worker sends back
(a record of every game, plus the counts the worker claims). Both cross the broker as plain JSON
objects through ``to_json`` / ``from_json``. ``from_json`` checks every field's type and shape and
raises a ValueError naming the first bad one, so nothing a worker or a broker client sends can
reach the store, or crash the coordinator, unchecked.

Whether a well-formed result is *true* (the moves legal, the results earned, the games those the
payload asks for) is decided by the coordinator, which replays every record; see
``coordinator/trust``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

import orjson

import engine

#: The Celery task name coordinators send batches to.
TASK_NAME = "arbiter.play_batch"

RESULTS = ("1-0", "0-1", "1/2-1/2")

#: The longest worker name stored (a ``host:pid`` or a Celery node name).
MAX_WORKER_NAME = 255
#: Above this a count or index is not one any run could make (and would overflow the store).
MAX_INT = 2**63 - 1
#: The longest moves string of one record (far beyond any ply limit a run allows).
MAX_MOVES_TEXT = 1_000_000
#: The longest reason of a worker's refusal kept.
MAX_REASON_TEXT = 300
#: The longest opening (a position string) and end reason a record may state.
MAX_OPENING = 256
MAX_REASON = 32
#: The fields of a game record.
RECORD_FIELDS = ("opening", "moves", "result", "reason", "candidate_color")

Weights = dict[str, int]


class Color(StrEnum):
    """The colour the candidate plays in a game."""

    WHITE = "white"
    BLACK = "black"


#: The candidate plays white in the first game of a pair, black in the second.
PAIR_COLORS = (Color.WHITE, Color.BLACK)
_COLORS = {str(c): c for c in Color}
_RESULT_SET = frozenset(RESULTS)
_RECORD_KEYS = frozenset(RECORD_FIELDS)


# field checks ---------------------------------------------------------------------------------


def check_int(value: Any, name: str, *, low: int = 0, high: int = MAX_INT) -> int:
    """``value`` as an int in ``[low, high]`` (bools are not ints here)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name}: expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected an integer from {low} to {high}, got {value}")
    return value


def check_float(value: Any, name: str, *, low: float = 0.0, high: float = 1e12) -> float:
    """``value`` as a finite float in ``[low, high]`` (an int is accepted)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"{name}: expected a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{name}: expected a number from {low:g} to {high:g}, got {value!r}")
    return number


def check_str(value: Any, name: str, *, max_length: int = 4096) -> str:
    """``value`` as a str of at most ``max_length`` characters."""
    if type(value) is str and len(value) <= max_length:
        return value
    if not isinstance(value, str):
        raise ValueError(f"{name}: expected a string, got {type(value).__name__}")
    if len(value) > max_length:
        raise ValueError(f"{name}: longer than {max_length} characters")
    return value


def check_list(value: Any, name: str) -> list[Any]:
    """``value`` as a list."""
    if not isinstance(value, list):
        raise ValueError(f"{name}: expected a list, got {type(value).__name__}")
    return value


def check_object(
    value: Any, name: str, required: Sequence[str], optional: Sequence[str] = ()
) -> dict[str, Any]:
    """``value`` as a dict with string keys, every ``required`` key and no unknown one."""
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a JSON object, got {type(value).__name__}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ValueError(f"{name}: missing {', '.join(missing)}")
    known = set(required) | set(optional)
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        raise ValueError(f"{name}: unknown field(s) {', '.join(unknown)}")
    return value


def check_counts(value: Any, length: int, name: str) -> list[int]:
    """``value`` as a list of ``length`` non-negative integer counts."""
    counts = check_list(value, name)
    if len(counts) != length:
        raise ValueError(f"{name}: expected a list of {length} counts, got {value!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_INT for v in counts):
        raise ValueError(f"{name}: expected non-negative integer counts, got {value!r}")
    return list(counts)


def check_weights(value: Any, name: str) -> Weights | None:
    """A weights mapping ``{"name": int}`` or None (the engine's defaults)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected a JSON object of weights, got {type(value).__name__}")
    out: Weights = {}
    for key, number in value.items():
        check_str(key, f"{name} name", max_length=64)
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        out[key] = check_int(number, f"{name}.{key}", low=-(2**31), high=2**31 - 1)
    return out


# payload -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchPayload:
    """One batch of a run: play each opening twice, colours reversed, candidate white first."""

    run_id: int
    batch_index: int
    game: str
    candidate: Weights | None
    baseline: Weights | None
    openings: list[str]
    limits: engine.Limits
    adjudication: engine.Adjudication
    seed: int
    engine_version: str

    @property
    def pairs(self) -> int:
        """Game pairs in the batch."""
        return len(self.openings)

    def to_json(self) -> dict[str, Any]:
        """The payload as the JSON object sent to a worker."""
        return {
            "run_id": self.run_id,
            "batch_index": self.batch_index,
            "game": self.game,
            "candidate": None if self.candidate is None else dict(self.candidate),
            "baseline": None if self.baseline is None else dict(self.baseline),
            "openings": list(self.openings),
            "limits": self.limits.to_json(),
            "adjudication": self.adjudication.to_json(),
            "seed": self.seed,
            "engine_version": self.engine_version,
        }

    @classmethod
    def from_json(cls, data: Any) -> BatchPayload:
        """A payload from its JSON object; ValueError naming the first missing or bad field."""
        fields = [f for f in cls.__dataclass_fields__]
        d = check_object(data, "batch payload", fields)
        openings = check_list(d["openings"], "batch payload: openings")
        if not openings:
            raise ValueError("batch payload: openings must be a non-empty list of position strings")
        for i, opening in enumerate(openings):
            check_str(opening, f"batch payload: openings[{i}]", max_length=256)
        return cls(
            run_id=check_int(d["run_id"], "batch payload: run_id"),
            batch_index=check_int(d["batch_index"], "batch payload: batch_index"),
            game=check_str(d["game"], "batch payload: game", max_length=32),
            candidate=check_weights(d["candidate"], "batch payload: candidate"),
            baseline=check_weights(d["baseline"], "batch payload: baseline"),
            openings=list(openings),
            limits=engine.Limits.from_json(d["limits"], "batch payload: limits"),
            adjudication=engine.Adjudication.from_json(d["adjudication"], "batch payload: adjudication"),
            seed=check_int(d["seed"], "batch payload: seed"),
            engine_version=check_str(d["engine_version"], "batch payload: engine_version", max_length=128),
        )


# result --------------------------------------------------------------------------------------


def ply_count(moves: str) -> int:
    """Plies in a record's moves (one string, the moves separated by single spaces)."""
    return moves.count(" ") + 1 if moves else 0


def move_list(moves: str) -> list[str]:
    """A record's moves one by one."""
    return moves.split(" ") if moves else []


def _spaced_badly(moves: str) -> bool:
    """True unless the moves are separated by single spaces, with none around them."""
    return moves[0] == " " or moves[-1] == " " or "  " in moves


def check_moves(value: Any, name: str) -> str:
    """A record's moves: one string of moves separated by single spaces (none: the empty string).
    Whether each is a move at all, and legal, is for the replay to say."""
    moves = check_str(value, name, max_length=MAX_MOVES_TEXT)
    if moves and _spaced_badly(moves):
        raise ValueError(f"{name}: expected moves separated by single spaces")
    return moves


class GameRecord(NamedTuple):
    """One game as a worker played it: the opening, the moves, and how the worker says it ended.

    ``moves`` is one string, the moves in the rules' compact notation separated by single spaces
    (``"d2d3 e6e5 b1d3f5"``): one JSON string per game instead of one per move keeps a result cheap
    to decode and check, and the rules core replays it as it is. (A named tuple: a coordinator
    makes tens of thousands of records a second.)
    """

    opening: str
    moves: str
    result: str
    reason: str
    candidate_color: Color

    @property
    def plies(self) -> int:
        """Plies played."""
        return ply_count(self.moves)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (also the form the store keeps): plain strings only."""
        return {
            "opening": self.opening,
            "moves": self.moves,
            "result": self.result,
            "reason": self.reason,
            "candidate_color": str(self.candidate_color),
        }

    @classmethod
    def from_json(cls, data: Any, name: str = "game") -> GameRecord:
        """A record from its JSON object; ValueError naming the first bad field. (Tens of
        thousands are checked per second: the common case takes a short path.)"""
        if type(data) is not dict or data.keys() != _RECORD_KEYS:
            check_object(data, name, RECORD_FIELDS)  # raises, naming what is missing or unknown
        result = data["result"]
        if result not in _RESULT_SET:
            raise ValueError(f"{name}: result {result!r} is not one of {', '.join(RESULTS)}")
        color = _COLORS.get(data["candidate_color"]) if isinstance(data["candidate_color"], str) else None
        if color is None:
            raise ValueError(f"{name}: candidate_color {data['candidate_color']!r} is not 'white' or 'black'")
        opening, moves, reason = data["opening"], data["moves"], data["reason"]
        if not (type(opening) is str and len(opening) <= MAX_OPENING):
            check_str(opening, f"{name}: opening", max_length=MAX_OPENING)
        if not (type(reason) is str and len(reason) <= MAX_REASON):
            check_str(reason, f"{name}: reason", max_length=MAX_REASON)
        if type(moves) is not str or len(moves) > MAX_MOVES_TEXT or (moves and _spaced_badly(moves)):
            check_moves(moves, f"{name}: moves")
        return cls(opening, moves, result, reason, color)


def records_from_json(games: list[Any]) -> list[GameRecord]:
    """:meth:`GameRecord.from_json` of every record of a result, ``games[i]`` naming a bad one:
    the checks of the common case inlined in one loop, for the coordinator's rate of tens of
    thousands of records a second (anything unusual takes the full check, for its message)."""
    records: list[GameRecord] = []
    keys, results, colors, make = _RECORD_KEYS, _RESULT_SET, _COLORS, GameRecord
    for i, data in enumerate(games):
        if type(data) is dict and data.keys() == keys:
            opening, moves, result, reason = data["opening"], data["moves"], data["result"], data["reason"]
            color = data["candidate_color"]
            if (
                result in results
                and type(color) is str
                and color in colors
                and type(opening) is str
                and len(opening) <= MAX_OPENING
                and type(reason) is str
                and len(reason) <= MAX_REASON
                and type(moves) is str
                and len(moves) <= MAX_MOVES_TEXT
                and not (moves and (moves[0] == " " or moves[-1] == " " or "  " in moves))
            ):
                records.append(make(opening, moves, result, reason, colors[color]))
                continue
        records.append(GameRecord.from_json(data, f"games[{i}]"))
    return records


RESULT_FIELDS = (
    "run_id",
    "batch_index",
    "engine_version",
    "pentanomial",
    "wdl",
    "games",
)
RESULT_OPTIONAL = ("nodes", "cpu_seconds", "worker")


@dataclass(frozen=True)
class BatchResult:
    """What a worker returns for one batch. The counts are the worker's claim; the coordinator
    derives its own from the replayed ``games`` and counts only those."""

    run_id: int
    batch_index: int
    engine_version: str
    pentanomial: list[int]
    wdl: list[int]
    games: list[GameRecord]
    nodes: dict[str, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0
    worker: str | None = None

    @property
    def game_count(self) -> int:
        """Games in the batch."""
        return len(self.games)

    def to_json(self) -> dict[str, Any]:
        """The result as the JSON object a worker sends."""
        return {
            "run_id": self.run_id,
            "batch_index": self.batch_index,
            "engine_version": self.engine_version,
            "pentanomial": list(self.pentanomial),
            "wdl": list(self.wdl),
            "games": [g.to_json() for g in self.games],
            "nodes": dict(self.nodes),
            "cpu_seconds": self.cpu_seconds,
            "worker": self.worker,
        }

    @classmethod
    def from_json(cls, data: Any) -> BatchResult:
        """A result from its JSON object, every field type-checked; ValueError naming the first bad
        one (``result: ...``)."""
        d = check_object(data, "result", RESULT_FIELDS, RESULT_OPTIONAL)
        games = check_list(d["games"], "games")
        nodes = check_object(d.get("nodes", {}), "nodes", (), ("candidate", "baseline"))
        worker = d.get("worker")
        return cls(
            run_id=check_int(d["run_id"], "run_id"),
            batch_index=check_int(d["batch_index"], "batch_index"),
            engine_version=check_str(d["engine_version"], "engine_version", max_length=128),
            pentanomial=check_counts(d["pentanomial"], 5, "pentanomial"),
            wdl=check_counts(d["wdl"], 3, "wdl"),
            games=records_from_json(games),
            nodes={k: check_int(v, f"nodes.{k}") for k, v in nodes.items()},
            cpu_seconds=check_float(d.get("cpu_seconds", 0.0), "cpu_seconds"),
            worker=None if worker is None else check_str(worker, "worker", max_length=MAX_WORKER_NAME),
        )


# sealing -------------------------------------------------------------------------------------

#: The fleet's shared secret (any text; set on the coordinator and on every worker, never printed).
SECRET_ENV = "ARBITER_SECRET"
#: The longest sealed body (a batch of the largest size, with long games, fits many times over).
MAX_SEALED_BODY = 200_000_000


def fleet_secret(environ: Mapping[str, str] | None = None) -> bytes | None:
    """``$ARBITER_SECRET`` as the key that seals results, or None when it is not set."""
    text = (os.environ if environ is None else environ).get(SECRET_ENV, "")
    return text.encode() if text else None


def seal(body: Mapping[str, Any], task_id: str, secret: bytes | None) -> dict[str, Any]:
    """What a Celery worker returns for task ``task_id``: its answer (a result, or the reason it
    refused the batch) as one JSON text, and an HMAC-SHA256 of the task id and that text under the
    fleet's secret (None without one). Whoever can write to the result backend but has no secret
    cannot make a sealed answer, nor move one to another task."""
    text = orjson.dumps(body).decode()
    mac = hmac.new(secret, f"{task_id}\n{text}".encode(), hashlib.sha256).hexdigest() if secret else None
    return {"body": text, "mac": mac}


def unseal(value: Any, task_id: str, secret: bytes | None) -> Any:
    """The answer inside a sealed value of task ``task_id``; with a secret, ValueError unless it was
    sealed with that secret for that task. (Without one nothing can be proved: the body is taken.)"""
    d = check_object(value, "sealed result", ("body", "mac"))
    text = check_str(d["body"], "sealed result: body", max_length=MAX_SEALED_BODY)
    if secret is not None:
        expected = hmac.new(secret, f"{task_id}\n{text}".encode(), hashlib.sha256).hexdigest()
        if not isinstance(d["mac"], str) or not hmac.compare_digest(d["mac"], expected):
            raise ValueError(f"sealed result: not sealed with this fleet's {SECRET_ENV} for this task")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ValueError("sealed result: the body is not JSON") from None


def refusal(reason: str, worker: str | None) -> dict[str, Any]:
    """A worker's answer for a batch it will not play (another engine version, a bad payload)."""
    return {"refused": " ".join(reason.split())[:MAX_REASON_TEXT], "worker": worker}


def refusal_reason(body: Any) -> str | None:
    """The reason of a refusal answer (see :func:`refusal`), or None for any other answer."""
    if isinstance(body, dict) and "refused" in body:
        return str(body["refused"])[:MAX_REASON_TEXT]
    return None


# counting ------------------------------------------------------------------------------------


def candidate_score(result: str, candidate_color: str) -> float:
    """The candidate's score (1, 0.5 or 0) in a game with ``result`` where it played ``candidate_color``."""
    return _SCORES[result, candidate_color]


#: The candidate's score by (result, candidate colour: a member and its text are the same key), and
#: the W/D/L slot of each score.
_SCORES: dict[tuple[str, str], float] = {
    (result, color): 0.5 if result == "1/2-1/2" else float((result == "1-0") == (color is Color.WHITE))
    for result in RESULTS
    for color in Color
}
_SLOT = {1.0: 0, 0.5: 1, 0.0: 2}


def tally(records: Sequence[Mapping[str, Any] | GameRecord]) -> tuple[list[int], list[int]]:
    """Pentanomial ``[LL, LD, DD+WL, WD, WW]`` and ``[W, D, L]`` of records taken two by two as pairs."""
    pentanomial = [0] * 5
    wdl = [0, 0, 0]
    scores = [
        _SCORES[r.result, r.candidate_color]
        if isinstance(r, GameRecord)
        else _SCORES[r["result"], r["candidate_color"]]
        for r in records
    ]
    for score in scores:
        wdl[_SLOT[score]] += 1
    for first, second in zip(scores[0::2], scores[1::2], strict=True):
        pentanomial[round(2 * (first + second))] += 1
    return pentanomial, wdl


def check_matches_payload(result: BatchResult, payload: BatchPayload) -> tuple[list[int], list[int]]:
    """ValueError unless ``result`` answers ``payload``: same run, batch and engine, one record per
    game in pair order (candidate white then black) from the openings sent, and claimed counts
    that agree with the records; the counts (pentanomial, W/D/L) tallied from the records."""
    if result.run_id != payload.run_id:
        raise ValueError(f"run_id: result is for run {result.run_id!r}, expected {payload.run_id!r}")
    if result.batch_index != payload.batch_index:
        raise ValueError(
            f"batch_index: result is for batch {result.batch_index!r}, expected {payload.batch_index}"
        )
    if result.engine_version != payload.engine_version:
        raise ValueError(
            f"engine_version: result was played by {result.engine_version!r}, "
            f"expected {payload.engine_version!r}"
        )
    pairs = payload.pairs
    if sum(result.pentanomial) != pairs:
        raise ValueError(f"pentanomial: counts add up to {sum(result.pentanomial)}, expected {pairs}")
    if sum(result.wdl) != 2 * pairs:
        raise ValueError(f"wdl: counts add up to {sum(result.wdl)}, expected {2 * pairs}")
    if len(result.games) != 2 * pairs:
        raise ValueError(f"games: expected {2 * pairs} game records, got {len(result.games)}")
    games = result.games
    whites, blacks = games[0::2], games[1::2]
    in_order = all(g.candidate_color is Color.WHITE for g in whites) and all(
        g.candidate_color is Color.BLACK for g in blacks
    )
    sent = payload.openings
    if not (in_order and [g.opening for g in whites] == sent and [g.opening for g in blacks] == sent):
        for i, record in enumerate(games):  # the whole-batch test failed: name the first culprit
            if record.candidate_color != PAIR_COLORS[i % 2]:
                raise ValueError(f"games[{i}]: candidate_color should be {str(PAIR_COLORS[i % 2])!r}")
            if record.opening != sent[i // 2]:
                raise ValueError(f"games[{i}]: opening differs from the one sent for pair {i // 2}")
    counted_pentanomial, counted_wdl = tally(result.games)
    if counted_pentanomial != result.pentanomial:
        raise ValueError(
            f"pentanomial: {result.pentanomial} does not match the game records ({counted_pentanomial})"
        )
    if counted_wdl != result.wdl:
        raise ValueError(f"wdl: {result.wdl} does not match the game records ({counted_wdl})")
    return counted_pentanomial, counted_wdl
