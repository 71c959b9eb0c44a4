"""Runs as the dashboard lists them: one JSON row per run (what ``arbiter status`` shows, and the
columns of the runs list), the list's filters and order, and a run's version (a cheap mark that
changes whenever anything its report shows may have changed)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from coordinator.registry import KINDS, kind_of
from coordinator.reports.match import iso, run_info
from coordinator.runs import RunState
from coordinator.store import Run, ServiceRow, Store, now
from coordinator.tuning.records import TuningRecords

#: ``kind`` filter values: a kind, or every run (the list shows the runs people start by default).
KIND_CHOICES = (*(str(k) for k in KINDS), "all")
#: ``approval`` filter values (a server's runs: coordinator.accounts.rules.Approval).
APPROVAL_CHOICES = ("approved", "pending")
STATE_CHOICES = tuple(str(s) for s in RunState)


@dataclass(frozen=True)
class RunFilter:
    """Which runs the list shows (None: any). Without ``kind`` and ``parent``: the runs people
    start (SPRTs, tuning runs and tournaments), like ``arbiter status``."""

    kind: str | None = None
    game: str | None = None
    state: str | None = None
    parent: int | None = None
    #: The submitter of the runs a server plays, and where they stand with its approvers
    #: (applied with the runs' service rows: :meth:`keeps_service`).
    owner: str | None = None
    approval: str | None = None

    def keeps_service(self, service: ServiceRow | None) -> bool:
        """True if a run served as ``service`` says (None: not a server's) passes the filter."""
        if self.owner is not None and (service is None or service.owner != self.owner):
            return False
        return self.approval is None or (service.approval if service else "approved") == self.approval

    def keeps(self, run: Run, parents: dict[int, int]) -> bool:
        """True if ``run`` passes the filter (``parents``: the tuning run of each child run)."""
        if self.parent is not None and parents.get(run.id) != self.parent:
            return False
        if self.kind is None:
            if self.parent is None and not kind_of(run.kind).started_by_user:
                return False
        elif self.kind != "all" and run.kind != self.kind:
            return False
        if self.game is not None and run.game != self.game:
            return False
        return self.state is None or run.state == self.state


def parents_of(store: Store, runs: list[Run]) -> dict[int, int]:
    """The tuning run of every child run (a store that never tuned may lack the tuning tables, and
    a reader creates none, so they are read only when a run needs them)."""
    if not any(kind_of(r.kind).related for r in runs):
        return {}
    return TuningRecords(store).parents()


def listed_runs(store: Store, wanted: RunFilter) -> tuple[list[Run], dict[int, int]]:
    """The runs that pass ``wanted`` (running runs first, then the others, newest first in each),
    and the tuning run of every child run."""
    everything = store.list_runs()
    parents = parents_of(store, everything)
    kept = [r for r in everything if wanted.keeps(r, parents)]
    return sorted(kept, key=lambda r: (r.state is not RunState.RUNNING, -r.id)), parents


def _seconds(run: Run) -> float:
    """How long the run has lasted (until it finished, or until now)."""
    return ((run.finished_at or now()) - run.created_at).total_seconds()


def run_row(store: Store, run: Run, parent: int | None) -> dict[str, Any]:
    """One run as the list and the live part of its page show it (JSON data); ``parent``: the
    tuning run it belongs to."""
    row: dict[str, Any] = run_info(run, parent) | {"seconds": _seconds(run), "url": f"/runs/{run.id}"}
    try:
        return row | kind_of(run.kind).row(store, run)
    except (KeyError, TypeError, ValueError) as e:  # a configuration this arbiter cannot read
        return row | {"games": None, "problem": f"cannot read the run's configuration: {e}"}


def report_row(run: Run, data: dict[str, Any]) -> dict[str, Any]:
    """One run as its page's live line shows it, read from the report ``data`` the page shows
    below it (not from the store again, which may have moved on since the report was built), so
    that the line and the report never disagree; but for the games still playing, which are not
    in any report (the run's own, read now: they move without the report changing)."""
    row = dict(data["run"]) | {"seconds": _seconds(run), "url": f"/runs/{run.id}", "playing": run.playing}
    return row | kind_of(run.kind).report_row(data)


def run_version(store: Store, run: Run) -> str:
    """A mark of everything ``run``'s report is made of: its state, and the stored results,
    counted batches and latest change of it and (a tuning run) of every one of its match runs."""
    ids = [run.id] + [m.id for m in kind_of(run.kind).match_runs(store, run) if m.id != run.id]
    a = store.activity(ids)
    mark = f"{run.state}|{run.decision}|{len(ids)}|{a.results}|{a.counted_batches}|{iso(a.updated_at)}"
    return hashlib.sha256(mark.encode()).hexdigest()[:16]


def is_final(run: Run) -> bool:
    """True when nothing will change the run any more (it finished or failed)."""
    return run.state in (RunState.FINISHED, RunState.FAILED)
