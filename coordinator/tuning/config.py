"""The full configuration of a tuning run, stored with the run as JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from coordinator.sprt.config import DEFAULT_ADJUDICATION, SprtConfig, derive_seed, fingerprint


@dataclass(frozen=True)
class TuneConfig:
    """Everything that defines a tuning run (JSON round-trips through :meth:`to_json`)."""

    game: str
    params: list[str]
    start: dict[str, int]
    openings: list[str]
    engine_version: str
    sampler: str = "tpe"
    seed: int = 0
    trial_pairs: int = 32
    batch_pairs: int = 4
    limits: dict[str, int] = field(default_factory=lambda: {"nodes": 1000})
    adjudication: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_ADJUDICATION))
    # A trial is pruned when its LOS against the champion falls below this (see LosPruner).
    prune_los: float = 0.05
    # The full SPRT a promising trial must pass to become champion.
    accept_elo0: float = 0.0
    accept_elo1: float = 5.0
    accept_alpha: float = 0.05
    accept_beta: float = 0.05
    accept_margin: float = 20.0
    accept_max_games: int = 4000
    max_trials: int | None = 50
    max_games: int | None = None
    time_limit: float | None = None
    book: str = ""
    start_source: str = "default"

    def __post_init__(self) -> None:
        """Reject settings no run could use."""
        if self.accept_elo1 <= self.accept_elo0:
            raise ValueError(
                f"--accept-elo1 ({self.accept_elo1}) must be greater than --accept-elo0 ({self.accept_elo0})"
            )
        if not 0 < self.prune_los < 1:
            raise ValueError(f"--prune-los must be between 0 and 1, got {self.prune_los}")
        if self.accept_margin <= 0:
            raise ValueError(f"--accept-margin must be positive, got {self.accept_margin}")
        if not self.params:
            raise ValueError("params: at least one weight must be tuned")
        for name, value in (("trial_pairs", self.trial_pairs), ("batch_pairs", self.batch_pairs)):
            if value < 1:
                raise ValueError(f"{name}: expected a positive number of pairs, got {value}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit: expected a positive number of seconds, got {self.time_limit}")

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TuneConfig:
        """Inverse of :meth:`to_json`."""
        return cls(**data)

    def fingerprint(self) -> str:
        """Equal for runs with the same settings."""
        return fingerprint(self.to_json())

    def _match(
        self,
        kind: str,
        number: int,
        candidate: dict[str, int],
        champion: dict[str, int],
        tag: str,
        **sprt: Any,
    ) -> SprtConfig:
        """A match of trial ``number``'s weights against the champion: the run's game, book,
        limits and batches, with the given SPRT settings and budget, and a seed from ``kind``."""
        return SprtConfig(
            game=self.game,
            candidate=dict(candidate),
            baseline=dict(champion),
            openings=self.openings,
            engine_version=self.engine_version,
            limits=dict(self.limits),
            adjudication=dict(self.adjudication),
            batch_pairs=self.batch_pairs,
            seed=derive_seed(self.seed, kind, number),
            book=self.book,
            candidate_source=f"{tag} trial {number}",
            baseline_source=f"{tag} champion",
            **sprt,
        )

    def trial_config(
        self, number: int, candidate: dict[str, int], champion: dict[str, int], tag: str
    ) -> SprtConfig:
        """A trial: up to ``trial_pairs`` pairs against the champion (the pruner may stop it
        earlier). Its SPRT settings (logistic 0 against the margin) only end it early when it is
        clearly better."""
        return self._match(
            "trial",
            number,
            candidate,
            champion,
            tag,
            elo0=0.0,
            elo1=self.accept_margin,
            elo_model="logistic",
            alpha=0.1,
            beta=0.1,
            max_games=2 * self.trial_pairs,
        )

    def accept_config(
        self, number: int, candidate: dict[str, int], champion: dict[str, int], tag: str
    ) -> SprtConfig:
        """The acceptance SPRT of trial ``number`` against the current champion."""
        return self._match(
            "accept",
            number,
            candidate,
            champion,
            tag,
            elo0=self.accept_elo0,
            elo1=self.accept_elo1,
            elo_model="normalized",
            alpha=self.accept_alpha,
            beta=self.accept_beta,
            max_games=self.accept_max_games,
        )
