"""The store's schema versions: a store written by arbiter 0.1.0 upgrades in place, a new store is
created at this code's schema, and a store newer than the code is refused in one line."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sprt_testkit import run_cli
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.engine import Connection

from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import PrefixCounter
from coordinator.store import Store, migrations
from coordinator.store.schema import batches, metadata
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.records import TuningRecords

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store-0.1.0.db.gz"


def old_store(tmp_path: Path) -> str:
    """A copy of the store arbiter 0.1.0 wrote (tests/fixtures/README.md says what it holds)."""
    path = tmp_path / "old.db"
    with gzip.open(FIXTURE) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return f"sqlite:///{path}"


def schema_differences(connection: Connection) -> list[Any]:
    """How the store's tables differ from the schema the code reads and writes (Optuna's tables,
    which share the database, left out)."""
    context = MigrationContext.configure(
        connection,
        opts={
            "version_table": migrations.VERSION_TABLE,
            "include_name": lambda name, kind, _parent: kind != "table" or name in metadata.tables,
        },
    )
    return list(compare_metadata(context, metadata))


def revision(url: str) -> str | None:
    """The revision a SQLite store records (None: no version table), read without opening it as a
    store (which would upgrade it)."""
    engine = create_engine(url)
    try:
        with engine.connect() as c:
            if not inspect(c).has_table(migrations.VERSION_TABLE):
                return None
            found = c.execute(text(f"SELECT version_num FROM {migrations.VERSION_TABLE}")).scalar()
    finally:
        engine.dispose()
    return None if found is None else str(found)


def test_a_store_of_0_1_0_upgrades_in_place_and_keeps_everything(tmp_path: Path) -> None:
    url = old_store(tmp_path)
    store = Store(url)
    assert revision(url) == migrations.head()
    with store.engine.connect() as c:
        assert schema_differences(c) == []
    counts = store.row_counts()
    assert (counts["runs"], counts["results"], counts["refusal_log"], counts["quarantines"]) == (
        18,
        125,
        1,
        1,
    )
    runs = {r.id: r for r in store.list_runs()}
    # Every stored configuration (none has a version: they read as the first) is decoded by its
    # kind with this code, and the counted prefixes add up as before.
    for run in runs.values():
        config = run.settings
        if isinstance(config, SprtConfig):
            prefix = PrefixCounter(config)
            prefix.advance({r.batch_index: r for r in store.results(run.id)})
            assert prefix.batches >= run.counted_batches
            assert store.totals(run.id).games == sum(store.totals(run.id).wdl)
        else:
            assert isinstance(config, TuneConfig)
    assert str(runs[18].state) == "interrupted" and store.quarantines(18)[0].worker == "forger:1"
    # Batches sent before revision 0009 keep their openings, and have no payload digest.
    with store.engine.connect() as c:
        sent = c.execute(select(batches.c.openings, batches.c.payload_digest)).all()
    assert sent and all(json.loads(openings) and d is None for openings, d in sent)
    records = TuningRecords(store)
    assert len(records.trials(2)) == 3 and len(records.iterations(8)) == 8
    assert records.champions(2)[0].number == 0
    store.close()
    # Opening it again changes nothing.
    Store(url).close()
    assert revision(url) == migrations.head()


@pytest.mark.slow
def test_commands_read_an_upgraded_store(tmp_path: Path) -> None:
    url = old_store(tmp_path)

    def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
        return run_cli(*args, cwd=tmp_path)

    listing = arbiter("status", "--store", url)
    assert listing.returncode == 0, listing.stderr
    assert "interrupted" in listing.stdout and len(listing.stdout.splitlines()) == 5
    for run in ("1", "2", "8", "18"):
        shown = arbiter("report", run, "--json", "--store", url)
        assert shown.returncode == 0 and shown.stderr == "", shown.stderr


def test_a_new_store_is_created_at_the_head(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    store = Store(url)
    assert revision(url) == migrations.head()
    with store.engine.connect() as c:
        assert schema_differences(c) == []
    store.close()


def test_a_store_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'future.db'}"
    Store(url).close()
    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(text(f"UPDATE {migrations.VERSION_TABLE} SET version_num = '9999'"))
    engine.dispose()
    for read_only in (False, True):
        with pytest.raises(ValueError, match=r"newer than this arbiter's .*upgrade arbiter") as info:
            Store(url, read_only=read_only)
        assert "\n" not in str(info.value)
    shown = run_cli("status", "--store", url)
    assert shown.returncode == 2 and len(shown.stderr.splitlines()) == 1, shown.stderr
    assert "revision 9999" in shown.stderr and "Traceback" not in shown.stderr


def test_a_reader_never_upgrades_and_says_how(tmp_path: Path) -> None:
    url = old_store(tmp_path)
    with pytest.raises(ValueError, match=r"older than this arbiter's .*writes to it upgrades it"):
        Store(url, read_only=True)
    assert revision(url) is None  # untouched
    Store(url).close()
    Store(url, read_only=True).close()


def test_both_stores_migrate_from_empty(store_urls: Any) -> None:
    url = store_urls("migrated")
    store = Store(url)
    with store.engine.connect() as c:
        assert migrations.current(c) == migrations.head()
        assert schema_differences(c) == []
    store.close()


def test_a_store_at_revision_0003_upgrades_to_tournaments(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r3.db'}"
    engine = create_engine(url)
    with engine.begin() as c:
        command.upgrade(migrations.config(c), "0003")
        c.execute(
            text(
                "INSERT INTO runs (kind, game, config, fingerprint, state, counted_batches, created_at, "
                "updated_at) VALUES ('sprt', 'congo', '{}', 'f', 'finished', 0, '2026-01-01', '2026-01-01')"
            )
        )
    engine.dispose()
    assert revision(url) == "0003"
    store = Store(url)
    assert revision(url) == migrations.head() != "0003"
    with store.engine.connect() as c:
        assert schema_differences(c) == []
    assert [r.id for r in store.list_runs()] == [1] and store.pairings(1) == {}
    store.record_pairings(1, [("a", "b"), ("b", "c")])
    store.record_pairings(1, [("x", "y")])  # recorded once: a resumed run keeps what it has
    assert store.pairings(1) == {0: ("a", "b"), 1: ("b", "c")}
    store.close()


def test_head_is_the_newest_revision_of_the_scripts() -> None:
    assert migrations.head() == migrations.HEAD


def test_opening_a_store_at_head_does_not_import_alembic(tmp_path: Path) -> None:
    """Every command opens its store: one already at the code's schema is checked without Alembic,
    which would double a command's start-up time."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url).close()  # made, at head
    probe = (
        "import sys; from coordinator.store import Store; "
        f"Store({url!r}).close(); Store({url!r}, read_only=True).close(); "
        "print('alembic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
