"""Results and game records: stored once per (run, batch), tallied, streamed, and discarded with
their worker when it is quarantined."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import and_, bindparam, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from coordinator.runs import BatchState
from coordinator.store.connection import Database
from coordinator.store.rows import BatchGames, Quarantine, StoredResult, Totals, now, result_from_row
from coordinator.store.runs import clip_worker
from coordinator.store.schema import (
    PENTANOMIAL_COLUMNS,
    WDL_COLUMNS,
    batch_games,
    batches,
    quarantines,
    results,
    runs,
)
from wire.protocol import RECORD_FIELDS, BatchResult, ResultReport
from wire.tally import tally

#: Batches of game records read from the database at a time while streaming them.
STREAM_BATCHES = 16
#: What the fields added to a record since 0.1.0 (budgets, times) hold in a record stored before.
_ADDED_FIELDS = ("", "")


def stored_record(values: list[Any]) -> dict[str, Any]:
    """A record kept as an array (in :data:`RECORD_FIELDS` order) as its JSON object; an array
    stored before the per-move fields existed gets them empty."""
    if len(values) < len(RECORD_FIELDS):
        values = [*values, *_ADDED_FIELDS[: len(RECORD_FIELDS) - len(values)]]
    return dict(zip(RECORD_FIELDS, values, strict=True))


@dataclass(frozen=True)
class CheckedResult:
    """A result whose records the coordinator checked, as the store keeps it: what the worker
    reported, the counts tallied from the records, and the records as a JSON array of arrays (in
    :data:`RECORD_FIELDS` order). Made by ``coordinator.trust.answers.check_answer``."""

    report: ResultReport
    pentanomial: list[int]
    wdl: list[int]
    records: str

    @property
    def game_count(self) -> int:
        """Games in the batch."""
        return len(self.report.games)

    @classmethod
    def tallied(cls, result: BatchResult) -> CheckedResult:
        """A result made here (by a test, a tool, a stand-in engine) as the store keeps it, the
        counts tallied from its records; ValueError for an odd number of records."""
        pentanomial, wdl = tally(result.games)
        report = ResultReport(**{**vars(result), "games": [g.to_json() for g in result.games]})
        return cls(report, pentanomial, wdl, orjson.dumps(result.games, default=tuple).decode())


def result_details(report: ResultReport) -> str | None:
    """What a result reports beside its games, as stored (None when there is nothing): each
    fault with its kind (the end reason of its game, checked by the replay), the time factor,
    and the engines' identities."""
    details: dict[str, Any] = {}
    if report.faults:
        games = report.games
        details["faults"] = [fault | {"kind": games[fault["game"]]["reason"]} for fault in report.faults]
    if report.time_factor != 1.0:
        details["time_factor"] = report.time_factor
    if report.engines:
        details["engines"] = report.engines
    return json.dumps(details) if details else None


def _fault_reasons(details: dict[str, Any]) -> dict[int, str]:
    """The full reason of each game lost by a fault, by game number, from a result's details."""
    faults = details.get("faults", [])
    return {int(f["game"]): str(f["reason"]) for f in faults if "game" in f and "reason" in f}


#: The statements :meth:`ResultStore.record_result` runs once per batch, built once (building one
#: costs more than running it on SQLite).
_INSERT_RESULT = insert(results)
_INSERT_GAMES = insert(batch_games)
_MARK_DONE = (
    update(batches)
    .where(batches.c.run_id == bindparam("b_run"), batches.c.batch_index == bindparam("b_index"))
    .values(state=BatchState.DONE, worker=bindparam("b_worker"), updated_at=bindparam("b_stamp"))
)


class ResultStore(Database):
    """The checked results of a store's runs, their game records and the quarantined workers."""

    def record_result(self, run_id: int, batch_index: int, checked: CheckedResult) -> bool:
        """Store a checked result, its game records and the batch's ``done`` state together.

        The counts stored are those tallied from the checked records, never the worker's claim.
        Returns False (and changes nothing) when the batch already has a result: each (run, batch)
        is stored, and so counted, at most once.
        """
        report = checked.report
        stamp = now()
        worker = clip_worker(report.worker)
        try:
            with self.transaction() as c:  # a second result for the batch breaks the key: IntegrityError
                c.execute(
                    _INSERT_RESULT,
                    {
                        "run_id": run_id,
                        "batch_index": batch_index,
                        **dict(zip(PENTANOMIAL_COLUMNS, checked.pentanomial, strict=True)),
                        **dict(zip(WDL_COLUMNS, checked.wdl, strict=True)),
                        "nodes": json.dumps(report.nodes),
                        "cpu_seconds": report.cpu_seconds,
                        "worker": worker,
                        "engine_version": report.engine_version,
                        "created_at": stamp,
                        "details": result_details(report),
                    },
                )
                c.execute(
                    _INSERT_GAMES, {"run_id": run_id, "batch_index": batch_index, "games": checked.records}
                )
                c.execute(
                    _MARK_DONE,
                    {"b_run": run_id, "b_index": batch_index, "b_worker": worker, "b_stamp": stamp},
                )
        except IntegrityError:  # another writer stored the same batch first
            return False
        return True

    def results(self, run_id: int) -> list[StoredResult]:
        """Every stored result of a run, in batch order (counted or not)."""
        query = select(results).where(results.c.run_id == run_id).order_by(results.c.batch_index)
        with self.engine.connect() as c:
            return [result_from_row(row) for row in c.execute(query)]

    def result(self, run_id: int, batch_index: int) -> StoredResult | None:
        """The stored result of one batch, or None."""
        query = select(results).where(results.c.run_id == run_id, results.c.batch_index == batch_index)
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return result_from_row(row) if row is not None else None

    def totals(self, run_id: int, counted_batches: int | None = None) -> Totals:
        """Counts summed over batches ``0 .. counted_batches - 1`` (default: the run's counted prefix)."""
        with self.engine.connect() as c:
            if counted_batches is None:
                counted_batches = (
                    c.execute(select(runs.c.counted_batches).where(runs.c.id == run_id)).scalar() or 0
                )
            columns = [*PENTANOMIAL_COLUMNS, *WDL_COLUMNS, "cpu_seconds"]
            row = c.execute(
                select(
                    *[func.coalesce(func.sum(results.c[col]), 0) for col in columns],
                    func.count(),
                ).where(results.c.run_id == run_id, results.c.batch_index < counted_batches)
            ).one()
        values = list(row)
        return Totals(
            pentanomial=[int(v) for v in values[0:5]],
            wdl=[int(v) for v in values[5:8]],
            batches=int(values[9]),
            cpu_seconds=float(values[8]),
        )

    def game_counts(self, run_id: int, below: int) -> list[tuple[int, int]]:
        """(batch, games) of every stored result below batch ``below``, in batch order: where a
        run's games lie, read from the counts alone (no record is decoded)."""
        games = results.c.wins + results.c.draws + results.c.losses
        query = (
            select(results.c.batch_index, games)
            .where(results.c.run_id == run_id, results.c.batch_index < below)
            .order_by(results.c.batch_index)
        )
        with self.engine.connect() as c:
            return [(int(index), int(count)) for index, count in c.execute(query)]

    def game_records(self, run_id: int, batch_index: int | None = None) -> list[dict[str, Any]]:
        """Game records of a run (or one batch), in batch and game order."""
        return [
            record for batch in self.iter_batch_games(run_id, batch=batch_index) for record in batch.records
        ]

    def iter_batch_games(
        self,
        run_id: int,
        *,
        below: int | None = None,
        batch: int | None = None,
        worker: str | None = None,
        start: int | None = None,
    ) -> Iterator[BatchGames]:
        """The stored games of a run batch by batch, in batch order, streamed (one batch in memory
        at a time): of the batches below ``below`` (the counted prefix, say) and from ``start``
        on, or only ``batch``, or only ``worker``'s."""
        query = (
            select(
                batch_games.c.batch_index,
                batch_games.c.games,
                results.c.worker,
                results.c.created_at,
                results.c.details,
            )
            .join(
                results,
                and_(
                    results.c.run_id == batch_games.c.run_id,
                    results.c.batch_index == batch_games.c.batch_index,
                ),
            )
            .where(batch_games.c.run_id == run_id)
            .order_by(batch_games.c.batch_index)
        )
        if below is not None:
            query = query.where(batch_games.c.batch_index < below)
        if start is not None:
            query = query.where(batch_games.c.batch_index >= start)
        if batch is not None:
            query = query.where(batch_games.c.batch_index == batch)
        if worker is not None:
            query = query.where(results.c.worker == worker)
        with self.engine.connect() as c:
            for row in c.execution_options(yield_per=STREAM_BATCHES).execute(query):
                records = [stored_record(record) for record in orjson.loads(row.games)]
                details = orjson.loads(row.details) if row.details else {}
                yield BatchGames(
                    row.batch_index,
                    row.worker,
                    row.created_at,
                    records,
                    _fault_reasons(details),
                    float(details.get("time_factor", 1.0)),
                )

    def quarantine_worker(self, run_id: int, worker: str, reason: str) -> list[int]:
        """Discard every result ``worker`` gave ``run_id`` (their batches go back to ``pending``)
        and record why, in one transaction; the batches discarded, in order. Once per worker."""
        worker = clip_worker(worker) or worker  # stored names are clipped; match them so
        stamp = now()
        with self.transaction() as c:
            known = c.execute(
                select(quarantines.c.worker).where(
                    quarantines.c.run_id == run_id, quarantines.c.worker == worker
                )
            ).first()
            if known is not None:
                return []
            mine = and_(results.c.run_id == run_id, results.c.worker == worker)
            lost = sorted(int(i) for i in c.execute(select(results.c.batch_index).where(mine)).scalars())
            if lost:
                c.execute(
                    delete(batch_games).where(
                        batch_games.c.run_id == run_id, batch_games.c.batch_index.in_(lost)
                    )
                )
                c.execute(delete(results).where(mine))
                c.execute(
                    update(batches)
                    .where(batches.c.run_id == run_id, batches.c.batch_index.in_(lost))
                    .values(state=BatchState.PENDING, refusal=f"discarded: {reason}", updated_at=stamp)
                )
            c.execute(
                insert(quarantines).values(
                    run_id=run_id, worker=worker, reason=reason, discarded_batches=len(lost), created_at=stamp
                )
            )
        return lost

    def quarantines(self, run_id: int) -> list[Quarantine]:
        """The workers quarantined in a run, oldest first."""
        query = select(quarantines).where(quarantines.c.run_id == run_id).order_by(quarantines.c.created_at)
        with self.engine.connect() as c:
            return [
                Quarantine(r.worker, r.reason, r.discarded_batches, r.created_at) for r in c.execute(query)
            ]
