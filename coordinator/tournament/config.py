"""A tournament's full configuration and its deterministic batch plan.

Everything that decides which games are played is in :class:`TournamentConfig` and is stored with
the run as JSON. Batch ``i`` plays pairing ``i mod P`` (of ``P`` pairings) in round ``i div P``:
the rounds go through the pairings in turn, so an unfinished tournament has played every pairing
about equally. Every pairing plays the same openings and node budgets in a round (the fairest
comparison across the field); each opening is a game pair, colours reversed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import engine
from coordinator.defaults import ADJUDICATION, SPRT_BATCH_PAIRS, SPRT_LIMITS, TOURNAMENT_PAIRS
from coordinator.match.config import FixedPairs
from coordinator.sprt.config import OpeningWalk, PairsPlan, PlayedSide, derive_seed, fingerprint
from wire.programs import EngineProgram

FORMATS = ("round-robin", "gauntlet")
#: The longest engine name (the store's column of a batch's engines).
MAX_NAME = 200


@dataclass(frozen=True)
class Entrant:
    """One engine of a tournament: its name in the rating list, where it came from (the command
    line's words, or the tuning run's champion), and what plays: the built-in engine with
    ``weights``, or ``program``."""

    name: str
    source: str
    weights: dict[str, int]
    program: EngineProgram | None = None

    def to_json(self) -> dict[str, Any]:
        """The entrant as a JSON-safe dict."""
        return {
            "name": self.name,
            "source": self.source,
            "weights": dict(self.weights),
            "program": None if self.program is None else self.program.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entrant:
        """Inverse of :meth:`to_json`."""
        program = data.get("program")
        return cls(
            name=str(data["name"]),
            source=str(data["source"]),
            weights={str(k): int(v) for k, v in data["weights"].items()},
            program=None if program is None else EngineProgram.from_json(program),
        )


def pairings_of(format_: str, count: int, vs: int = 0) -> list[tuple[int, int]]:
    """Who plays whom among ``count`` entrants: every two once (round robin), or entrant ``vs``
    against each other one (gauntlet); the first of each pair is the candidate side."""
    if format_ == "round-robin":
        return [(a, b) for a in range(count) for b in range(a + 1, count)]
    if format_ == "gauntlet":
        return [(vs, b) for b in range(count) if b != vs]
    raise ValueError(f"format: expected one of {', '.join(FORMATS)}, got {format_!r}")


def stored_sides(config: dict[str, Any], batch_index: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """The (name, source) of the candidate and the baseline side of batch ``batch_index`` of a
    stored tournament configuration, without reading all of it (an export asks for every game)."""
    entrants = [(str(e["name"]), str(e["source"])) for e in config["entrants"]]
    pairings = pairings_of(str(config["format"]), len(entrants), int(config["vs"]))
    first, second = pairings[batch_index % len(pairings)]
    return entrants[first], entrants[second]


@dataclass(frozen=True)
class TournamentConfig(FixedPairs):
    """Everything that defines a tournament (JSON round-trips through :meth:`to_json`)."""

    game: str
    entrants: tuple[Entrant, ...]
    openings: list[str]
    engine_version: str
    format: str = "round-robin"
    #: The gauntlet's engine (an index into ``entrants``); unused in a round robin.
    vs: int = 0
    pairs: int = TOURNAMENT_PAIRS
    limits: engine.Limits = SPRT_LIMITS
    adjudication: engine.Adjudication = ADJUDICATION
    batch_pairs: int = SPRT_BATCH_PAIRS
    seed: int = 0
    book: str = ""
    scale_time: bool = False
    #: The tuning run whose champions these are (``--champions RUN``), or None.
    champions_of: int | None = None
    pairings: tuple[tuple[int, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        """Reject settings no tournament could use; work out the pairings."""
        names = [e.name for e in self.entrants]
        if len(names) < 2:
            raise ValueError(f"a tournament needs at least two engines, got {len(names)}")
        long = next((n for n in names if not 0 < len(n) <= MAX_NAME), None)
        if long is not None:
            raise ValueError(
                f"engine names: expected 1 to {MAX_NAME} characters, got {len(long)} ({long[:40]}...)"
            )
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(
                f"engine names must be unique: {', '.join(repeated)} given more than once (weights "
                "files are named by their stem, engine files by their name field)"
            )
        if not 0 <= self.vs < len(names):
            raise ValueError(f"vs: expected an engine of the tournament, got number {self.vs}")
        self.check_pairs()
        if not self.openings:
            raise ValueError("openings: the tournament needs at least one opening")
        object.__setattr__(self, "pairings", tuple(pairings_of(self.format, len(names), self.vs)))

    @property
    def max_batches(self) -> int:
        """Every batch of the plan."""
        return self.rounds * len(self.pairings)

    @property
    def max_games(self) -> int:
        """Every game of the plan."""
        return 2 * self.pairs * len(self.pairings)

    def pairing(self, batch_index: int) -> tuple[Entrant, Entrant]:
        """The candidate and baseline sides of batch ``batch_index``."""
        first, second = self.pairings[batch_index % len(self.pairings)]
        return self.entrants[first], self.entrants[second]

    def batch_names(self) -> list[tuple[str, str]]:
        """The engines' names in every batch of the plan, in batch order."""
        return [(a.name, b.name) for a, b in map(self.pairing, range(self.max_batches))]

    def programs(self) -> list[EngineProgram]:
        """The engine programs of the tournament."""
        return [e.program for e in self.entrants if e.program is not None]

    def batch_plan(self) -> TournamentPlan:
        """The tournament's batch plan."""
        return TournamentPlan(self)

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict."""
        return {
            "game": self.game,
            "entrants": [e.to_json() for e in self.entrants],
            "openings": list(self.openings),
            "engine_version": self.engine_version,
            "format": self.format,
            "vs": self.vs,
            "pairs": self.pairs,
            "limits": self.limits.to_json(),
            "adjudication": self.adjudication.to_json(),
            "batch_pairs": self.batch_pairs,
            "seed": self.seed,
            "book": self.book,
            "scale_time": self.scale_time,
            "champions_of": self.champions_of,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_json` (unknown keys are an error)."""
        return cls(
            **{
                **data,
                "entrants": tuple(Entrant.from_json(e) for e in data["entrants"]),
                "limits": engine.Limits.from_json(data.get("limits")),
                "adjudication": engine.Adjudication.from_json(data.get("adjudication")),
            }
        )

    def fingerprint(self) -> str:
        """Equal for tournaments that would play the same games."""
        return fingerprint(self.to_json())


class TournamentPlan(PairsPlan):
    """Which pairing, openings and seed batch ``i`` of a tournament has, from its configuration."""

    def __init__(self, config: TournamentConfig) -> None:
        """Plan for ``config``."""
        self.config = config
        self.settings = config
        self.walk = OpeningWalk(config.openings, config.seed, config.batch_pairs)

    def round_of(self, batch_index: int) -> int:
        """The round of batch ``batch_index``."""
        return batch_index // len(self.config.pairings)

    def openings_for(self, batch_index: int) -> list[str]:
        """The openings of batch ``batch_index``: its round's, the last round's cut at ``pairs``."""
        number = self.round_of(batch_index)
        left = self.config.pairs - number * self.config.batch_pairs
        return self.walk.openings_for(number)[:left]

    def seed_for(self, batch_index: int) -> int:
        """The seed of batch ``batch_index``: its round's (equal node budgets in every pairing)."""
        return derive_seed(self.config.seed, "round", self.round_of(batch_index))

    def sides_for(self, batch_index: int) -> tuple[PlayedSide, PlayedSide]:
        """The two engines of the batch's pairing."""
        first, second = self.config.pairing(batch_index)
        return (first.weights, first.program), (second.weights, second.program)
