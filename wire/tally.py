"""Counting games: a record's score for the candidate, and the pentanomial and W/D/L counts of
records taken two by two as game pairs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import add, attrgetter, itemgetter
from typing import Any

from wire.protocol import RESULTS, Color, GameRecord


def candidate_score(result: str, candidate_color: str) -> float:
    """The candidate's score (1, 0.5 or 0) in a game with ``result`` where it played ``candidate_color``."""
    return _SCORES[result, candidate_color]


#: The candidate's score by (result, candidate colour: a member and its text are the same key).
_SCORES: dict[tuple[str, str], float] = {
    (result, color): 0.5 if result == "1/2-1/2" else float((result == "1-0") == (color is Color.WHITE))
    for result in RESULTS
    for color in Color
}


def tally(records: Sequence[Mapping[str, Any] | GameRecord]) -> tuple[list[int], list[int]]:
    """Pentanomial ``[LL, LD, DD+WL, WD, WW]`` and ``[W, D, L]`` of records taken two by two as
    pairs; ValueError for an odd number of records. (Each count is one pass in C over the
    batch: the coordinator tallies tens of thousands of records a second.)"""
    if len(records) % 2:
        raise ValueError(f"games: expected whole pairs, got {len(records)} records")
    keys: Iterable[tuple[str, str]] = (
        map(_RESULT_AND_COLOR, records)
        if all(map(isinstance, records, repeat(GameRecord)))
        else (
            _RESULT_AND_COLOR(r) if isinstance(r, GameRecord) else _RESULT_AND_COLOR_KEYS(r) for r in records
        )
    )
    scores = list(map(_SCORES.__getitem__, keys))
    pairs = list(map(add, scores[0::2], scores[1::2]))
    return [pairs.count(total) for total in _PAIR_TOTALS], [scores.count(score) for score in _WDL_SCORES]


#: A record's (result, candidate colour): of a :class:`GameRecord`, and of its JSON object.
_RESULT_AND_COLOR = attrgetter("result", "candidate_color")
_RESULT_AND_COLOR_KEYS = itemgetter("result", "candidate_color")
#: A pair's total score in pentanomial order, and a game's score in W/D/L order.
_PAIR_TOTALS = (0.0, 0.5, 1.0, 1.5, 2.0)
_WDL_SCORES = (1.0, 0.5, 0.0)
