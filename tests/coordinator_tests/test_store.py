"""coordinator.store: URLs, transactions, and each (run, batch) result counted once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_testkit import StoreUrls
from sprt_testkit import batch_result
from sqlalchemy import select

from coordinator.store import Store, mask_url, store_url
from coordinator.store.results import CheckedResult
from coordinator.store.schema import batches
from wire.protocol import BatchResult


def result(pentanomial: list[int], wdl: list[int] | None = None) -> BatchResult:
    """A checked result whose records make up ``pentanomial`` (``wdl`` is the worker's claim only)."""
    return batch_result(pentanomial, wdl=wdl, worker="host:1")


@pytest.fixture
def store(store_urls: StoreUrls) -> Iterator[Store]:
    """A fresh store: every test taking it runs on SQLite and on PostgreSQL (``tests/conftest.py``)."""
    opened = Store(store_urls())
    yield opened
    opened.close()


def new_run(store: Store) -> int:
    """A run with a trivial configuration."""
    return store.create_run("sprt", "congo", {"seed": 1}, "f" * 64)


def test_store_url_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    assert store_url(None) == "sqlite:///arbiter.db"
    monkeypatch.setenv("ARBITER_STORE", "sqlite:///env.db")
    assert store_url(None) == "sqlite:///env.db"
    assert store_url("sqlite:///flag.db") == "sqlite:///flag.db"


def test_sqlite_store_uses_wal_and_busy_timeout(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'arbiter.db'}")
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert int(c.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0) >= 1000


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "not a database URL"),
        ("nosuchdialect://x/y", "cannot open"),
    ],
)
def test_bad_url_is_a_value_error_naming_it(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        Store(url)
    assert url in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_folder_is_a_value_error_naming_the_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'missing' / 'arbiter.db'}"
    with pytest.raises(ValueError, match="does not exist") as info:
        Store(url)
    assert url in str(info.value)


def test_folder_instead_of_file_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a folder"):
        Store(f"sqlite:///{tmp_path}")


def test_same_batch_is_stored_and_counted_once(store: Store) -> None:
    run_id = new_run(store)
    store.start_batch(run_id, 0, "0" * 64, 5)
    assert store.record_result(run_id, 0, CheckedResult.tallied(result([0, 0, 1, 0, 0], [0, 2, 0]))) is True
    # A redelivery, even with different counts, changes nothing.
    assert store.record_result(run_id, 0, CheckedResult.tallied(result([0, 0, 0, 0, 1], [2, 0, 0]))) is False
    assert store.row_counts()["results"] == 1
    assert store.row_counts()["batch_games"] == 1 and len(store.game_records(run_id)) == 2
    store.update_run(run_id, counted_batches=1)
    totals = store.totals(run_id)
    assert totals.pentanomial == [0, 0, 1, 0, 0]
    assert totals.wdl == [0, 2, 0]
    assert totals.batches == 1


def test_a_second_store_object_cannot_count_a_batch_again(store_urls: StoreUrls) -> None:
    url = store_urls("shared")
    first, second = Store(url), Store(url)
    run_id = new_run(first)
    assert first.record_result(run_id, 3, CheckedResult.tallied(result([1, 0, 0, 0, 0], [0, 0, 2]))) is True
    assert second.record_result(run_id, 3, CheckedResult.tallied(result([1, 0, 0, 0, 0], [0, 0, 2]))) is False
    assert len(second.results(run_id)) == 1


def test_totals_cover_only_the_counted_prefix(store: Store) -> None:
    run_id = new_run(store)
    for index, penta in enumerate(([0, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 0, 1])):
        wdl = [penta.index(1) // 2, 2 - 2 * (penta.index(1) // 2), 0] if index < 2 else [2, 0, 0]
        store.record_result(run_id, index, CheckedResult.tallied(result(penta, wdl)))
    store.update_run(run_id, counted_batches=2)
    assert store.totals(run_id).pentanomial == [0, 0, 1, 1, 0]
    assert store.totals(run_id, counted_batches=3).pentanomial == [0, 0, 1, 1, 1]
    assert [r.batch_index for r in store.results(run_id)] == [0, 1, 2]


def test_a_failed_write_leaves_nothing_behind(store: Store) -> None:
    run_id = new_run(store)
    store.start_batch(run_id, 0, "0" * 64, 5)
    bad = result([0, 0, 1, 0, 0], [0, 2, 0])
    bad.games[0] = bad.games[0]._replace(moves=object())  # not JSON: fails after the results row
    before = store.row_counts()
    with pytest.raises(TypeError):
        store.record_result(run_id, 0, CheckedResult.tallied(bad))
    assert store.row_counts() == before
    with store.engine.connect() as c:
        state = c.execute(select(batches.c.state).where(batches.c.run_id == run_id)).scalar()
    assert state == "running"
    # The batch can still be stored afterwards.
    assert store.record_result(run_id, 0, CheckedResult.tallied(result([0, 0, 1, 0, 0], [0, 2, 0]))) is True


def test_result_and_batch_state_commit_together(store: Store) -> None:
    run_id = new_run(store)
    store.start_batch(run_id, 0, "0" * 64, 5)
    store.record_result(run_id, 0, CheckedResult.tallied(result([0, 0, 2, 0, 0], [0, 4, 0])))
    other = Store(store.url)  # another connection pool: sees only what was committed
    try:
        with other.engine.connect() as c:
            assert c.execute(select(batches.c.state, batches.c.worker)).all() == [("done", "host:1")]
    finally:
        other.close()


def test_batch_attempts_refusals_and_release(store: Store) -> None:
    run_id = new_run(store)
    assert store.start_batch(run_id, 4, "0" * 64, 9) == 1
    store.refuse_batch(run_id, 4, "wdl: counts add up to 3, expected 2", worker="w:1")
    assert store.start_batch(run_id, 4, "0" * 64, 9) == 2
    assert store.batch_attempts(run_id, 4) == 2
    (refusal,) = store.refusals(run_id)
    assert refusal.batch_index == 4 and "counts add up" in refusal.reason
    store.release_batches(run_id)
    assert store.refusals(run_id)[0].state == "pending"


def test_runs_round_trip_and_unfinished_lookup(store: Store) -> None:
    run_id = store.create_run("sprt", "congress", {"elo1": 5, "openings": ["x"]}, "a" * 64)
    run = store.get_run(run_id)
    assert run is not None and run.config == {"elo1": 5, "openings": ["x"]} and run.state == "running"
    assert store.find_unfinished("sprt", "a" * 64) == run
    store.update_run(run_id, state="finished", decision="accepted", finished=True)
    assert store.find_unfinished("sprt", "a" * 64) is None
    finished = store.get_run(run_id)
    assert finished is not None and finished.finished_at is not None and finished.decision == "accepted"
    assert store.find_same("sprt", "a" * 64) is None
    assert store.find_same("sprt", "a" * 64, finished_too=True) == finished
    assert store.find_same("tune", "a" * 64, finished_too=True) is None  # of its kind only
    with pytest.raises(ValueError, match="unknown run state"):
        store.update_run(run_id, state="exploded")
    assert [r.id for r in store.list_runs()] == [run_id]
    assert store.get_run(run_id + 1) is None


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://admin:S3cret@127.0.0.1:1/arbiter", "postgresql://admin:***@127.0.0.1:1/arbiter"),
        ("admin:S3cret@127.0.0.1:1/arbiter", "admin:***@127.0.0.1:1/arbiter"),  # no scheme: does not parse
        ("postgresql://admin:S3cret@[::1/db", "postgresql://admin:***@[::1/db"),  # a bad IPv6 literal
        ("sqlite:///arbiter.db", "sqlite:///arbiter.db"),
        # An unencoded @ in the password: everything up to the last @ is the userinfo.
        ("postgresql://u:p@ss@S3cret@host/db", "postgresql://u:***@host/db"),
        # Secrets in the query, whatever their case.
        (
            "postgresql://u@h/db?sslmode=require&sslpassword=S3cret&PASSWORD=S3cret&token=S3cret",
            "postgresql://u@h/db?sslmode=require&sslpassword=***&PASSWORD=***&token=***",
        ),
        ("redis://h:6379/0?password=S3cret#frag", "redis://h:6379/0?password=***#frag"),
        (
            "sqlite:////nonexistent-folder/x.db?secret=S3cret&key=S3cret&mode=ro",
            "sqlite:////nonexistent-folder/x.db?secret=***&key=***&mode=ro",
        ),
    ],
)
def test_store_urls_never_show_a_password(url: str, shown: str) -> None:
    assert mask_url(url) == shown
    with pytest.raises(ValueError) as refused:
        Store(url.replace("sqlite:///arbiter.db", "sqlite:////nonexistent-folder/x.db"))
    assert "S3cret" not in str(refused.value)
