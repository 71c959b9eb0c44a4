"""Runs and their batches: created, found, updated, sent, refused, released."""

from __future__ import annotations

import importlib
import json
import secrets
from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection

from coordinator.runs import UNFINISHED, BatchState, RunKind, RunState
from coordinator.store.connection import Database
from coordinator.store.rows import Refusal, Run, given, now, run_from_row
from coordinator.store.schema import batches, refusal_log, runs

#: Longest worker name stored (``String(255)``: PostgreSQL refuses longer strings, SQLite does not).
MAX_WORKER_COLUMN = 255
#: The dialects whose INSERT ... ON CONFLICT marks a batch sent in one statement (each imported
#: only by a store of its kind: PostgreSQL's costs a SQLite command 40 ms of its start-up).
UPSERT_DIALECTS = frozenset({"sqlite", "postgresql"})


@cache
def _upsert_batch(dialect: str) -> Any:
    """The statement marking a batch sent in one upsert on ``dialect`` (None where there is none),
    built once: a batch not ``done`` yet is sent again (its attempts counted), a done one is left."""
    if dialect not in UPSERT_DIALECTS:
        return None
    statement = importlib.import_module(f"sqlalchemy.dialects.{dialect}").insert(batches)
    return statement.on_conflict_do_update(
        index_elements=[batches.c.run_id, batches.c.batch_index],
        set_={
            "state": BatchState.RUNNING,
            "attempts": batches.c.attempts + 1,
            "updated_at": statement.excluded.updated_at,
        },
        where=batches.c.state != BatchState.DONE,
    ).returning(batches.c.attempts)


def clip_worker(worker: str | None) -> str | None:
    """A worker name short enough for its column (names come from workers, which may lie)."""
    return None if worker is None else str(worker)[:MAX_WORKER_COLUMN]


class RunStore(Database):
    """The runs of a store and the state of their batches."""

    def create_run(
        self,
        kind: RunKind,
        game: str,
        config: dict[str, Any],
        fingerprint: str,
        state: RunState = RunState.RUNNING,
    ) -> int:
        """Insert a new run in ``state`` (``queued`` for a server's); its id."""
        with self.transaction() as c:
            return self._insert_run(c, kind, game, config, fingerprint, state)

    def _insert_run(
        self,
        c: Connection,
        kind: RunKind,
        game: str,
        config: dict[str, Any],
        fingerprint: str,
        state: RunState,
    ) -> int:
        """Insert a new run within the transaction ``c``; its id."""
        stamp = now()
        inserted = c.execute(
            insert(runs).values(
                kind=kind,
                game=game,
                config=json.dumps(config, sort_keys=True),
                fingerprint=fingerprint,
                state=state,
                counted_batches=0,
                created_at=stamp,
                updated_at=stamp,
                check_key=secrets.token_hex(32),
            )
        )
        key = inserted.inserted_primary_key
        assert key is not None
        return int(key[0])

    def check_key(self, run_id: int) -> bytes:
        """The secret that chooses which of the run's batches are spot-checked, made on first use
        (runs stored before it existed get one when resumed). Never sent to a worker."""
        with self.transaction() as c:
            key = c.execute(select(runs.c.check_key).where(runs.c.id == run_id)).scalar()
            if key is None:
                key = secrets.token_hex(32)
                c.execute(
                    update(runs).where(runs.c.id == run_id, runs.c.check_key.is_(None)).values(check_key=key)
                )
                key = c.execute(select(runs.c.check_key).where(runs.c.id == run_id)).scalar()
        return bytes.fromhex(str(key))

    def get_run(self, run_id: int) -> Run | None:
        """The run with ``run_id``, or None."""
        with self.engine.connect() as c:
            row = c.execute(select(runs).where(runs.c.id == run_id)).first()
        return run_from_row(row) if row is not None else None

    def list_runs(self, kind: RunKind | None = None) -> list[Run]:
        """All runs (of ``kind`` if given), oldest first."""
        query = select(runs).order_by(runs.c.id)
        if kind is not None:
            query = query.where(runs.c.kind == kind)
        with self.engine.connect() as c:
            return [run_from_row(row) for row in c.execute(query)]

    def open_runs(self, kinds: Sequence[RunKind]) -> list[Run]:
        """The unfinished runs of ``kinds``, oldest first."""
        query = select(runs).where(runs.c.state.in_(sorted(UNFINISHED)), runs.c.kind.in_(list(kinds)))
        with self.engine.connect() as c:
            return [run_from_row(row) for row in c.execute(query.order_by(runs.c.id))]

    def find_unfinished(self, kind: RunKind, fingerprint: str) -> Run | None:
        """The latest running or interrupted run with this configuration fingerprint, if any."""
        return self._latest(kind, fingerprint, sorted(UNFINISHED))

    def find_same(self, kind: RunKind, fingerprint: str, finished_too: bool = False) -> Run | None:
        """The run a command or a submission with this configuration fingerprint takes up: the
        latest unfinished one, else (``finished_too``) the latest finished one; None for a new one.
        A failed run is never taken up again."""
        found = self.find_unfinished(kind, fingerprint)
        if found is not None or not finished_too:
            return found
        return self._latest(kind, fingerprint, [RunState.FINISHED])

    def _latest(self, kind: RunKind, fingerprint: str, states: Sequence[RunState]) -> Run | None:
        """The latest run of ``kind`` with this configuration fingerprint in one of ``states``."""
        query = (
            select(runs)
            .where(runs.c.kind == kind, runs.c.fingerprint == fingerprint, runs.c.state.in_(list(states)))
            .order_by(runs.c.id.desc())
        )
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return run_from_row(row) if row is not None else None

    def update_run(
        self,
        run_id: int,
        *,
        state: RunState | None = None,
        counted_batches: int | None = None,
        decision: str | None = None,
        error: str | None = None,
        finished: bool = False,
    ) -> None:
        """Change a run's state / counted prefix / decision in one transaction; ``finished``: the
        run ends here (``finished_at`` set, unless it is set already)."""
        if state is not None and state not in set(RunState):
            raise ValueError(f"state: unknown run state {state!r}")
        values = given(
            updated_at=now(),
            state=None if state is None else RunState(state),
            counted_batches=counted_batches,
            decision=decision,
            error=error,
        )
        # A run finished already keeps its time (showing it again re-finishes it); any other
        # change (a resumption) clears it.
        values["finished_at"] = func.coalesce(runs.c.finished_at, values["updated_at"]) if finished else None
        with self.transaction() as c:
            c.execute(update(runs).where(runs.c.id == run_id).values(**values))

    def set_playing(self, run_id: int, games: int) -> None:
        """Record the games a run's batches in flight have played, as their workers say (shown
        apart from the counted ones). Not a change of the run: its ``updated_at`` stays (a
        dashboard rebuilds a report only when that changes)."""
        with self.transaction() as c:
            c.execute(update(runs).where(runs.c.id == run_id).values(playing=games))

    # batches ----------------------------------------------------------------------------------

    def start_batch(self, run_id: int, batch_index: int, payload_digest: str, seed: int) -> int:
        """Mark a batch as sent (inserting it on first use); the number of attempts so far. One
        statement (an upsert) on SQLite and PostgreSQL: it runs once per batch sent.

        What was sent is kept as the digest of the payload's text (``payload_digest``, the one
        every sealed answer binds) and its seed, not as its openings: those follow from the run's
        stored configuration and the batch's index (``BatchPlan.payload``), and the digest proves
        which payload that was."""
        stamp = now()
        values = {
            "run_id": run_id,
            "batch_index": batch_index,
            "payload_digest": payload_digest,
            "seed": seed,
            "state": BatchState.RUNNING,
            "attempts": 1,
            "updated_at": stamp,
        }
        with self.transaction() as c:
            upsert = _upsert_batch(c.dialect.name)
            if upsert is not None:
                attempts = c.execute(upsert, values).scalar()
                if attempts is not None:
                    return int(attempts)
            # Built only where it is needed: building it took near half the CPU of a call.
            key = (batches.c.run_id == run_id) & (batches.c.batch_index == batch_index)
            if upsert is None:
                row = c.execute(select(batches.c.attempts).where(key)).first()
                if row is None:
                    c.execute(insert(batches).values(**values))
                    return 1
                again = {"state": BatchState.RUNNING, "attempts": batches.c.attempts + 1, "updated_at": stamp}
                c.execute(update(batches).where(key, batches.c.state != BatchState.DONE).values(**again))
            return int(c.execute(select(batches.c.attempts).where(key)).scalar() or 0)

    def refuse_batch(self, run_id: int, batch_index: int, reason: str, worker: str | None = None) -> None:
        """Record that a batch's answer was refused (or its work failed), with the reason and the
        worker it came from (None: it names nobody)."""
        stamp = now()
        with self.transaction() as c:
            c.execute(
                update(batches)
                .where(batches.c.run_id == run_id, batches.c.batch_index == batch_index)
                .where(batches.c.state != BatchState.DONE)
                .values(
                    state=BatchState.REFUSED, refusal=reason, worker=clip_worker(worker), updated_at=stamp
                )
            )
            c.execute(
                insert(refusal_log).values(
                    run_id=run_id,
                    batch_index=batch_index,
                    worker=clip_worker(worker),
                    reason=reason,
                    created_at=stamp,
                )
            )

    def refusals_by_worker(self, run_id: int) -> dict[str | None, int]:
        """How many answers of each worker were refused in a run (None: those that named nobody)."""
        query = (
            select(refusal_log.c.worker, func.count())
            .where(refusal_log.c.run_id == run_id)
            .group_by(refusal_log.c.worker)
        )
        with self.engine.connect() as c:
            return {worker: int(count) for worker, count in c.execute(query)}

    def release_batches(self, run_id: int) -> None:
        """Put a run's batches still marked ``running`` back to ``pending`` (their work was dropped)."""
        with self.transaction() as c:
            c.execute(
                update(batches)
                .where(batches.c.run_id == run_id, batches.c.state == BatchState.RUNNING)
                .values(state=BatchState.PENDING, updated_at=now())
            )

    def refusals(self, run_id: int) -> list[Refusal]:
        """Batches of a run that had a result refused, with the last reason."""
        query = (
            select(batches.c.batch_index, batches.c.attempts, batches.c.state, batches.c.refusal)
            .where(batches.c.run_id == run_id, batches.c.refusal.is_not(None))
            .order_by(batches.c.batch_index)
        )
        with self.engine.connect() as c:
            return [Refusal(r.batch_index, r.attempts, r.state, r.refusal) for r in c.execute(query)]

    def batch_attempts(self, run_id: int, batch_index: int) -> int:
        """How many times a batch was sent (0 if never)."""
        query = select(batches.c.attempts).where(
            batches.c.run_id == run_id, batches.c.batch_index == batch_index
        )
        with self.engine.connect() as c:
            value = c.execute(query).scalar()
        return int(value or 0)
