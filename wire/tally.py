"""Counting games: a record's score for the candidate, and the pentanomial and W/D/L counts of
records taken two by two as game pairs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wire.protocol import RESULTS, Color, GameRecord


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
