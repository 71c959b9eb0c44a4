"""Replaying a worker's game records through the rules core: the check every result must pass.

A record counts only if its moves are legal from its opening and its stated result and reason are
exactly how the rules or the run's adjudication end that game (a win by the rules, the ply limit,
a threefold repetition, bare lions). A resignation cannot be seen in the moves; it is accepted
only where the run allows resigning, and the spot checks prove it.
"""

from __future__ import annotations

from collections.abc import Callable

import engine
from worker.protocol import BatchPayload, BatchResult, GameRecord

#: Decides whether a well-formed result's games are true; raises ValueError naming what is not.
ResultCheck = Callable[[BatchPayload, BatchResult], None]


def check_record(game: str, record: GameRecord, adjudication: dict[str, object], name: str) -> None:
    """ValueError unless ``record`` replays legally to its stated result and reason."""
    try:
        replayed = engine.replay_game(game, record.opening, record.moves, adjudication)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    stated = f"{record.result} ({record.reason})"
    if replayed["reason"] is None:
        if record.reason == "resign" and adjudication.get("resign_score") is not None:
            return
        raise ValueError(
            f"{name}: the game has not ended after {replayed['plies']} plies, yet it says {stated}"
        )
    actual = f"{replayed['result']} ({replayed['reason']})"
    if actual != stated:
        raise ValueError(f"{name}: the moves end the game {actual}, yet it says {stated}")


def replay_check(payload: BatchPayload, result: BatchResult) -> None:
    """Replay every record of ``result`` (see :func:`check_record`)."""
    for i, record in enumerate(result.games):
        check_record(payload.game, record, payload.adjudication, f"games[{i}]")
