"""What defines a tuning campaign, and the pure rules that make its runs: each round tunes from the
current best on its own seed and on one part of the book; its champion plays verification SPRTs
against the round's start on seeds of their own and on the other part of the book.

The game budget (``max_games``) bounds every game of the campaign: it is split evenly between the
rounds, and each round's share holds its tuning run (iterations and acceptance SPRTs, see
:attr:`TuneConfig.acceptance_in_budget`) and its verification SPRTs at their game caps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

import engine
from coordinator.sprt.config import SprtConfig, derive_seed, fingerprint
from coordinator.tuning.config import TuneConfig

#: The default verification settings relative to the tuning's: its nodes times these, or, tuning
#: at a time control, the control itself (STC) and scaled by the second (LTC, fishtest's ratio).
NODE_FACTORS = (4, 40)
LTC_FACTOR = 6


def default_verify_limits(limits: engine.Limits) -> list[engine.Limits]:
    """The two verification settings of a campaign tuning at ``limits``: the nodes times 4 and
    times 40, or with a time control, that control and the control times 6; a ValueError for
    limits without either (a depth or a move time)."""
    if limits.time_control is not None:
        tc = limits.time_control
        margin = limits.time_margin_ms
        return [engine.Limits(time_control=t, time_margin_ms=margin) for t in (tc, tc.scaled(LTC_FACTOR))]
    if limits.nodes is not None:
        return [engine.Limits(nodes=limits.nodes * f) for f in NODE_FACTORS]
    raise ValueError("--rounds: give the verification settings with --verify-nodes or --verify-tc")


def limits_text(limits: engine.Limits) -> str:
    """``2000 nodes`` or ``tc 10+0.1``: a verification setting for people."""
    if limits.time_control is not None:
        return f"tc {limits.time_control}"
    if limits.nodes is not None:
        return f"{limits.nodes} nodes"
    return str(limits.to_json())


def split_book(openings: list[str], seed: int) -> tuple[list[str], list[str]]:
    """The book shuffled from ``seed`` and cut in two disjoint halves: the tuning's openings and
    the verification SPRTs'."""
    order = list(openings)
    random.Random(derive_seed(seed, "campaign book")).shuffle(order)
    half = (len(order) + 1) // 2
    return order[:half], order[half:]


@dataclass(frozen=True)
class CampaignConfig:
    """A campaign: the tuning of every round (``tune``: its start is the campaign's, its seed
    the campaign's, its book the whole book), how many rounds at most, the verification settings
    and each verification SPRT's game cap, and the whole campaign's game budget."""

    tune: TuneConfig
    rounds: int
    max_games: int
    verify_limits: list[engine.Limits] = field(default_factory=list)
    verify_max_games: int = 4000

    def __post_init__(self) -> None:
        """Reject campaigns no round could play."""
        if self.rounds < 1:
            raise ValueError(f"--rounds: expected at least 1 round, got {self.rounds}")
        if len(self.verify_limits) != 2:
            raise ValueError(f"a campaign verifies at two settings, got {len(self.verify_limits)}")
        if len(set(self.tune.openings)) < 2:
            raise ValueError("--book: a campaign needs at least 2 openings (half to tune, half to verify)")
        if self.tune_games < 1:
            raise ValueError(
                f"--max-games: {self.max_games} games over {self.rounds} rounds leave none for the tuning "
                f"once each round's 2 verification SPRTs of up to {self.verify_max_games} games are kept"
            )
        self.round_config(0, dict(self.tune.start))  # a round's tuning run must be one

    @property
    def game(self) -> str:
        """The game tuned."""
        return self.tune.game

    @property
    def round_games(self) -> int:
        """Each round's share of the budget."""
        return self.max_games // self.rounds

    @property
    def tune_games(self) -> int:
        """The game budget of a round's tuning run: its share less its verification SPRTs'."""
        return self.round_games - len(self.verify_limits) * self.verify_max_games

    def round_config(self, round_number: int, start: dict[str, int]) -> TuneConfig:
        """Round ``round_number``'s tuning run, from ``start``: its own seed, the tuning half of the
        book, its budget counting every game (a ValueError when too small)."""
        tuning, _ = split_book(self.tune.openings, self.tune.seed)
        return replace(
            self.tune,
            start=dict(start),
            seed=derive_seed(self.tune.seed, "campaign round", round_number),
            openings=tuning,
            max_games=self.tune_games,
            acceptance_in_budget=True,
            start_source=self.tune.start_source if round_number == 0 else f"round {round_number}'s champion",
        )

    def verify_config(
        self, round_number: int, stage: int, champion: dict[str, int], start: dict[str, int], tag: str
    ) -> SprtConfig:
        """Verification SPRT ``stage`` of round ``round_number``: its champion against its start
        at the stage's setting, on a seed of its own and the verification half of the book."""
        _, verifying = split_book(self.tune.openings, self.tune.seed)
        shown = round_number + 1
        labels = (f"{tag} round {shown} champion", f"{tag} round {shown} start")
        return replace(self.tune, openings=verifying).match_config(
            derive_seed(self.tune.seed, "campaign verify", round_number, stage),
            champion,
            start,
            labels,
            self.verify_limits[stage],
            self.verify_max_games,
        )

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict."""
        return {
            "tune": self.tune.to_json(),
            "rounds": self.rounds,
            "max_games": self.max_games,
            "verify_limits": [limits.to_json() for limits in self.verify_limits],
            "verify_max_games": self.verify_max_games,
            "engine_version": self.tune.engine_version,
            "limits": self.tune.limits.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CampaignConfig:
        """Inverse of :meth:`to_json`."""
        return cls(
            tune=TuneConfig.from_json(data["tune"]),
            rounds=data["rounds"],
            max_games=data["max_games"],
            verify_limits=[engine.Limits.from_json(limits) for limits in data["verify_limits"]],
            verify_max_games=data["verify_max_games"],
        )

    def fingerprint(self) -> str:
        """Equal for campaigns that would play the same games (their tuning's by its own
        fingerprint, which leaves out what probing a program found)."""
        return fingerprint(self.to_json() | {"tune": self.tune.fingerprint()})
