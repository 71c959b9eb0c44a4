"""The store: runs, batches, results and game records behind one SQLAlchemy URL.

Everything a run needs to be resumed or reported lives here, so that killing the coordinator at any
moment loses nothing. Every write is one transaction; a result, its game records (one row per
batch) and its batch's state change commit together. Results are keyed by (run, batch): a second
result for the same batch (a redelivery, a duplicate, a second coordinator) is ignored, so each
batch counts at most once.

Which results count is decided by the SPRT runner: the contiguous prefix of batches ``0 ..
counted_batches - 1`` of a run. Totals are always computed from the stored results of that prefix.

The package: ``schema`` (every table), ``migrations`` (the schema's versions, upgraded in place),
``connection`` (opening a store: SQLite, PostgreSQL, read-only connections), ``rows`` (the values
handed out), and the queries by subject: ``runs``, ``results``, ``fleet`` (the dashboard's),
``programs``, ``tournaments`` (which engines play each batch of a tournament), ``service``
(what ``arbiter server`` keeps about the runs it owns, and leases).
"""

from __future__ import annotations

from coordinator.store.accounts import AccountStore
from coordinator.store.connection import read_only_connections, schema_lock
from coordinator.store.fleet import FleetStore
from coordinator.store.programs import ProgramStore
from coordinator.store.results import ResultStore
from coordinator.store.rows import (
    Activity,
    BatchGames,
    Quarantine,
    Refusal,
    Run,
    ServiceRow,
    StoredResult,
    Totals,
    WorkerBatch,
    WorkerRefusal,
    WorkerStanding,
    WorkerTotals,
    now,
)
from coordinator.store.service import ServiceStore
from coordinator.store.tournaments import TournamentStore
from coordinator.store.urls import DEFAULT_URL, STORE_ENV, engine_url, mask_url, store_url


class Store(ServiceStore, ResultStore, FleetStore, ProgramStore, TournamentStore, AccountStore):
    """Transactional access to the runs, batches, results and game records of one URL."""


__all__ = [
    "DEFAULT_URL",
    "STORE_ENV",
    "Activity",
    "BatchGames",
    "Quarantine",
    "Refusal",
    "Run",
    "ServiceRow",
    "Store",
    "StoredResult",
    "Totals",
    "WorkerBatch",
    "WorkerRefusal",
    "WorkerStanding",
    "WorkerTotals",
    "engine_url",
    "mask_url",
    "now",
    "read_only_connections",
    "schema_lock",
    "store_url",
]
