"""The games of a run for the dashboard: a page of them at a time, and one game found by its place
(match run, batch, game number), both read through :func:`coordinator.reports.games.iter_games`
(the counted games, as ``arbiter games`` exports them)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from coordinator.reports.games import ExportedGame, GameFilter, iter_games, match_runs
from coordinator.store import Run, Store
from wire.protocol import move_list
from wire.tally import candidate_score

#: Games on one page of a run's games.
PER_PAGE = 50


@contextmanager
def streamed(games: Iterator[ExportedGame]) -> Iterator[Iterator[ExportedGame]]:
    """``games``, closed when the block ends (so its database connection goes back at once, even
    when only the first few games were read)."""
    try:
        yield games
    finally:
        if isinstance(games, Generator):
            games.close()


def counted_games(store: Store, run: Run) -> int:
    """The games ``run`` counted (a tuning run: all of its match runs')."""
    return sum(store.totals(match.id).games for match in match_runs(store, run))


def games_page(store: Store, run: Run, wanted: GameFilter, page: int) -> tuple[list[ExportedGame], bool]:
    """The games of page ``page`` (from 1), and whether another page follows. A page past the
    run's counted games is empty at once (nothing is read); an unfiltered page reads its own
    batches only."""
    start = (page - 1) * PER_PAGE
    if start >= counted_games(store, run):
        return [], False
    with streamed(iter_games(store, run, wanted, skip=start)) as games:
        chunk = list(islice(games, PER_PAGE + 1))
    return chunk[:PER_PAGE], len(chunk) > PER_PAGE


def find_game(store: Store, run: Run, batch: int, number: int) -> ExportedGame | None:
    """Game ``number`` of batch ``batch`` of the match run ``run``, if counted."""
    with streamed(iter_games(store, run, GameFilter(batch=batch))) as games:
        return next((g for g in games if g.game_number == number), None)


def game_url(game: ExportedGame) -> str:
    """The page of one game."""
    return f"/runs/{game.run.id}/games/{game.batch_index}/{game.game_number}"


def outcome(record: dict[str, Any]) -> str:
    """``win``, ``draw`` or ``loss``, from the candidate's side."""
    score = candidate_score(record["result"], record["candidate_color"])
    return {1.0: "win", 0.5: "draw", 0.0: "loss"}[score]


def moves_of(record: dict[str, Any]) -> list[str]:
    """The moves of a stored record, one by one."""
    return move_list(record["moves"])


def game_json(game: ExportedGame) -> dict[str, Any]:
    """One game as the JSON answers give it: where it comes from, and the stored record as it is."""
    return {
        "run": game.run.id,
        "batch": game.batch_index,
        "game": game.game_number,
        "worker": game.worker,
        "stored_at": game.stored_at.isoformat(timespec="seconds"),
        "outcome": outcome(game.record),
        "record": game.record,
        "fault": game.fault,
        "url": game_url(game),
    }
