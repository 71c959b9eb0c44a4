"""The engines of a match run as status, reports, the dashboard and PGN show them: each side's
name (a commit as ``repository@sha``), the version its handshake reported (``id name``), the
options it was set to and the time control; the time each engine used per move; the faults that
lost games, per engine and per worker, with the last reason and stderr lines; and the factor each
worker scaled time limits by. A tournament's report gathers its faults and times per move with the
same code, per engine name (each batch's pairing names its two sides).

Everything here is read from the run's configuration, the ``details`` of its counted results
(what workers reported beside their games, checked on arrival) and the records' per-move times.
Worker-reported strings (ids, reasons, stderr) are returned as stored: each output escapes them
(``coordinator.escape``, ``html.escape``); secrets of a ref's repository URL are masked here.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import engine
from coordinator.reports.data import JsonData
from coordinator.sides.refs import short_name
from wire.masking import mask_url, scrub
from wire.programs import EngineProgram
from wire.protocol import SIDES, FaultKind, number_list

#: The kinds of fault a game can be lost by, in the order reports list them, and how a table
#: heads each.
FAULT_KINDS = tuple(str(kind) for kind in FaultKind)
FAULT_LABELS = {
    "time_forfeit": "forfeits",
    "crash": "crashes",
    "illegal_move": "illegal moves",
    "hang": "hangs",
    "protocol": "protocol violations",
    "no_answer": "no answer",
}
#: Different (id name, id author) pairs listed per side (workers may report others: hostile).
IDS_SHOWN = 4
#: Stderr lines of the last fault that reports show.
STDERR_SHOWN = 8
#: Plies the time-per-move series covers (later moves are counted in the means only).
SERIES_PLIES = 200


class HasPrograms(Protocol):
    """A configuration naming engine programs (a match's, a tournament's)."""

    def programs(self) -> list[EngineProgram]:
        """The engine programs of the run."""
        ...


class TwoSides(Protocol):
    """A configuration of two fixed sides (an SPRT's, a match's): what their report shows of them.
    (``side_of`` reads the ``candidate_*`` and ``baseline_*`` fields by name.)"""

    @property
    def limits(self) -> engine.Limits:
        """The search limits of every move."""
        ...

    @property
    def scale_time(self) -> bool:
        """Whether workers scale time limits by their speed."""
        ...

    def programs(self) -> list[EngineProgram]:
        """The engine programs of the run."""
        ...


def pgn_time_control(limits: engine.Limits) -> str:
    """A PGN ``TimeControl`` as cutechess writes it: ``40/60+0.5`` for a clock, ``0.05/move``
    for a time per move, ``-`` for none (nodes or depth only)."""
    if limits.time_control is not None:
        return str(limits.time_control)
    if limits.movetime_ms is not None:
        return f"{limits.movetime_ms / 1000:g}/move"
    return "-"


def limits_text(limits: engine.Limits, scaled: bool = False) -> str:
    """A run's limits in words: ``tc 10+0.1 (scaled by each worker's speed), nodes 2000``."""
    parts = []
    if limits.time_control is not None:
        parts.append(f"tc {limits.time_control} (margin {limits.time_margin_ms} ms)")
    if limits.movetime_ms is not None:
        parts.append(f"movetime {limits.movetime_ms} ms")
    if limits.nodes is not None:
        parts.append(f"nodes {limits.nodes}")
    if limits.depth is not None:
        parts.append(f"depth {limits.depth}")
    text = ", ".join(parts) or "none"
    return f"{text}, times scaled by each worker's speed" if scaled else text


def emt(ms: int) -> str:
    """A move's time as a PGN ``[%emt h:mm:ss.fff]`` command."""
    return f"[%emt {ms // 3_600_000}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}]"


def _secrets_masked(text: str, repos: Iterable[str]) -> str:
    for repo in repos:
        text = scrub(text, repo)
    return text


@dataclass(frozen=True)
class Commit(JsonData):
    """A side built from a commit: its repository (password masked), sha, short name, and the ref
    and subject recorded when the run was made."""

    repo: str
    sha: str
    short: str
    ref: str | None
    subject: str | None


@dataclass(frozen=True)
class Fault(JsonData):
    """A fault that lost a game: where it happened, its kind, reason and last stderr lines."""

    batch: int
    game: int | None
    worker: str
    side: str | None
    kind: str
    reason: str
    stderr: list[str]


@dataclass(frozen=True)
class Faults(JsonData):
    """Faults in all (a kind this arbiter does not know included), the count of each kind of
    :data:`FAULT_KINDS`, and the last fault seen."""

    total: int
    counts: dict[str, int]
    last: Fault | None

    def to_json(self) -> dict[str, Any]:
        """``total``, each kind's count by name, ``last``."""
        return {
            "total": self.total,
            **self.counts,
            "last": None if self.last is None else self.last.to_json(),
        }


@dataclass(frozen=True)
class Reported(JsonData):
    """An ``id name`` and ``id author`` pair a side reported, and in how many batches."""

    name: str | None
    author: str | None
    batches: int


@dataclass(frozen=True)
class Side(JsonData):
    """One side: its name, what it is (``built-in``, ``program`` or ``commit``), where it came
    from, its options and commit; its version as reported, what it reported, its faults."""

    name: str
    kind: str
    source: str
    options: dict[str, Any]
    commit: Commit | None
    version: str | None = None
    reported: list[Reported] = field(default_factory=list)
    faults: Faults = field(default_factory=lambda: Faults(0, dict.fromkeys(FAULT_KINDS, 0), None))


@dataclass(frozen=True)
class WorkerEngines(JsonData):
    """What one worker's batches say of the engines: the factor it scaled time limits by (mean,
    least and most) and the faults in its games."""

    worker: str
    batches: int
    time_factor: float
    time_factor_min: float
    time_factor_max: float
    faults: Faults


@dataclass(frozen=True)
class SideTimes(JsonData):
    """The time one engine used per move: moves timed, total, mean, and the mean at each move
    number (``"1"``, ``"2"``, ...)."""

    moves: int
    total_ms: int
    mean_ms: float | None
    by_move: dict[str, float]


@dataclass(frozen=True)
class Engines(JsonData):
    """The engines part of a run's status and report: the limits in words and as a PGN time
    control, whether they are timed, each side, each worker's factor and faults, and (a report,
    which reads the records) the time per move."""

    limits: str
    time_control: str
    timed: bool
    sides: dict[str, Side]
    workers: list[WorkerEngines]
    move_times: dict[str, SideTimes] | None = None

    @property
    def names(self) -> tuple[str, str]:
        """The candidate's and the baseline's names."""
        return self.sides["candidate"].name, self.sides["baseline"].name

    def to_json(self) -> dict[str, Any]:
        """The engines as JSON data (``move_times`` only when read)."""
        data = super().to_json()
        if self.move_times is None:
            del data["move_times"]
        return data


def side_of(config: TwoSides, side: str) -> Side:
    """One side as the configuration has it: its name, what it is (the built-in engine, a
    program, or a commit), where it came from, the options it is set to, and its commit."""
    program: EngineProgram | None = getattr(config, f"{side}_program")
    source = str(getattr(config, f"{side}_source"))
    if program is None:
        return Side(name=f"arbiter ({source})", kind="built-in", source=source, options={}, commit=None)
    commit = None
    if program.build is not None:
        recorded = getattr(config, f"{side}_commit") or {}
        commit = Commit(
            repo=mask_url(program.build.repo),
            sha=program.build.sha,
            short=short_name(program.build.repo, program.build.sha),
            ref=recorded.get("ref"),
            subject=recorded.get("subject"),
        )
    return Side(
        name=commit.short if commit is not None else program.name,
        kind="commit" if commit is not None else "program",
        source=mask_url(source) if commit is not None else source,
        options=dict(program.options),
        commit=commit,
    )


class Counted(Protocol):
    """The counted games of a run, as the store's totals and a report's have them."""

    @property
    def games(self) -> int:
        """Games counted."""
        ...

    @property
    def pentanomial(self) -> list[int]:
        """Game pairs LL, LD, DD/WL, WD, WW from the candidate's view."""
        ...

    @property
    def wdl(self) -> list[int]:
        """The candidate's wins, draws, losses."""
        ...


def sides_row(names: tuple[str, str], counted: Counted, elo: tuple[float, float] | None) -> dict[str, Any]:
    """The dashboard columns every run of two fixed sides (an SPRT, a match) has: the candidate's
    and the baseline's names, the counted games, pentanomial and W/D/L, and Elo with its 95%
    half-width (None while it has none)."""
    return {
        "candidate": names[0],
        "baseline": names[1],
        "games": counted.games,
        "pentanomial": counted.pentanomial,
        "wdl": counted.wdl,
        "elo": None if elo is None else elo[0],
        "elo95": None if elo is None else elo[1],
    }


def names_of(config: TwoSides) -> tuple[str, str]:
    """The candidate's and the baseline's names, as the configuration has them."""
    return side_of(config, "candidate").name, side_of(config, "baseline").name


def repos_of(config: HasPrograms) -> list[str]:
    """The repositories of a run's commits (whose secrets are masked wherever text is shown)."""
    return [p.build.repo for p in config.programs() if p.build is not None]


def masked_config(config: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration (without its openings) as it may be shown: every repository URL
    of a commit with its password masked."""
    shown = {k: v for k, v in config.items() if k != "openings"}
    for side in SIDES:
        program = shown.get(f"{side}_program")
        if isinstance(program, dict) and isinstance(program.get("build"), dict):
            build = program["build"] | {"repo": mask_url(program["build"].get("repo", ""))}
            shown[f"{side}_program"] = program | {"build": build}
        source = shown.get(f"{side}_source")
        if isinstance(source, str) and program is not None:
            shown[f"{side}_source"] = mask_url(source)
    return shown


def details_of(row: Any) -> dict[str, Any]:
    """What a stored result reported beside its games (its ``details`` column), as JSON."""
    return dict(json.loads(row.details)) if row.details else {}


@dataclass
class _Faults:
    """Fault counts by kind, and the last fault seen (in batch order), as they are read."""

    counts: Counter[str] = field(default_factory=Counter)
    last: Fault | None = None

    def frozen(self) -> Faults:
        """The counts of every kind and the last fault."""
        return Faults(sum(self.counts.values()), {kind: self.counts[kind] for kind in FAULT_KINDS}, self.last)


@dataclass
class _Worker:
    """A worker's batches, time factors and faults, as they are read."""

    worker: str
    batches: int = 0
    factors: list[float] = field(default_factory=list)
    faults: _Faults = field(default_factory=_Faults)


@dataclass(frozen=True)
class Found:
    """What the stored results say of the engines: per side, the ids reported and the faults; per
    worker, its time factors and faults."""

    reported: dict[str, list[Reported]]
    faults: dict[str, Faults]
    workers: list[WorkerEngines]


def _kind(fault: dict[str, Any]) -> str:
    kind = fault.get("kind")
    return kind if kind in FAULT_KINDS else "other"


def from_results(
    rows: Iterable[Any],
    repos: Iterable[str] = (),
    names: Callable[[int], Mapping[str, str]] | None = None,
    keys: Iterable[str] = SIDES,
) -> Found:
    """Per side, the ids reported and the faults; per worker, its faults and time factor; from
    the stored result rows (counted ones, in batch order: the last fault is the latest batch's),
    any secret of ``repos`` masked in the faults' text. With ``names`` (each batch's engine name
    of each side: a tournament's pairings), the faults are per engine name instead of per side;
    ``keys`` are the sides (or names) listed even without a fault."""
    repos = list(repos)
    ids: dict[str, Counter[tuple[str | None, str | None]]] = {side: Counter() for side in SIDES}
    faults: defaultdict[str, _Faults] = defaultdict(_Faults, {key: _Faults() for key in keys})
    workers: dict[str, _Worker] = {}
    for row in rows:
        details = details_of(row)
        name = row.worker or "?"
        w = workers.setdefault(name, _Worker(name))
        w.batches += 1
        w.factors.append(float(details.get("time_factor", 1.0)))
        for side, reported in details.get("engines", {}).items():
            if side in ids:
                ids[side][(reported.get("name"), reported.get("author"))] += 1
        engines = names(row.batch_index) if names is not None else {side: side for side in SIDES}
        for fault in details.get("faults", []):
            kind = _kind(fault)
            last = Fault(
                batch=row.batch_index,
                game=fault.get("game"),
                worker=name,
                side=fault.get("side"),
                kind=kind,
                reason=_secrets_masked(str(fault.get("reason", "")), repos),
                stderr=[_secrets_masked(str(x), repos) for x in fault.get("stderr", [])[-STDERR_SHOWN:]],
            )
            engine_name = engines.get(str(fault.get("side")))
            for found in (faults[engine_name] if engine_name is not None else None, w.faults):
                if found is not None:
                    found.counts[kind] += 1
                    found.last = last
    return Found(
        reported={
            side: [
                Reported(name=n, author=a, batches=count)
                for (n, a), count in ids[side].most_common(IDS_SHOWN)
            ]
            for side in SIDES
        },
        faults={key: found.frozen() for key, found in faults.items()},
        workers=[
            WorkerEngines(
                worker=w.worker,
                batches=w.batches,
                time_factor=sum(w.factors) / len(w.factors),
                time_factor_min=min(w.factors),
                time_factor_max=max(w.factors),
                faults=w.faults.frozen(),
            )
            for w in sorted(workers.values(), key=lambda w: str(w.worker))
        ],
    )


def version_of(reported: list[Reported]) -> str | None:
    """A side's version as most of its batches reported it (``id name``, ``by`` its author)."""
    if not reported or reported[0].name is None:
        return None
    first = reported[0]
    return str(first.name) + (f" by {first.author}" if first.author else "")


def engines_data(config: TwoSides, rows: Iterable[Any], engine_version: str | None) -> Engines:
    """The engines part of a run's status and report (without the time per move, which needs
    the records: :class:`MoveTimes`)."""
    found = from_results(rows, repos_of(config))
    sides = {}
    for side in SIDES:
        shown = side_of(config, side)
        reported = found.reported[side]
        version = version_of(reported)
        if shown.kind == "built-in":
            version = f"built in, engine version {engine_version}"
        sides[side] = replace(shown, version=version, reported=reported, faults=found.faults[side])
    return Engines(
        limits=limits_text(config.limits, config.scale_time),
        time_control=pgn_time_control(config.limits),
        timed=not config.limits.deterministic,
        sides=sides,
        workers=found.workers,
    )


class MoveTimes:
    """The time each engine used per move, over a stream of game records: its moves timed, the
    mean and total, and the mean at each move number (records without times are skipped). Kept
    per side, or per engine name when each record comes with its sides' names."""

    def __init__(self, keys: Iterable[str] = SIDES) -> None:
        """Times of ``keys`` (shown even without a move timed) and of any other name met."""
        self.moves: defaultdict[str, int] = defaultdict(int)
        self.total_ms: defaultdict[str, int] = defaultdict(int)
        self.by_ply: defaultdict[str, defaultdict[int, list[int]]] = defaultdict(
            lambda: defaultdict(lambda: [0, 0])
        )
        for key in keys:
            self.moves[key] += 0

    def add(self, record: dict[str, Any], names: Mapping[str, str] | None = None) -> None:
        """Counts one record's move times to the side that played each move (to its engine's
        name in ``names``, when given)."""
        times = number_list(record["times"])
        if not times:
            return
        white_first = record["opening"].rsplit(" ", 1)[-1] != "b"
        candidate_white = record["candidate_color"] == "white"
        for ply, ms in enumerate(times):
            white = (ply % 2 == 0) == white_first
            side = "candidate" if white == candidate_white else "baseline"
            key = side if names is None else names[side]
            self.moves[key] += 1
            self.total_ms[key] += ms
            if ply < SERIES_PLIES:
                cell = self.by_ply[key][ply // 2]
                cell[0] += 1
                cell[1] += ms

    def of(self, key: str) -> SideTimes:
        """One side's (or engine's) moves timed, total, mean and mean at each move number."""
        moves, total = self.moves.get(key, 0), self.total_ms.get(key, 0)
        return SideTimes(
            moves=moves,
            total_ms=total,
            mean_ms=total / moves if moves else None,
            by_move={str(n + 1): ms / count for n, (count, ms) in sorted(self.by_ply.get(key, {}).items())},
        )

    def frozen(self) -> dict[str, SideTimes]:
        """The times of every side (or engine) met or asked for."""
        return {key: self.of(key) for key in self.moves}
