"""A tournament's counted games as rated games: who had white, who had black, white's score, and
the game pair each belongs to (so that the ratings can count pairs as pairs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coordinator.ratings import RatedGame
from coordinator.store import Run, Store

#: White's score by a record's result.
WHITE_SCORE = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}


#: Told each record read and its sides' engine names (``{"candidate": ..., "baseline": ...}``).
OnRecord = Callable[[dict[str, Any], Mapping[str, str]], None]


def rated_games(store: Store, run: Run, on_record: OnRecord | None = None) -> list[RatedGame]:
    """The games of ``run``'s counted batches, in batch and game order, each named by the engines
    that played it (the store's pairings); the two games of an opening share a pair number.
    ``on_record`` sees every record on the way (a report's other figures, in the same pass)."""
    pairings = store.pairings(run.id)
    games: list[RatedGame] = []
    pair = 0
    for batch in store.iter_batch_games(run.id, below=run.counted_batches):
        candidate, baseline = pairings[batch.batch_index]
        names = {"candidate": candidate, "baseline": baseline}
        for number, record in enumerate(batch.records):
            if on_record is not None:
                on_record(record, names)
            white, black = (
                (candidate, baseline) if record["candidate_color"] == "white" else (baseline, candidate)
            )
            games.append(RatedGame(white, black, WHITE_SCORE[record["result"]], pair + number // 2))
        pair += (len(batch.records) + 1) // 2
    return games
