"""Resignation from the engines' own scores, judged as ``engine.play_game`` judges it (play.rs).

With ``resign_score`` set, a game ends as a resignation once both sides' last reported scores
agree, for ``resign_plies`` consecutive plies, that one side is behind by at least that many
centipawns. A side that reported no score for its last move agrees with nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from worker.referee.uci import SearchInfo


def score_of(info: SearchInfo) -> int | None:
    """The move's score in centipawns for the side to move; a mate in n moves counts as the
    search's own mate score (MATE_SCORE less the plies), so it is past any resign threshold."""
    if info.score_cp is not None:
        return info.score_cp
    if info.score_mate is None:
        return None
    mate = info.score_mate
    return engine.MATE_SCORE - (2 * mate - 1) if mate > 0 else -(engine.MATE_SCORE - 2 * -mate)


class ResignWatch:
    """Tracks both sides' last scores (from White's point of view) and the agreeing streak."""

    def __init__(self, adjudication: Mapping[str, Any] | None) -> None:
        settings = adjudication or {}
        self.threshold: int | None = settings.get("resign_score")
        self.plies = max(1, int(settings.get("resign_plies") or 0))
        self._white_view: dict[str, int | None] = {"white": None, "black": None}
        self._streak = 0

    def resigns(self, side: str, info: SearchInfo) -> str | None:
        """After ``side``'s search that reported ``info``, and before its move is played: the
        result ("1-0" or "0-1") if the game ends by resignation, else None."""
        if self.threshold is None:
            return None
        score = score_of(info)
        self._white_view[side] = None if score is None else (score if side == "white" else -score)
        views = self._white_view.values()
        threshold = self.threshold

        def agree(sign: int) -> bool:
            return all(v is not None and sign * v >= threshold for v in views)

        self._streak = self._streak + 1 if agree(1) or agree(-1) else 0
        if self._streak < self.plies:
            return None
        return "1-0" if (self._white_view["white"] or 0) > 0 else "0-1"
