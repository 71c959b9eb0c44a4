"""The store on SQLite and on a real PostgreSQL server: what differs between the two databases.

Column widths (63-bit seeds, worker names a worker chose), concurrent writers of one batch (the
loser's IntegrityError), coordinators creating the tables of an empty database together (the schema
lock), Optuna's study in the same database, URLs without a driver, and passwords never printed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import optuna
import pytest
from celery_testkit import free_port
from pg_testkit import PostgresServer, StoreUrls
from sprt_testkit import batch_result, run_cli
from sqlalchemy import inspect, select

import engine
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store, engine_url, mask_url
from coordinator.store.results import CheckedResult
from coordinator.store.schema import batches
from coordinator.tuning.records import TuningRecords
from coordinator.tuning.tuner import optuna_storage

START = engine.Position.start("congo").fen()
#: Threads that race in the concurrency tests.
RACERS = 4
#: Bound on a racing thread (seconds).
JOIN_TIMEOUT = 60.0


def race(target: Callable[[int], Any], count: int = RACERS) -> list[Any]:
    """Run ``target(i)`` in ``count`` threads released together; their results (errors re-raised)."""
    barrier = threading.Barrier(count, timeout=JOIN_TIMEOUT)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
        assert not thread.is_alive(), "a racing thread did not finish"
    if errors:
        raise errors[0]
    return results


def test_63_bit_seeds_and_long_worker_names_are_stored(store_urls: StoreUrls) -> None:
    store = Store(store_urls())
    try:
        run_id = store.create_run("sprt", "congo", {"seed": 1}, "f" * 64)
        seed = 2**63 - 1  # derive_seed's largest
        store.start_batch(run_id, 0, "0" * 64, seed)
        store.refuse_batch(run_id, 0, "wdl: wrong", worker="w" * 300)  # a worker may claim any name
        store.start_batch(run_id, 1, "0" * 64, seed - 1)
        assert store.record_result(
            run_id, 1, CheckedResult.tallied(batch_result([0, 0, 1, 0, 0], worker="x" * 300))
        )
        with store.engine.connect() as c:
            rows = c.execute(select(batches.c.seed, batches.c.worker).order_by(batches.c.batch_index)).all()
        assert [r.seed for r in rows] == [seed, seed - 1]
        assert [r.worker for r in rows] == ["w" * 255, "x" * 255]
    finally:
        store.close()


def test_concurrent_writers_store_a_batch_once(store_urls: StoreUrls) -> None:
    """Four coordinators' stores record the same batch at the same moment: one wins, the others
    get False (on PostgreSQL through the unique key's IntegrityError), nothing is stored twice."""
    url = store_urls()
    stores = [Store(url) for _ in range(RACERS)]
    try:
        run_id = stores[0].create_run("sprt", "congo", {"seed": 1}, "f" * 64)
        stores[0].start_batch(run_id, 0, "0" * 64, 5)
        won = race(
            lambda i: stores[i].record_result(run_id, 0, CheckedResult.tallied(batch_result([0, 0, 0, 1, 0])))
        )
        assert sorted(won) == [False] * (RACERS - 1) + [True]
        counts = stores[0].row_counts()
        assert counts["results"] == 1 and counts["batch_games"] == 1
        assert len(stores[0].game_records(run_id)) == 2
    finally:
        for store in stores:
            store.close()


def test_coordinators_opening_an_empty_database_together(store_urls: StoreUrls) -> None:
    """The store's tables, the tuning tables and Optuna's, created by four openers at once."""
    url = store_urls()

    def open_everything(i: int) -> str:
        store = Store(url)
        try:
            TuningRecords(store)
            study = optuna.create_study(
                study_name=f"race-{i}", storage=optuna_storage(url, store.engine), direction="maximize"
            )
            return study.study_name
        finally:
            store.close()

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    assert sorted(race(open_everything)) == [f"race-{i}" for i in range(RACERS)]
    store = Store(url)
    try:
        tables = set(inspect(store.engine).get_table_names())
    finally:
        store.close()
    # arbiter's tables and Optuna's live side by side in the one database.
    assert {"runs", "batches", "results", "batch_games", "tune_trials", "champions"} <= tables
    assert {"studies", "trials", "trial_values"} <= tables


@pytest.mark.slow
def test_plain_postgresql_url_means_psycopg_and_status_masks_the_password(
    pg_server: PostgresServer,
) -> None:
    name = pg_server.database("plain")
    url = pg_server.url(name, driver="")
    assert url.startswith("postgresql://") and pg_server.password in url
    assert engine_url(url).startswith("postgresql+psycopg://")
    assert engine_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert engine_url("postgresql+psycopg2://u@h/d") == "postgresql+psycopg2://u@h/d"
    store = Store(url)
    try:
        assert store.engine.dialect.driver == "psycopg"
        config = SprtConfig(
            game="congo", candidate={}, baseline={}, openings=[START], engine_version=engine.ENGINE_VERSION
        )
        run_id = store.create_run("sprt", "congo", config.to_json(), config.fingerprint())
    finally:
        store.close()

    listing = run_cli("status", "--store", url)
    assert listing.returncode == 0, listing.stderr
    (row,) = [line.split() for line in listing.stdout.splitlines()[1:]]
    assert row[:4] == [str(run_id), "sprt", "congo", "running"]
    missing = run_cli("status", "99", "--store", url)
    assert missing.returncode == 2
    assert mask_url(url) in missing.stderr and "arbiter:***@" in missing.stderr
    for output in (listing.stdout, listing.stderr, missing.stdout, missing.stderr):
        assert pg_server.password not in output
    pg_server.drop(name)


def test_unreachable_postgresql_is_one_masked_error_within_seconds() -> None:
    url = f"postgresql://arbiter:secret@127.0.0.1:{free_port()}/arbiter"
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"store postgresql://arbiter:\*\*\*@127\.0\.0\.1:\d+/arbiter") as e:
        Store(url)
    assert time.monotonic() - started < 15
    assert "secret" not in str(e.value) and "\n" not in str(e.value)
