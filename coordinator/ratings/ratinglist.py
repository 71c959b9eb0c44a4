"""A rating list: the fitted ratings with their error bars, LOS matrix and head-to-head scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from coordinator.ratings.headtohead import HeadToHead


@dataclass(frozen=True)
class Rating:
    """One engine's rating; ``error`` is the half-width of its confidence interval, in Elo.

    The interval is relative to the anchor (the anchor engine's own is 0), or to the mean of all
    ratings. ``games``, ``points`` and ``draws`` count its real games (not the prior's).
    """

    name: str
    elo: float
    error: float
    games: int
    points: float
    draws: int


@dataclass(frozen=True)
class RatingList:
    """Ratings of every engine, best first, and what they were fitted with.

    ``los[a, b]`` is the likelihood of superiority: the probability that ``a`` is stronger than
    ``b``, for every ordered pair of different engines (``los[a, b] + los[b, a] == 1``).
    ``head_to_head[a, b]`` are ``a``'s results against ``b``, for every ordered pair that met.
    """

    ratings: tuple[Rating, ...]
    anchor: str | None
    anchor_elo: float
    confidence: float
    model: str
    white_advantage: float
    draw_elo: float | None
    los: Mapping[tuple[str, str], float]
    head_to_head: Mapping[tuple[str, str], HeadToHead]
    white_advantage_error: float = 0.0
    prior: float = 0.0

    def rating(self, name: str) -> Rating:
        """The rating of engine ``name`` (KeyError if it is not on the list)."""
        for rating in self.ratings:
            if rating.name == name:
                return rating
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """The list as plain JSON values; pairs keyed ``first`` then ``second`` (nested objects)."""
        los: dict[str, dict[str, float]] = {}
        for (a, b), p in self.los.items():
            los.setdefault(a, {})[b] = p
        head: dict[str, dict[str, dict[str, Any]]] = {}
        for (a, b), h in self.head_to_head.items():
            head.setdefault(a, {})[b] = {
                "wins": h.wins,
                "draws": h.draws,
                "losses": h.losses,
                "pentanomial": list(h.pentanomial) if h.pentanomial is not None else None,
            }
        return {
            "model": self.model,
            "anchor": self.anchor,
            "anchor_elo": self.anchor_elo,
            "confidence": self.confidence,
            "prior": self.prior,
            "white_advantage": self.white_advantage,
            "white_advantage_error": self.white_advantage_error,
            "draw_elo": self.draw_elo,
            "ratings": [
                {
                    "name": r.name,
                    "elo": r.elo,
                    "error": r.error,
                    "games": r.games,
                    "points": r.points,
                    "draws": r.draws,
                }
                for r in self.ratings
            ],
            "los": los,
            "head_to_head": head,
        }
