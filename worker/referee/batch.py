"""A batch's game pairs between two engine programs: each opening twice, colours reversed.

Both engines stay alive across the games (``ucinewgame`` between them); a side whose engine
faulted is started again for its next game. Every wait is bounded, so a batch always ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import engine
from wire.progress import Report
from wire.protocol import PAIR_COLORS, Color, GameRecord
from worker.referee.game import PlayedGame, play_game
from worker.referee.player import EnginePlayer


@dataclass(frozen=True)
class PairedGame:
    """A game of a batch and the colour the candidate played in it."""

    candidate_color: Color
    game: PlayedGame
    timed: bool = False

    def record(self) -> GameRecord:
        return self.game.record(self.candidate_color, self.timed)


def play_pairs(
    candidate: EnginePlayer,
    baseline: EnginePlayer,
    game: str,
    openings: Sequence[str],
    limits: engine.Limits | Callable[[int], engine.Limits],
    adjudication: engine.Adjudication | None = None,
    progress: Report | None = None,
) -> list[PairedGame]:
    """Plays each opening twice, the candidate white first, in order: two games per pair.

    ``limits`` is the same for every pair, or a function of the pair's index (a node limit that
    varies per pair, as ``worker.games.pair_limits`` makes it); ``progress`` is told the games
    played after each one. The engines are left running for the caller to close.
    """
    played: list[PairedGame] = []
    for pair, opening in enumerate(openings):
        pair_limits = limits(pair) if callable(limits) else limits
        for color in PAIR_COLORS:
            white, black = (candidate, baseline) if color is Color.WHITE else (baseline, candidate)
            game_played = play_game(white, black, game, opening, pair_limits, adjudication)
            played.append(PairedGame(color, game_played, timed=not pair_limits.deterministic))
            if progress is not None:
                progress(len(played))
    return played
