"""What the dashboard asks of a store about its fleet: how far runs have got, and each worker's
results, refusals and batches."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import and_, func, or_, select

from coordinator.store.connection import Database
from coordinator.store.rows import Activity, WorkerBatch, WorkerRefusal, WorkerStanding, WorkerTotals
from coordinator.store.schema import (
    TUNING_TABLES,
    batch_games,
    batches,
    quarantines,
    refusal_log,
    results,
    runs,
)

#: Worker names per query of :meth:`FleetStore.standing` (under every backend's bound on parameters).
STANDING_CHUNK = 500


class FleetStore(Database):
    """Read-only queries over runs and workers (the dashboard's)."""

    def games_since(self, run_ids: Sequence[int], since: datetime) -> int:
        """Games of results of ``run_ids`` stored since ``since``."""
        ids = list(run_ids)
        if not ids:
            return 0
        total = results.c.wins + results.c.draws + results.c.losses
        with self.engine.connect() as c:
            found = c.execute(
                select(func.coalesce(func.sum(total), 0)).where(
                    results.c.run_id.in_(ids), results.c.created_at >= since
                )
            ).scalar()
        return int(found or 0)

    def ping(self) -> None:
        """Raise unless the store answers a query (a health check)."""
        with self.engine.connect() as c:
            c.execute(select(runs.c.id).limit(1)).all()

    def activity(self, run_ids: Sequence[int]) -> Activity:
        """Results stored for the runs ``run_ids``, their counted batches and latest change."""
        ids = list(run_ids)
        with self.engine.connect() as c:
            counted, latest = c.execute(
                select(func.coalesce(func.sum(runs.c.counted_batches), 0), func.max(runs.c.updated_at)).where(
                    runs.c.id.in_(ids)
                )
            ).one()
            stored = c.execute(
                select(func.count()).select_from(results).where(results.c.run_id.in_(ids))
            ).scalar()
        return Activity(results=int(stored or 0), counted_batches=int(counted), updated_at=latest)

    def workers(self) -> list[WorkerTotals]:
        """Every worker that stored a result or had one refused, by name."""
        games = results.c.wins + results.c.draws + results.c.losses
        stored = (
            select(
                results.c.worker,
                func.count(func.distinct(results.c.run_id)).label("runs"),
                func.count().label("batches"),
                func.coalesce(func.sum(games), 0).label("games"),
                func.coalesce(func.sum(results.c.cpu_seconds), 0.0).label("cpu"),
                func.max(results.c.created_at).label("last_seen"),
            )
            .where(results.c.worker.is_not(None))
            .group_by(results.c.worker)
        )
        refused = (
            select(refusal_log.c.worker, func.count().label("refused"))
            .where(refusal_log.c.worker.is_not(None))
            .group_by(refusal_log.c.worker)
        )
        with self.engine.connect() as c:
            rows = {r.worker: r for r in c.execute(stored)}
            refusals = {r.worker: int(r.refused) for r in c.execute(refused)}
        out = []
        for name in sorted(set(rows) | set(refusals)):
            r = rows.get(name)
            out.append(
                WorkerTotals(
                    worker=name,
                    runs=int(r.runs) if r else 0,
                    batches=int(r.batches) if r else 0,
                    games=int(r.games) if r else 0,
                    cpu_seconds=float(r.cpu) if r else 0.0,
                    refused=refusals.get(name, 0),
                    last_seen=r.last_seen if r else None,
                )
            )
        return out

    def standing(self, names: Iterable[str]) -> dict[str, WorkerStanding]:
        """The refused answers and quarantines of each worker of ``names`` (every name gets one)."""
        wanted = sorted(set(names))
        refused: dict[str, int] = {}
        held: dict[str, list[int]] = {}
        with self.engine.connect() as c:
            for start in range(0, len(wanted), STANDING_CHUNK):
                chunk = wanted[start : start + STANDING_CHUNK]
                counted = (
                    select(refusal_log.c.worker, func.count().label("refused"))
                    .where(refusal_log.c.worker.in_(chunk))
                    .group_by(refusal_log.c.worker)
                )
                refused.update((r.worker, int(r.refused)) for r in c.execute(counted))
                quarantined = select(quarantines.c.worker, quarantines.c.run_id).where(
                    quarantines.c.worker.in_(chunk)
                )
                for r in c.execute(quarantined):
                    held.setdefault(r.worker, []).append(int(r.run_id))
        return {
            name: WorkerStanding(refused.get(name, 0), tuple(sorted(held.get(name, ())))) for name in wanted
        }

    def worker_refusals(self, worker: str, limit: int | None = None) -> list[WorkerRefusal]:
        """The answers of ``worker`` that were refused, newest first."""
        query = (
            select(refusal_log)
            .where(refusal_log.c.worker == worker)
            .order_by(refusal_log.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [WorkerRefusal(r.run_id, r.batch_index, r.reason, r.created_at) for r in c.execute(query)]

    def worker_runs(self, worker: str) -> list[int]:
        """The runs ``worker`` stored a result for or handled a batch of, newest first."""
        query = (
            select(batches.c.run_id)
            .where(batches.c.worker == worker)
            .union(select(results.c.run_id).where(results.c.worker == worker))
        )
        with self.engine.connect() as c:
            return sorted((int(i) for i in c.execute(query).scalars()), reverse=True)

    def worker_batches(self, worker: str, limit: int | None = None, offset: int = 0) -> list[WorkerBatch]:
        """The batches ``worker`` handled last or stored the result of, latest change first."""
        joined = batches.outerjoin(
            results,
            and_(results.c.run_id == batches.c.run_id, results.c.batch_index == batches.c.batch_index),
        )
        query = (
            select(
                batches.c.run_id,
                batches.c.batch_index,
                batches.c.state,
                batches.c.attempts,
                batches.c.refusal,
                batches.c.updated_at,
                (results.c.wins + results.c.draws + results.c.losses).label("games"),
                results.c.cpu_seconds,
                results.c.created_at.label("stored_at"),
            )
            .select_from(joined)
            .where(or_(batches.c.worker == worker, results.c.worker == worker))
            .order_by(batches.c.updated_at.desc(), batches.c.run_id.desc(), batches.c.batch_index.desc())
            .offset(offset)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [WorkerBatch(**r._mapping) for r in c.execute(query)]  # columns named as its fields

    def row_counts(self) -> dict[str, int]:
        """Rows per table (for checks that a failed command left the store unchanged)."""
        with self.engine.connect() as c:
            return {
                table.name: int(c.execute(select(func.count()).select_from(table)).scalar() or 0)
                for table in (runs, batches, results, batch_games, refusal_log, quarantines, *TUNING_TABLES)
            }
