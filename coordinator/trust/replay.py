"""Replaying a worker's game records through the rules core: the check every result must pass.

A record counts only if its moves are legal from its opening and its stated result and reason are
exactly how the rules or the run's adjudication end that game (a win by the rules, the ply limit,
a threefold repetition, bare lions). A resignation cannot be seen in the moves; it is accepted
only where the run allows resigning, and the spot checks prove it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import engine
from worker.protocol import BatchPayload, BatchResult, GameRecord

#: Decides whether a well-formed result's games are true; raises ValueError naming what is not.
ResultCheck = Callable[[BatchPayload, BatchResult], None]


def check_records(game: str, records: Sequence[GameRecord], adjudication: engine.Adjudication) -> None:
    """ValueError unless every record replays legally to its stated result and reason (all of
    them in one call to the rules core)."""
    replayed = engine.replay_games(game, [(r.opening, r.moves) for r in records], adjudication)
    for i, (record, (result, reason, plies, error)) in enumerate(zip(records, replayed, strict=True)):
        name = f"games[{i}]"
        if error is not None:
            raise ValueError(f"{name}: {error}")
        stated = f"{record.result} ({record.reason})"
        if reason is None:
            if record.reason == "resign" and adjudication.resign_score is not None:
                continue
            raise ValueError(f"{name}: the game has not ended after {plies} plies, yet it says {stated}")
        actual = f"{result} ({reason})"
        if actual != stated:
            raise ValueError(f"{name}: the moves end the game {actual}, yet it says {stated}")


def replay_check(payload: BatchPayload, result: BatchResult) -> None:
    """Replay every record of ``result`` (see :func:`check_records`)."""
    check_records(payload.game, result.games, payload.adjudication)
