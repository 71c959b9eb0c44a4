"""Replaying a worker's game records through the rules core: the check every result must pass.

A record counts only if its moves are legal from its opening and its stated result and reason are
exactly how the rules or the run's adjudication end that game (a win by the rules, the ply limit,
a threefold repetition, bare lions). What cannot be seen in the moves is accepted only where it
can happen, and the spot checks prove it: a resignation where the run allows resigning, a loss on
time under a time limit, and an engine program's fault (a crash, an illegal move, a hang, a
protocol violation, no answer) where a side is played by a program.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import engine
from wire.protocol import BatchPayload, BatchResult, GameRecord

#: Decides whether a well-formed result's games are true; raises ValueError naming what is not.
ResultCheck = Callable[[BatchPayload, BatchResult], None]


#: What a loss of the side to move must say: by the side to move at the start, and whether an even
#: number of plies was played.
_SIDE_TO_MOVE_LOST = {("w", True): "0-1", ("w", False): "1-0", ("b", True): "1-0", ("b", False): "0-1"}
#: The faults of an engine program (wire.protocol.FaultKind) beyond a loss on time.
PROGRAM_FAULTS = frozenset({"crash", "illegal_move", "hang", "protocol", "no_answer"})
TIME_FORFEIT = "time_forfeit"


def check_records(
    game: str,
    records: Sequence[GameRecord],
    adjudication: engine.Adjudication,
    limits: engine.Limits,
    programs: bool = False,
) -> None:
    """ValueError unless every record replays legally to its stated result and reason (all of
    them in one call to the rules core). A game the moves leave unfinished can only have been
    resigned (where the run allows resigning), lost on time (under a time limit) or lost by an
    engine program's fault (``programs``: a side is played by one), always by the side to move,
    whose time or fault the replay cannot see but whose moves the spot checks do. A program may
    also fail before the first move (starting a game), which loses it the game whatever its
    colour."""
    # The built-in engine loses on time only to a clock; a program also by overstepping movetime.
    forfeits = limits.time_control is not None or (programs and limits.movetime_ms is not None)
    replayed = replay_distinct(game, [(r.opening, r.moves) for r in records], adjudication)
    for i, (record, (result, reason, plies, error)) in enumerate(zip(records, replayed, strict=True)):
        if reason is not None and result == record.result and reason == record.reason:
            continue  # the common case, without a string made (tens of thousands a second)
        name, stated = f"games[{i}]", f"{record.result} ({record.reason})"
        if error is not None:
            raise ValueError(f"{name}: {error}")
        if reason is not None:
            raise ValueError(f"{name}: the moves end the game {result} ({reason}), yet it says {stated}")
        if record.reason == "resign" and adjudication.resign_score is not None:
            continue
        fault = record.reason in PROGRAM_FAULTS and programs
        if not (fault or (record.reason == TIME_FORFEIT and forfeits)):
            raise ValueError(f"{name}: the game has not ended after {plies} plies, yet it says {stated}")
        if fault and plies == 0 and record.result in ("1-0", "0-1"):
            continue
        first = record.opening.rsplit(" ", 1)[-1]
        if record.result != _SIDE_TO_MOVE_LOST.get((first, plies % 2 == 0)):
            raise ValueError(f"{name}: {stated}, yet the side to move after {plies} plies is the other")


def replay_distinct(
    game: str, games: list[tuple[str, str]], adjudication: engine.Adjudication
) -> list[tuple[str | None, str | None, int, str | None]]:
    """``engine.replay_games`` of ``games`` (``(opening, moves)`` each), each distinct game replayed
    once: a replay is a pure function of the game, and close sides often play the same game as
    each other's colour (half the games of a batch at 50 nodes, docs/performance.md)."""
    index: dict[tuple[str, str], int] = {}
    slots = [index.setdefault(g, len(index)) for g in games]
    ends = engine.replay_games(game, list(index), adjudication)
    return ends if len(ends) == len(games) else [ends[slot] for slot in slots]


def replay_check(payload: BatchPayload, result: BatchResult) -> None:
    """Replay every record of ``result`` (see :func:`check_records`)."""
    check_records(payload.game, result.games, payload.adjudication, payload.limits, payload.has_programs)
