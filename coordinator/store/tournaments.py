"""The pairings of tournaments: which engines play each batch of a run of kind ``tournament``."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, insert, select

from coordinator.store.connection import Database
from coordinator.store.schema import tournament_batches


class TournamentStore(Database):
    """Each tournament batch's two engines, by name."""

    def record_pairings(self, run_id: int, pairings: Sequence[tuple[str, str]]) -> None:
        """Record that batch ``i`` of ``run_id`` plays ``pairings[i]`` (candidate, baseline),
        once: a run that has them already (a resumed one) keeps what it has."""
        with self.transaction() as c:
            known = c.execute(
                select(func.count())
                .select_from(tournament_batches)
                .where(tournament_batches.c.run_id == run_id)
            ).scalar()
            if known:
                return
            c.execute(
                insert(tournament_batches),
                [
                    {"run_id": run_id, "batch_index": i, "candidate": first, "baseline": second}
                    for i, (first, second) in enumerate(pairings)
                ],
            )

    def pairings(self, run_id: int) -> dict[int, tuple[str, str]]:
        """Batch index to (candidate, baseline) names of a tournament (empty for other runs)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(
                    tournament_batches.c.batch_index,
                    tournament_batches.c.candidate,
                    tournament_batches.c.baseline,
                )
                .where(tournament_batches.c.run_id == run_id)
                .order_by(tournament_batches.c.batch_index)
            ).all()
        return {int(r[0]): (str(r[1]), str(r[2])) for r in rows}
