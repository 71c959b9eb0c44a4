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

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, NamedTuple

import orjson

import engine
from wire.fields import (
    Weights,
    check_counts,
    check_float,
    check_int,
    check_list,
    check_object,
    check_str,
    check_weights,
)
from wire.programs import EngineProgram

#: The Celery task name coordinators send batches to.
TASK_NAME = "arbiter.play_batch"

RESULTS = ("1-0", "0-1", "1/2-1/2")

#: The longest worker name stored (a ``host:pid`` or a Celery node name).
MAX_WORKER_NAME = 255
#: A record's shape, as the rules core checks it (engine.check_records): the longest moves string
#: (far beyond any ply limit a run allows), opening (a position string), end reason and per-move
#: numbers (budgets, times) a record may state, in characters, and its fields.
MAX_MOVES_TEXT = engine.MAX_MOVES_TEXT
MAX_OPENING = engine.MAX_OPENING
MAX_REASON = engine.MAX_REASON
MAX_NUMBERS_TEXT = engine.MAX_NUMBERS_TEXT
RECORD_FIELDS = engine.RECORD_FIELDS
#: The fields that two plays of the same batch must agree on (a move's time is the machine's).
COMPARED_FIELDS = RECORD_FIELDS[:5]
_NUMBERS = re.compile(r"(?:0|[1-9][0-9]{0,17})(?: (?:0|[1-9][0-9]{0,17}))*")


class Color(StrEnum):
    """The colour the candidate plays in a game."""

    WHITE = "white"
    BLACK = "black"


#: The candidate plays white in the first game of a pair, black in the second.
PAIR_COLORS = (Color.WHITE, Color.BLACK)

_COLORS = {str(c): c for c in Color}
_RESULT_SET = frozenset(RESULTS)
_RECORD_KEYS = frozenset(RECORD_FIELDS)


class FaultKind(StrEnum):
    """The short reason of a game lost by a fault (a game record's ``reason``)."""

    CRASH = "crash"
    ILLEGAL_MOVE = "illegal_move"
    TIME_FORFEIT = "time_forfeit"
    HANG = "hang"
    PROTOCOL = "protocol"
    #: No ``uciok`` or ``readyok`` in time.
    NO_ANSWER = "no_answer"


#: Payload fields a payload may leave out (their defaults: the built-in engine, time not scaled).
PAYLOAD_OPTIONAL = ("candidate_program", "baseline_program", "scale_time")


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
    #: The engine programs the sides are played by (None: the built-in engine with its weights).
    candidate_program: EngineProgram | None = None
    baseline_program: EngineProgram | None = None
    #: Whether a worker scales time limits by its own speed (fishtest's way: slow and fast
    #: machines then play at the same effective strength); never nodes or depth.
    scale_time: bool = False

    @property
    def has_programs(self) -> bool:
        """Whether a side is played by an engine program (faults can then end games)."""
        return self.candidate_program is not None or self.baseline_program is not None

    def programs(self) -> list[EngineProgram]:
        """The engine programs of the batch."""
        return [p for p in (self.candidate_program, self.baseline_program) if p is not None]

    @property
    def verifiable(self) -> bool:
        """Whether the batch can be checked by playing it again (or, timed, by repeating each
        move with its recorded nodes): always with the built-in engine; with programs, when
        each was found to play alike again."""
        timed = not self.limits.deterministic
        return all(p.verifiable(timed) for p in self.programs())

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
            "candidate_program": None if self.candidate_program is None else self.candidate_program.to_json(),
            "baseline_program": None if self.baseline_program is None else self.baseline_program.to_json(),
            "scale_time": self.scale_time,
        }

    @cached_property
    def text(self) -> str:
        """The payload's JSON text, as it is sent, signed, and digested in the answer (made once:
        a coordinator reads it to mark the batch sent, to send it, and to check its answer)."""
        return orjson.dumps(self.to_json()).decode()

    @classmethod
    def from_json(cls, data: Any) -> BatchPayload:
        """A payload from its JSON object; ValueError naming the first missing or bad field."""
        fields = [f for f in cls.__dataclass_fields__ if f not in PAYLOAD_OPTIONAL]
        d = check_object(data, "batch payload", fields, PAYLOAD_OPTIONAL)
        openings = check_list(d["openings"], "batch payload: openings")
        if not openings:
            raise ValueError("batch payload: openings must be a non-empty list of position strings")
        for i, opening in enumerate(openings):
            check_str(opening, f"batch payload: openings[{i}]", max_length=MAX_OPENING)
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
            candidate_program=_program(d.get("candidate_program"), "batch payload: candidate_program"),
            baseline_program=_program(d.get("baseline_program"), "batch payload: baseline_program"),
            scale_time=_flag(d.get("scale_time", False), "batch payload: scale_time"),
        )


def _program(value: Any, name: str) -> EngineProgram | None:
    return None if value is None else EngineProgram.from_json(value, name)


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected true or false")
    return value


# records and results --------------------------------------------------------------------------------------


def ply_count(moves: str) -> int:
    """Plies in a record's moves (one string, the moves separated by single spaces)."""
    return moves.count(" ") + 1 if moves else 0


def move_list(moves: str) -> list[str]:
    """A record's moves one by one."""
    return moves.split(" ") if moves else []


def _spaced_badly(moves: str) -> bool:
    """True unless the moves are separated by single spaces, with none around them."""
    return moves[0] == " " or moves[-1] == " " or "  " in moves


def check_numbers(value: Any, name: str) -> str:
    """Per-move whole numbers of a record (node budgets, milliseconds) as one string, separated by
    single spaces (none: the empty string)."""
    text = check_str(value, name, max_length=MAX_NUMBERS_TEXT)
    if text and not _NUMBERS.fullmatch(text):
        raise ValueError(f"{name}: expected whole numbers separated by single spaces")
    return text


def number_list(text: str) -> list[int]:
    """A record's per-move numbers one by one."""
    return [int(n) for n in text.split(" ")] if text else []


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
    makes tens of thousands of records a second.) A timed game also states, per move, the node
    budget under which its search repeats exactly (``budgets``, what makes it checkable) and the
    milliseconds it took (``times``, one per move or none). Node- and depth-limited games have no
    budgets, and times only when played through the referee (engine programs).
    """

    opening: str
    moves: str
    result: str
    reason: str
    candidate_color: Color
    budgets: str = ""
    times: str = ""

    @property
    def plies(self) -> int:
        """Plies played."""
        return ply_count(self.moves)

    def budget_list(self) -> list[int]:
        """The node budget of each move (empty for a game without a clock)."""
        return number_list(self.budgets)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (also the form the store keeps): plain strings only."""
        return {
            "opening": self.opening,
            "moves": self.moves,
            "result": self.result,
            "reason": self.reason,
            "candidate_color": str(self.candidate_color),
            "budgets": self.budgets,
            "times": self.times,
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
        budgets = check_numbers(data["budgets"], f"{name}: budgets")
        times = check_numbers(data["times"], f"{name}: times")
        if times and times.count(" ") + 1 != ply_count(moves):
            raise ValueError(f"{name}: times: expected one per move ({ply_count(moves)}) or none")
        return cls(opening, moves, result, reason, color, budgets, times)


def records_from_json(games: Iterable[Any]) -> list[GameRecord]:
    """:meth:`GameRecord.from_json` of every record of a result, ``games[i]`` naming a bad one."""
    return [GameRecord.from_json(data, f"games[{i}]") for i, data in enumerate(games)]


RESULT_FIELDS = (
    "run_id",
    "batch_index",
    "engine_version",
    "pentanomial",
    "wdl",
    "games",
)
RESULT_OPTIONAL = ("nodes", "cpu_seconds", "worker", "faults", "time_factor", "engines")
#: The most faults a result may report (one per game at most), and the stderr lines of each.
MAX_FAULT_LINES = 20
MAX_FAULT_TEXT = 300
#: The range of the factor a worker scales time limits by.
TIME_FACTOR_RANGE = (0.05, 20.0)
#: The sides of a match, as results name them.
SIDES = ("candidate", "baseline")
#: The longest ``id name`` or ``id author`` of an engine a result reports.
MAX_ENGINE_ID = 128


@dataclass(frozen=True)
class ResultReport:
    """What a worker's result reports, every field type-checked but the game records, which are
    kept as sent (``games``, a list): the coordinator checks them with everything that depends on
    its payload in one call (``engine.check_records``, in ``coordinator/trust/answers.py``), without a
    Python object made per record; :meth:`BatchResult.from_json` makes :class:`GameRecord` of them.
    An answer read from its text (``engine.read_answer``, as the Celery executor reads them) keeps
    its records in the rules core: ``games`` is then an ``engine.Records``."""

    run_id: int
    batch_index: int
    engine_version: str
    pentanomial: list[int]
    wdl: list[int]
    games: list[Any] | engine.Records
    nodes: dict[str, int]
    cpu_seconds: float
    worker: str | None
    faults: list[dict[str, Any]]
    time_factor: float
    engines: dict[str, dict[str, str | None]]

    @classmethod
    def from_json(cls, data: Any) -> ResultReport:
        """A result from its JSON object, every field but the records' type-checked; ValueError
        naming the first bad one (``result: ...``)."""
        d = check_object(data, "result", RESULT_FIELDS, RESULT_OPTIONAL)
        games = d["games"] if isinstance(d["games"], engine.Records) else check_list(d["games"], "games")
        nodes = check_object(d.get("nodes", {}), "nodes", (), ("candidate", "baseline"))
        worker = d.get("worker")
        low, high = TIME_FACTOR_RANGE
        return cls(
            run_id=check_int(d["run_id"], "run_id"),
            batch_index=check_int(d["batch_index"], "batch_index"),
            engine_version=check_str(d["engine_version"], "engine_version", max_length=128),
            pentanomial=check_counts(d["pentanomial"], 5, "pentanomial"),
            wdl=check_counts(d["wdl"], 3, "wdl"),
            games=games,
            nodes={k: check_int(v, f"nodes.{k}") for k, v in nodes.items()},
            cpu_seconds=check_float(d.get("cpu_seconds", 0.0), "cpu_seconds"),
            worker=None if worker is None else check_str(worker, "worker", max_length=MAX_WORKER_NAME),
            faults=check_faults(d.get("faults", []), len(games)),
            time_factor=check_float(d.get("time_factor", 1.0), "time_factor", low=low, high=high),
            engines=check_engines(d.get("engines", {})),
        )


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
    #: The CPU the batch took on the worker: its process's, and its engine programs' if any.
    cpu_seconds: float = 0.0
    worker: str | None = None
    #: Games lost by an engine program's fault: {"game", "side", "reason", "stderr"} each.
    faults: list[dict[str, Any]] = field(default_factory=list)
    #: What the worker scaled time limits by (its speed against the reference; 1: not scaled).
    time_factor: float = 1.0
    #: What each side's engine program said of itself in its handshake (``id name``, ``id
    #: author``; None where it said nothing), by side: empty for the built-in engine in process.
    engines: dict[str, dict[str, str | None]] = field(default_factory=dict)

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
            "faults": list(self.faults),
            "time_factor": self.time_factor,
            "engines": {side: dict(ids) for side, ids in self.engines.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> BatchResult:
        """A result from its JSON object, every field type-checked; ValueError naming the first bad
        one (``result: ...``)."""
        return cls.from_report(ResultReport.from_json(data))

    @classmethod
    def from_report(cls, report: ResultReport) -> BatchResult:
        """A result from its report, its records made (each checked: ``games[i]`` names a bad one)."""
        return cls(**{**vars(report), "games": records_from_json(report.games)})


def check_engines(value: Any) -> dict[str, dict[str, str | None]]:
    """The engine identities a result reports: per side, the ``id name`` and ``id author`` of
    its handshake (null where the engine gave none), each bounded. A claim of the worker's,
    shown as reported, never trusted for anything else."""
    sides = check_object(value, "engines", (), SIDES)
    out: dict[str, dict[str, str | None]] = {}
    for side, ids in sides.items():
        d = check_object(ids, f"engines.{side}", ("name", "author"))
        out[side] = {
            key: None
            if d[key] is None
            else check_str(d[key], f"engines.{side}.{key}", max_length=MAX_ENGINE_ID)
            for key in ("name", "author")
        }
    return out


def check_faults(value: Any, games: int) -> list[dict[str, Any]]:
    """The faults a result reports: at most one per game, each naming its game, the side
    (candidate or baseline), the reason and the engine's last stderr lines, all bounded."""
    faults = check_list(value, "faults")
    if len(faults) > games:
        raise ValueError(f"faults: expected at most one per game ({games}), got {len(faults)}")
    out = []
    for i, fault in enumerate(faults):
        name = f"faults[{i}]"
        f = check_object(fault, name, ("game", "side", "reason", "stderr"))
        side = check_str(f["side"], f"{name}: side", max_length=16)
        if side not in SIDES:
            raise ValueError(f"{name}: side: expected candidate or baseline, got {side!r}")
        lines = check_list(f["stderr"], f"{name}: stderr")
        if len(lines) > MAX_FAULT_LINES:
            raise ValueError(f"{name}: stderr: expected at most {MAX_FAULT_LINES} lines")
        out.append(
            {
                "game": check_int(f["game"], f"{name}: game", high=max(0, games - 1)),
                "side": side,
                "reason": check_str(f["reason"], f"{name}: reason", max_length=MAX_FAULT_TEXT),
                "stderr": [check_str(x, f"{name}: stderr", max_length=MAX_FAULT_TEXT) for x in lines],
            }
        )
    return out
