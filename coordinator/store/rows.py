"""What the store hands out: one frozen value per kind of row or summary, decoded from its columns."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, TypeVar

from coordinator.runs import RunKind, RunState
from coordinator.store.schema import PENTANOMIAL_COLUMNS, WDL_COLUMNS

#: A kind's configuration type.
C = TypeVar("C")


def now() -> datetime:
    """The current UTC time without tzinfo (portable across SQLite and PostgreSQL)."""
    return datetime.now(UTC).replace(tzinfo=None)


def given(**values: Any) -> dict[str, Any]:
    """The columns an update sets: those of ``values`` given (None leaves a column as it is)."""
    return {column: value for column, value in values.items() if value is not None}


@dataclass(frozen=True)
class Run:
    """One row of ``runs``: its configuration as stored (``config``, JSON) and as its kind reads it
    (:attr:`settings`)."""

    id: int
    kind: RunKind
    game: str
    config: dict[str, Any]
    fingerprint: str
    state: RunState
    counted_batches: int
    decision: str | None
    error: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    #: Games its batches in flight have played, as their workers say (a claim: never counted);
    #: 0 unless it is running.
    playing: int = 0

    @property
    def engine_version(self) -> str | None:
        """The engine version the run plays (every kind's configuration names it), read without
        decoding the configuration: a run of another version may not decode here."""
        version = self.config.get("engine_version")
        return version if isinstance(version, str) else None

    @cached_property
    def settings(self) -> Any:
        """The run's typed configuration, decoded once by its kind (``SprtConfig``,
        ``TuneConfig``, ...); a ValueError, TypeError or KeyError when this arbiter cannot read it."""
        from coordinator.registry import kind_of

        return kind_of(self.kind).decode(self.config)

    def settings_as(self, config_type: type[C]) -> C:
        """:attr:`settings`, which must be a ``config_type`` (a TypeError for a run of another
        kind)."""
        config = self.settings
        if not isinstance(config, config_type):
            raise TypeError(f"run {self.id} is a {self.kind} run, not one of a {config_type.__name__}")
        return config


@dataclass(frozen=True)
class Account:
    """One account of a server (its password hash never leaves the server)."""

    id: int
    name: str
    role: str
    state: str
    created_at: datetime
    password_hash: str = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "state": self.state,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(frozen=True)
class TokenRow:
    """One API token of an account, as its owner sees it (never the token itself)."""

    id: int
    label: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        def iso(d: datetime | None) -> str | None:
            return None if d is None else d.isoformat()

        return {
            "id": self.id,
            "label": self.label,
            "created_at": iso(self.created_at),
            "last_used_at": iso(self.last_used_at),
            "revoked_at": iso(self.revoked_at),
        }


@dataclass(frozen=True)
class AuditEntry:
    """One line of who did what."""

    id: int
    at: datetime
    actor: str
    action: str
    run_id: int | None
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at.isoformat(),
            "actor": self.actor,
            "action": self.action,
            "run_id": self.run_id,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class ServiceRow:
    """What ``arbiter server`` keeps about one run (``run_service``; see ``store.service``)."""

    run_id: int
    owner: str | None
    priority: int
    throughput: int
    share: float | None
    held: bool
    lease_holder: str | None
    lease_until: datetime | None
    webhooks: tuple[str, ...]
    notified: bool
    deleted: bool
    submitted_at: datetime
    approval: str = "approved"
    approved_by: str | None = None


@dataclass(frozen=True)
class StoredResult:
    """The counts of one stored result."""

    batch_index: int
    pentanomial: list[int]
    wdl: list[int]
    cpu_seconds: float


@dataclass(frozen=True)
class Totals:
    """Counts summed over the counted batches of a run."""

    pentanomial: list[int]
    wdl: list[int]
    batches: int
    cpu_seconds: float

    @property
    def games(self) -> int:
        """Number of games counted."""
        return sum(self.wdl)


@dataclass(frozen=True)
class BatchGames:
    """The stored games of one batch, with the worker that played them and when they came in."""

    batch_index: int
    worker: str | None
    stored_at: datetime
    records: list[dict[str, Any]]
    #: The full reason of each game an engine program lost by a fault, by game number
    #: (``crashed: exit status 11`` where the record's reason is ``crash``).
    faults: dict[int, str] = field(default_factory=dict)
    #: The factor the worker scaled the run's time limits by (its speed; 1 for untimed games).
    time_factor: float = 1.0


@dataclass(frozen=True)
class Quarantine:
    """A worker whose results a run no longer believes, and why."""

    worker: str
    reason: str
    discarded_batches: int
    created_at: datetime


@dataclass(frozen=True)
class Refusal:
    """A batch that a result was refused for, and why."""

    batch_index: int
    attempts: int
    state: str
    reason: str


@dataclass(frozen=True)
class Activity:
    """How far some runs have got: results stored for them, and their latest change of state.
    Two equal activities mean nothing a report shows has changed (a cheap check for live pages)."""

    results: int
    counted_batches: int
    updated_at: datetime | None


@dataclass(frozen=True)
class WorkerTotals:
    """What one worker gave the store: stored results (batches), their games and CPU time, the runs
    they belong to, its answers that were refused, and when it last stored a result."""

    worker: str
    runs: int
    batches: int
    games: int
    cpu_seconds: float
    refused: int
    last_seen: datetime | None


@dataclass(frozen=True)
class WorkerStanding:
    """What the store's trust checks hold against one worker: its refused answers, and the runs it
    is quarantined from."""

    refusals: int
    quarantined: tuple[int, ...]


@dataclass(frozen=True)
class WorkerRefusal:
    """One answer of a worker that was refused: the batch, why, and when."""

    run_id: int
    batch_index: int
    reason: str
    created_at: datetime


@dataclass(frozen=True)
class WorkerBatch:
    """One batch a worker handled last: where it stands, and the result it stored, if any."""

    run_id: int
    batch_index: int
    state: str
    attempts: int
    refusal: str | None
    updated_at: datetime
    games: int | None
    cpu_seconds: float | None
    stored_at: datetime | None


def run_from_row(row: Any) -> Run:
    """Decode a ``runs`` row."""
    return Run(
        id=row.id,
        kind=RunKind(row.kind),
        game=row.game,
        config=json.loads(row.config),
        fingerprint=row.fingerprint,
        state=RunState(row.state),
        counted_batches=row.counted_batches,
        decision=row.decision,
        error=row.error,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
        playing=row.playing if row.state == RunState.RUNNING else 0,
    )


def result_from_row(row: Any) -> StoredResult:
    """Decode a ``results`` row."""
    return StoredResult(
        batch_index=row.batch_index,
        pentanomial=[getattr(row, col) for col in PENTANOMIAL_COLUMNS],
        wdl=[getattr(row, col) for col in WDL_COLUMNS],
        cpu_seconds=row.cpu_seconds,
    )
