"""What every kind's report data is: frozen dataclasses, built once from the store and read by
attribute by every renderer (terminal, HTML, plots, dashboard), with one JSON form.

A report's JSON form (``arbiter report --json``, the dashboard's API) is its fields in order, by
name: :class:`JsonData` gives every part of a report that ``to_json``, and a part whose JSON is
shaped otherwise (a key only some reports have, counts spread into their parent) overrides it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from coordinator.registry import kind_of
from coordinator.runs import decision_label
from coordinator.store import Run


@runtime_checkable
class ToJson(Protocol):
    """A value with a JSON form of its own (a part of a report, a campaign's chain)."""

    def to_json(self) -> dict[str, Any]:
        """The value as JSON data."""
        ...


def jsonable(value: object) -> Any:
    """``value`` as JSON data: a value by its own ``to_json``, containers item by item."""
    if isinstance(value, ToJson):
        return value.to_json()
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


class JsonData:
    """A part of a report (a frozen dataclass): its JSON form is its fields in order, by name."""

    def to_json(self) -> dict[str, Any]:
        """The part as JSON data."""
        assert is_dataclass(self), type(self)
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


class ReportData(Protocol):
    """What the generic code reads of any kind's report data: the run it is of, its
    "unverifiable" line (``coordinator.trust.verifiable``; None: verifiable) and its JSON form."""

    @property
    def run(self) -> RunInfo:
        """The run's identity and where it stands."""
        ...

    @property
    def unverifiable(self) -> str | None:
        """One line saying the run is unverifiable, and why; None when it is verifiable."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data (what ``arbiter report --json`` prints)."""
        ...


def iso(stamp: datetime | None) -> str | None:
    """An ISO time stamp (UTC, no zone, as the store keeps them), or None."""
    return stamp.isoformat(timespec="seconds") if stamp is not None else None


@dataclass(frozen=True)
class RunInfo(JsonData):
    """The run's identity and where it stands."""

    id: int
    kind: str
    game: str
    state: str
    decision: str | None
    #: The decision in words (None for a kind that does not decide).
    decision_label: str | None
    error: str | None
    created_at: str | None
    updated_at: str | None
    finished_at: str | None
    engine_version: str | None
    #: The run it belongs to (a tuning run's match run), or None.
    parent: int | None
    #: Games of batches in flight, played but not counted yet.
    playing: int

    @classmethod
    def of(cls, run: Run, parent: int | None = None) -> RunInfo:
        """``run`` as the store has it now (``parent``: the run it belongs to)."""
        return cls(
            id=run.id,
            kind=str(run.kind),
            game=run.game,
            state=str(run.state),
            decision=run.decision,
            decision_label=decision_label(run.decision) if kind_of(run.kind).decides else None,
            error=run.error,
            created_at=iso(run.created_at),
            updated_at=iso(run.updated_at),
            finished_at=iso(run.finished_at),
            engine_version=run.engine_version,
            parent=parent,
            playing=run.playing,
        )


def run_info(run: Run, parent: int | None = None) -> dict[str, Any]:
    """:class:`RunInfo` of ``run`` as JSON data (the runs list's rows, and the reports not yet
    typed)."""
    return RunInfo.of(run, parent).to_json()


__all__ = ["JsonData", "ReportData", "RunInfo", "ToJson", "iso", "jsonable", "run_info"]
