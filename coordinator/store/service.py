"""What ``arbiter server`` keeps about the runs it owns (table ``run_service``): who submitted each,
its priority and throughput, its share of the fleet, a stop asked for, and the lease of whoever
plays it.

A lease is a claim on a run until a time, renewed while the run is played: a server or a terminal
plays a run only while it holds the run's lease, so two of them on one store never play one run
twice. Taking a lease is one conditional UPDATE (free, expired or already ours), atomic on SQLite
and PostgreSQL alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.engine import Connection

from coordinator.runs import RunKind, RunState
from coordinator.store.rows import ServiceRow, given, now
from coordinator.store.runs import RunStore, clip_worker
from coordinator.store.schema import run_service

#: Largest priority and throughput a run may be given.
MAX_PRIORITY = 9
MAX_THROUGHPUT = 1000


def service_from_row(row: Any) -> ServiceRow:
    """The value of one ``run_service`` row."""
    return ServiceRow(
        run_id=int(row.run_id),
        owner=row.owner,
        priority=int(row.priority),
        throughput=int(row.throughput),
        share=None if row.share is None else float(row.share),
        held=bool(row.held),
        lease_holder=row.lease_holder,
        lease_until=row.lease_until,
        webhooks=tuple(json.loads(row.webhooks)) if row.webhooks else (),
        notified=bool(row.notified),
        deleted=bool(row.deleted),
        submitted_at=row.submitted_at,
        approval=row.approval,
        approved_by=row.approved_by,
    )


class ServiceStore(RunStore):
    """The server's rows of its runs, and the leases of runs being played."""

    def create_served_run(
        self,
        kind: RunKind,
        game: str,
        config: dict[str, Any],
        fingerprint: str,
        owner: str | None,
        priority: int,
        throughput: int,
        webhooks: Sequence[str],
        approval: str = "approved",
    ) -> int:
        """A new queued run with its service row, in one transaction (a server's pass never sees
        the run without its owner or its approval); its id."""
        with self.transaction() as c:
            run_id = self._insert_run(c, kind, game, config, fingerprint, RunState.QUEUED)
            self._enroll(c, run_id, owner, priority, throughput, webhooks)
            c.execute(update(run_service).where(run_service.c.run_id == run_id).values(approval=approval))
            return run_id

    def set_approval(self, run_id: int, approval: str, by: str | None = None) -> None:
        """Where ``run_id`` stands with the approvers (and who approved it)."""
        with self.transaction() as c:
            self._enroll(c, run_id)
            c.execute(
                update(run_service)
                .where(run_service.c.run_id == run_id)
                .values(approval=approval, approved_by=by)
            )

    def _enroll(
        self,
        c: Connection,
        run_id: int,
        owner: str | None = None,
        priority: int = 0,
        throughput: int = 100,
        webhooks: Sequence[str] = (),
    ) -> None:
        """Give ``run_id`` its service row within ``c`` (kept as it is when it has one)."""
        if c.execute(select(run_service.c.run_id).where(run_service.c.run_id == run_id)).first() is None:
            c.execute(
                insert(run_service).values(
                    run_id=run_id,
                    owner=owner,
                    priority=priority,
                    throughput=throughput,
                    webhooks=json.dumps(list(webhooks)) if webhooks else None,
                    submitted_at=now(),
                )
            )

    def service(self, run_id: int) -> ServiceRow | None:
        """The service row of ``run_id``, or None."""
        with self.engine.connect() as c:
            row = c.execute(select(run_service).where(run_service.c.run_id == run_id)).first()
        return None if row is None else service_from_row(row)

    def services(self) -> dict[int, ServiceRow]:
        """Every service row, by run."""
        with self.engine.connect() as c:
            return {int(r.run_id): service_from_row(r) for r in c.execute(select(run_service))}

    def update_service(
        self,
        run_id: int,
        *,
        priority: int | None = None,
        throughput: int | None = None,
        held: bool | None = None,
        deleted: bool | None = None,
    ) -> None:
        """Change what is given (the row is made first when the run has none)."""
        values = given(priority=priority, throughput=throughput, held=held, deleted=deleted)
        with self.transaction() as c:
            self._enroll(c, run_id)
            if values:
                c.execute(update(run_service).where(run_service.c.run_id == run_id).values(**values))

    def set_shares(self, shares: Mapping[int, float]) -> None:
        """The part of the fleet each run in ``shares`` gets now; every other run gets none."""
        with self.transaction() as c:
            c.execute(
                update(run_service)
                .where(run_service.c.share.is_not(None), run_service.c.run_id.not_in(list(shares)))
                .values(share=None)
            )
            for run_id, share in shares.items():
                c.execute(update(run_service).where(run_service.c.run_id == run_id).values(share=share))

    def share(self, run_id: int) -> float | None:
        """The part of the fleet ``run_id`` gets now (None: no share set)."""
        with self.engine.connect() as c:
            value = c.execute(select(run_service.c.share).where(run_service.c.run_id == run_id)).scalar()
        return None if value is None else float(value)

    # leases -------------------------------------------------------------------------------------

    def take_lease(self, run_id: int, holder: str, seconds: float, replacing: str | None = None) -> bool:
        """Claim ``run_id`` for ``holder`` for ``seconds``: True when it was free, expired,
        ``holder``'s already, or ``replacing``'s (a holder known to be dead); False when someone
        else holds it."""
        holder = clip_worker(holder) or ""
        mine = [holder] if replacing is None else [holder, clip_worker(replacing) or ""]
        stamp = now()
        with self.transaction() as c:
            self._enroll(c, run_id)
            taken = c.execute(
                update(run_service)
                .where(
                    run_service.c.run_id == run_id,
                    or_(
                        run_service.c.lease_holder.is_(None),
                        run_service.c.lease_holder.in_(mine),
                        run_service.c.lease_until < stamp,
                    ),
                )
                .values(lease_holder=holder, lease_until=stamp + timedelta(seconds=seconds))
            )
            return bool(taken.rowcount)

    def renew_leases(self, holder: str, run_ids: Iterable[int], seconds: float) -> set[int]:
        """Extend ``holder``'s leases of ``run_ids``; the runs whose lease it still held."""
        holder = clip_worker(holder) or ""
        ids = list(run_ids)
        if not ids:
            return set()
        stamp = now()
        with self.transaction() as c:
            c.execute(
                update(run_service)
                .where(run_service.c.run_id.in_(ids), run_service.c.lease_holder == holder)
                .values(lease_until=stamp + timedelta(seconds=seconds))
            )
            rows = c.execute(
                select(run_service.c.run_id).where(
                    run_service.c.run_id.in_(ids), run_service.c.lease_holder == holder
                )
            )
            return {int(r.run_id) for r in rows}

    def release_lease(self, run_id: int, holder: str) -> None:
        """Give up ``holder``'s lease of ``run_id`` (nothing when another holds it)."""
        holder = clip_worker(holder) or ""
        with self.transaction() as c:
            c.execute(
                update(run_service)
                .where(run_service.c.run_id == run_id, run_service.c.lease_holder == holder)
                .values(lease_holder=None, lease_until=None)
            )

    def lease_holder(self, run_id: int) -> str | None:
        """Who holds an unexpired lease of ``run_id`` now, or None."""
        with self.engine.connect() as c:
            row = c.execute(
                select(run_service.c.lease_holder).where(
                    and_(run_service.c.run_id == run_id, run_service.c.lease_until >= now())
                )
            ).first()
        return None if row is None else row.lease_holder

    def mark_notified(self, run_id: int) -> bool:
        """Record that the end of ``run_id`` was announced: True for the first caller only."""
        with self.transaction() as c:
            self._enroll(c, run_id)
            done = c.execute(
                update(run_service)
                .where(run_service.c.run_id == run_id, run_service.c.notified.is_(False))
                .values(notified=True)
            )
            return bool(done.rowcount)

    def reset_notified(self, run_id: int) -> None:
        """A resumed run announces its next end again."""
        with self.transaction() as c:
            c.execute(update(run_service).where(run_service.c.run_id == run_id).values(notified=False))
