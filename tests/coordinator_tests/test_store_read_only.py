"""A store opened read-only (what ``arbiter serve`` reads through), on SQLite and PostgreSQL: it
reads what a writer stored, the database itself refuses every write on its connections, it creates
no table, takes no lock and never blocks the coordinator writing beside it; inside
``read_only_connections()`` other engines (Optuna's) are read-only too."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from pg_testkit import StoreUrls
from sprt_testkit import batch_result
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.exc import SQLAlchemyError

from coordinator.runs import RunKind, RunState
from coordinator.store import Store, engine_url, read_only_connections, schema_lock
from coordinator.store.results import CheckedResult
from coordinator.tuning.records import TuningRecords

#: What SQLite and PostgreSQL say when a connection may not write.
READ_ONLY = r"readonly|read-only"
#: Bound on a thread that must not be blocked (seconds).
JOIN_TIMEOUT = 20.0


def filled_store(url: str) -> tuple[Store, int]:
    """A writable store with one run of two stored batches (one counted), from two workers."""
    store = Store(url)
    run_id = store.create_run(RunKind.SPRT, "congo", {"game": "congo"}, "f" * 64)
    for index, worker in ((0, "alpha:1"), (1, "beta:2")):
        store.start_batch(run_id, index, "0" * 64, seed=index)
        assert store.record_result(
            run_id, index, CheckedResult.tallied(batch_result([0, 1, 2, 1, 0], worker=worker))
        )
    store.refuse_batch(run_id, 2, "beta:2: counts do not add up", worker="beta:2")
    store.update_run(run_id, counted_batches=1)
    return store, run_id


def test_reads_what_the_writer_stored_and_cannot_write(store_urls: StoreUrls) -> None:
    url = store_urls()
    writer, run_id = filled_store(url)
    before = writer.row_counts()
    reader = Store(url, read_only=True)
    try:
        assert reader.get_run(run_id) == writer.get_run(run_id)
        assert reader.totals(run_id) == writer.totals(run_id)
        assert reader.game_records(run_id) == writer.game_records(run_id)
        activity = reader.activity([run_id])
        assert (activity.results, activity.counted_batches) == (2, 1)
        assert activity.updated_at == writer.get_run(run_id).updated_at  # type: ignore[union-attr]
        assert {w.worker: (w.batches, w.games, w.refused) for w in reader.workers()} == {
            "alpha:1": (1, 8, 0),
            "beta:2": (1, 8, 1),
        }
        assert [(r.batch_index, r.reason) for r in reader.worker_refusals("beta:2")] == [
            (2, "beta:2: counts do not add up")
        ]
        assert reader.worker_runs("beta:2") == [run_id]
        assert [(b.batch_index, b.games) for b in reader.worker_batches("alpha:1")] == [(0, 8)]
        reader.ping()
        writes: list[Any] = [
            lambda: reader.create_run(RunKind.SPRT, "congo", {}, "0" * 64),
            lambda: reader.update_run(run_id, state=RunState.FAILED),
            lambda: reader.start_batch(run_id, 5, "0" * 64, seed=5),
            lambda: reader.record_result(run_id, 6, CheckedResult.tallied(batch_result([1, 0, 0, 0, 0]))),
            lambda: reader.quarantine_worker(run_id, "alpha:1", "no"),
        ]
        for write in writes:
            with pytest.raises(SQLAlchemyError, match=READ_ONLY):
                write()
        with reader.engine.connect() as c, pytest.raises(SQLAlchemyError, match=READ_ONLY):
            c.execute(text("CREATE TABLE intruder (x INTEGER)"))
    finally:
        reader.close()
    assert writer.row_counts() == before
    assert "intruder" not in inspect(writer.engine).get_table_names()
    writer.close()


def test_an_empty_database_is_refused_and_stays_empty(store_urls: StoreUrls, tmp_path: Path) -> None:
    url = store_urls("empty")
    if url.startswith("sqlite"):
        sqlite3.connect(url.removeprefix("sqlite:///")).close()  # an empty file
    with pytest.raises(ValueError, match="no arbiter store there"):
        Store(url, read_only=True)
    probe = create_engine(engine_url(url))
    assert inspect(probe).get_table_names() == []
    probe.dispose()
    with pytest.raises(FileNotFoundError, match="no store at"):
        Store(f"sqlite:///{tmp_path / 'missing.db'}", read_only=True)
    assert not (tmp_path / "missing.db").exists()


def test_a_reader_creates_no_missing_table(store_urls: StoreUrls) -> None:
    url = store_urls()
    writer, run_id = filled_store(url)
    with writer.transaction() as c:  # a store only SPRTs ever ran on: no tuning tables
        c.execute(text("DROP TABLE tune_trials"))
    reader = Store(url, read_only=True)
    try:
        TuningRecords(reader)  # would create its tables; a reader creates nothing and goes on
        assert reader.get_run(run_id) is not None
    finally:
        reader.close()
    assert "tune_trials" not in inspect(writer.engine).get_table_names()
    writer.close()


def test_a_reader_never_blocks_the_writer(store_urls: StoreUrls) -> None:
    url = store_urls()
    writer, run_id = filled_store(url)
    reader = Store(url, read_only=True)
    try:
        # A read in progress (a game stream half read) while the writer stores and counts more.
        stream = reader.iter_batch_games(run_id)
        assert next(stream).batch_index == 0
        writer.start_batch(run_id, 3, "0" * 64, seed=3)
        assert writer.record_result(run_id, 3, CheckedResult.tallied(batch_result([0, 0, 1, 0, 0])))
        writer.update_run(run_id, counted_batches=2)
        stream.close()
        assert reader.totals(run_id).games == 16

        # The writer holds the schema lock (the write lock, on SQLite): a reader opening the tuning
        # tables must not wait for it.
        opened = threading.Event()

        def open_tuning_tables() -> None:
            TuningRecords(reader).trials(run_id)
            opened.set()

        with schema_lock(writer.engine):
            thread = threading.Thread(target=open_tuning_tables, daemon=True)
            thread.start()
            thread.join(JOIN_TIMEOUT)
            assert opened.is_set(), "the read-only store waited for the writer's schema lock"
    finally:
        reader.close()
        writer.close()


def test_read_only_connections_cover_every_engine(store_urls: StoreUrls) -> None:
    url = store_urls()
    writer, run_id = filled_store(url)
    with read_only_connections():
        other = create_engine(engine_url(url))  # as Optuna opens its own engine from the store URL
        with other.connect() as c:
            assert c.execute(text("SELECT count(*) FROM runs")).scalar() == 1
            with pytest.raises(SQLAlchemyError, match=READ_ONLY):
                c.execute(text("UPDATE runs SET state = 'failed'"))
        other.dispose()
    outside = create_engine(engine_url(url))
    with outside.begin() as c:  # outside the block, connections write as before
        c.execute(text("UPDATE runs SET error = 'checked' WHERE id = :id"), {"id": run_id})
    outside.dispose()
    assert writer.get_run(run_id).error == "checked"  # type: ignore[union-attr]
    writer.close()
