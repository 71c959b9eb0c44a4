"""The full configuration of an SPRT run and its deterministic batch plan.

Everything that decides which games are played is in :class:`SprtConfig` and is stored with the run
as JSON (the openings themselves included, so that a resumed run does not depend on the book file
still being the same). Batch ``i`` is a pure function of the configuration and ``i``: which openings
it plays and its seed never depend on timing, concurrency or interruptions.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import PurePath
from typing import Any, Protocol, Self

import engine
from coordinator.defaults import ADJUDICATION, SPRT_BATCH_PAIRS, SPRT_LIMITS
from coordinator.sides.refs import short_name
from coordinator.stats import SprtParams
from coordinator.trust.verifiable import PROGRAM_KEYS
from wire.programs import EngineProgram
from wire.protocol import BatchPayload

#: Settings kept out of a configuration's JSON while they hold their default, so that the
#: fingerprints of runs made before they existed stay what they were.
_OMITTED_AT_DEFAULT = {
    "candidate_program": None,
    "baseline_program": None,
    "scale_time": False,
    "candidate_commit": None,
    "baseline_commit": None,
}


def derive_seed(seed: int, *labels: object) -> int:
    """A 63-bit seed derived from ``seed`` and ``labels`` (stable across Python versions)."""
    text = ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def fingerprint(config: dict[str, Any]) -> str:
    """SHA-256 of a configuration's canonical JSON: equal for runs with the same settings. What the
    determinism probe found about its programs is left out (as if they were found deterministic,
    as every program was before the probe): the same command finds its run again, whatever a
    probe of a flaky engine finds this time."""
    unprobed = {
        key: {**value, "deterministic": True, "replayable": True}
        if key in PROGRAM_KEYS and isinstance(value, dict)
        else value
        for key, value in config.items()
    }
    return hashlib.sha256(json.dumps(unprobed, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class TwoSidedConfig:
    """What the configurations of a run of two fixed sides (an SPRT's, a match's) have and do
    alike: their shared settings, their JSON, their programs, their batch plan and their
    fingerprint. The base of their frozen dataclasses (each adds its own settings after these)."""

    game: str
    candidate: dict[str, int]
    baseline: dict[str, int]
    openings: list[str]
    engine_version: str
    limits: engine.Limits = SPRT_LIMITS
    adjudication: engine.Adjudication = ADJUDICATION
    batch_pairs: int = SPRT_BATCH_PAIRS
    seed: int = 0
    book: str = ""
    candidate_source: str = ""
    baseline_source: str = "default"
    #: Engine programs that play a side instead of the built-in engine (its weights then unused).
    candidate_program: EngineProgram | None = None
    baseline_program: EngineProgram | None = None
    #: Whether workers scale time limits by their speed (timed runs; never nodes or depth).
    scale_time: bool = False
    #: A side that is a commit: the ref it was named by, its SHA, subject, commit time and depth
    #: (``refs.Commit.record``), kept so that tested commits can be put in history order.
    candidate_commit: dict[str, Any] | None = None
    baseline_commit: dict[str, Any] | None = None

    @property
    @abstractmethod
    def max_pairs(self) -> int | None:
        """The most game pairs the run plays (None: no cap)."""

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict, every field in order."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        return data | {
            "candidate": dict(self.candidate),
            "baseline": dict(self.baseline),
            "openings": list(self.openings),
            "limits": self.limits.to_json(),
            "adjudication": self.adjudication.to_json(),
            "candidate_program": None if self.candidate_program is None else self.candidate_program.to_json(),
            "baseline_program": None if self.baseline_program is None else self.baseline_program.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Inverse of :meth:`to_json` (unknown keys are an error)."""
        return cls(
            **{
                **data,
                "limits": engine.Limits.from_json(data.get("limits")),
                "adjudication": engine.Adjudication.from_json(data.get("adjudication")),
                "candidate_program": _program(data.get("candidate_program")),
                "baseline_program": _program(data.get("baseline_program")),
            }
        )

    def batch_plan(self) -> BatchPlan:
        """The run's batch plan."""
        return BatchPlan(self)

    def programs(self) -> list[EngineProgram]:
        """The engine programs of the run."""
        return [p for p in (self.candidate_program, self.baseline_program) if p is not None]

    def fingerprint(self) -> str:
        """Equal for runs that would play the same games."""
        return fingerprint(self.to_json())


@dataclass(frozen=True)
class SprtConfig(TwoSidedConfig):
    """Everything that defines an SPRT run (JSON round-trips through :meth:`to_json`): the shared
    settings of :class:`TwoSidedConfig`, the hypotheses, error rates and game budget."""

    elo0: float = 0.0
    elo1: float = 5.0
    elo_model: str = "normalized"
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = None

    def __post_init__(self) -> None:
        """Reject settings no run could use (the SPRT settings are checked by ``SprtParams``)."""
        if self.batch_pairs < 1:
            raise ValueError(f"batch_pairs: expected a positive number of pairs, got {self.batch_pairs}")
        if self.max_games is not None and self.max_games < 2:
            raise ValueError(f"max_games: expected at least 2 games (one pair), got {self.max_games}")
        if not self.openings:
            raise ValueError("openings: the run needs at least one opening")
        self.sprt_params  # noqa: B018 - validates elo0 < elo1, alpha, beta and the model

    @cached_property
    def sprt_params(self) -> SprtParams:
        """SPRT settings; one update per batch, so the batch size is the pairs per batch."""
        return SprtParams(
            elo0=self.elo0,
            elo1=self.elo1,
            alpha=self.alpha,
            beta=self.beta,
            elo_model=self.elo_model,  # type: ignore[arg-type]
            batch_size=self.batch_pairs,
        )

    @property
    def max_pairs(self) -> int | None:
        """Game pairs the game budget allows (an odd budget leaves its last game unplayed), or None
        without a budget."""
        return None if self.max_games is None else self.max_games // 2

    @property
    def max_batches(self) -> int | None:
        """Batches the game budget allows (the last one cut to the pairs left), or None without a
        budget."""
        if self.max_pairs is None:
            return None
        return math.ceil(self.max_pairs / self.batch_pairs)

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict; the settings newer than the first runs are left
        out while they hold their default (their fingerprints stay as they were)."""
        out = super().to_json()
        return {k: v for k, v in out.items() if k not in _OMITTED_AT_DEFAULT or v != _OMITTED_AT_DEFAULT[k]}


def _program(value: Any) -> EngineProgram | None:
    return None if value is None else EngineProgram.from_json(value)


class OpeningWalk:
    """Which openings the ``i``-th slice of ``batch_pairs`` game pairs plays, from a seed alone.

    The book is walked in passes; each pass visits every opening once in an order shuffled from
    ``(seed, pass)``, and slice ``i`` takes the ``batch_pairs`` openings at positions
    ``i * batch_pairs ...`` of that endless sequence.
    """

    def __init__(self, openings: list[str], seed: int, batch_pairs: int) -> None:
        """A walk through ``openings`` shuffled from ``seed``, ``batch_pairs`` at a time."""
        self.openings = list(openings)
        self.seed = seed
        self.batch_pairs = batch_pairs
        self._passes: dict[int, list[str]] = {}

    def _pass(self, number: int) -> list[str]:
        """The shuffled book for pass ``number``."""
        order = self._passes.get(number)
        if order is None:
            order = list(self.openings)
            random.Random(derive_seed(self.seed, "pass", number)).shuffle(order)
            # Only the current pass and the one before are needed again (a batch can span two).
            self._passes = {n: o for n, o in self._passes.items() if n == number - 1} | {number: order}
        return order

    def openings_for(self, batch_index: int) -> list[str]:
        """The openings of slice ``batch_index``, one per game pair."""
        size = len(self.openings)
        first, end = batch_index * self.batch_pairs, (batch_index + 1) * self.batch_pairs
        chosen: list[str] = []
        for number in range(first // size, (end - 1) // size + 1):  # the passes the batch spans
            order = self._pass(number)
            chosen += order[max(first - number * size, 0) : min(end - number * size, size)]
        return chosen


class GameSettings(Protocol):
    """What every game of a run shares, whatever its kind."""

    @property
    def game(self) -> str:
        """The game played."""
        ...

    @property
    def engine_version(self) -> str:
        """The rules and search core every worker must have."""
        ...

    @property
    def limits(self) -> engine.Limits:
        """The search limits of every move."""
        ...

    @property
    def adjudication(self) -> engine.Adjudication:
        """When a game is adjudicated."""
        ...

    @property
    def scale_time(self) -> bool:
        """Whether workers scale time limits by their speed."""
        ...


#: A side as a batch plays it: the built-in engine's weights, or the program that plays instead.
PlayedSide = tuple[dict[str, int], EngineProgram | None]


class TwoSides(GameSettings, Protocol):
    """A run of two fixed sides over a book (an SPRT's, a match's): what :class:`BatchPlan` reads."""

    @property
    def openings(self) -> list[str]:
        """The book's openings, walked batch by batch."""
        ...

    @property
    def seed(self) -> int:
        """The run's seed."""
        ...

    @property
    def batch_pairs(self) -> int:
        """Game pairs per batch."""
        ...

    @property
    def candidate(self) -> dict[str, int]:
        """The candidate's weights."""
        ...

    @property
    def baseline(self) -> dict[str, int]:
        """The baseline's weights."""
        ...

    @property
    def candidate_program(self) -> EngineProgram | None:
        """The candidate's program, if it is one."""
        ...

    @property
    def baseline_program(self) -> EngineProgram | None:
        """The baseline's program, if it is one."""
        ...

    @property
    def max_pairs(self) -> int | None:
        """The most game pairs the run plays (None: no cap)."""
        ...


class PairsPlan(ABC):
    """A batch plan of game pairs between two sides: which sides, openings and seed batch ``i``
    has (each kind's own), and the payload that sends them (one for every kind)."""

    settings: GameSettings

    @abstractmethod
    def sides_for(self, batch_index: int) -> tuple[PlayedSide, PlayedSide]:
        """The candidate and the baseline side of batch ``batch_index``."""

    @abstractmethod
    def openings_for(self, batch_index: int) -> list[str]:
        """The openings of batch ``batch_index``, one per game pair."""

    @abstractmethod
    def seed_for(self, batch_index: int) -> int:
        """The seed sent with batch ``batch_index``."""

    def payload(self, run_id: int, batch_index: int) -> BatchPayload:
        """Everything a worker needs to play batch ``batch_index`` of run ``run_id``."""
        c = self.settings
        (candidate, candidate_program), (baseline, baseline_program) = self.sides_for(batch_index)
        return BatchPayload(
            run_id=run_id,
            batch_index=batch_index,
            game=c.game,
            candidate=dict(candidate),
            baseline=dict(baseline),
            openings=self.openings_for(batch_index),
            limits=c.limits,
            adjudication=c.adjudication,
            seed=self.seed_for(batch_index),
            engine_version=c.engine_version,
            candidate_program=candidate_program,
            baseline_program=baseline_program,
            scale_time=c.scale_time,
        )


class BatchPlan(OpeningWalk, PairsPlan):
    """Which openings batch ``i`` plays (slice ``i`` of the :class:`OpeningWalk`) and with which
    seed, from the run's seed alone."""

    def __init__(self, config: TwoSides) -> None:
        """Plan for ``config``'s openings, seed, batch size and cap of pairs."""
        super().__init__(config.openings, config.seed, config.batch_pairs)
        self.config = config
        self.settings = config

    def sides_for(self, batch_index: int) -> tuple[PlayedSide, PlayedSide]:
        """The run's candidate and baseline, in every batch."""
        c = self.config
        return (c.candidate, c.candidate_program), (c.baseline, c.baseline_program)

    def openings_for(self, batch_index: int) -> list[str]:
        """The openings of batch ``batch_index``: the last batch a game budget allows plays only
        the pairs left of it, so that a run never plays more games than its budget."""
        chosen = super().openings_for(batch_index)
        cap = self.config.max_pairs
        return chosen if cap is None else chosen[: max(cap - batch_index * self.batch_pairs, 0)]

    def seed_for(self, batch_index: int) -> int:
        """The seed sent with batch ``batch_index``."""
        return derive_seed(self.seed, "batch", batch_index)


def side_name(source: str, program: EngineProgram | None) -> str:
    """An engine as every run names it (SPRT headlines, tournament entrants): an engine file by
    its ``name``, a commit as ``repository@sha``, weights by their file's stem (``cand`` for
    ``cand.json``), the defaults as ``default``."""
    if program is None:
        return "default" if source == "default" else PurePath(source).stem
    if program.build is not None:
        return short_name(program.build.repo, program.build.sha)
    return program.name
