"""The store's schema, versioned with Alembic: created on a new store, upgraded in place on an older
one, and refused (one line) when it is newer than this code.

A store is upgraded when it is opened for writing (every command that plays or resumes runs does),
under the schema lock, in the same transaction as nothing else: two coordinators starting
together upgrade it once, and a store is never half-upgraded. Opening a store that only reads
(``arbiter serve``) never changes it, so it refuses a store older than this code and says how to
upgrade it.

Stores written by arbiter 0.1.0 have the tables but no version: they are at the baseline revision,
and are marked so before the upgrade. The version is kept in its own table, not Alembic's usual
``alembic_version``, which Optuna's own tables (in the same database) already use.

Alembic is imported only to create, upgrade or date a store: a store already at ``HEAD`` (every
command but the first on a store) is checked with one query, which saves about 0.2 s of the
0.6 s a command took to start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import column, inspect, select, table
from sqlalchemy.engine import Connection
from sqlalchemy.sql.expression import ColumnClause

if TYPE_CHECKING:
    from alembic.config import Config

#: Where the revisions live.
SCRIPTS = Path(__file__).with_name("revisions")
#: The table holding the store's revision.
VERSION_TABLE = "arbiter_schema_version"
#: The revision of the tables arbiter 0.1.0 made, which carry no version.
BASELINE = "0001"
#: A table every store has had since the first release.
RUNS_TABLE = "runs"
#: The newest revision in ``revisions/`` (tests check it is Alembic's head): the schema this code
#: reads and writes.
HEAD = "0009"


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the store's revisions, running on ``connection``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision of ``revisions/``, as Alembic finds it (``HEAD`` must be it)."""
    from alembic.script import ScriptDirectory

    found = ScriptDirectory.from_config(config()).get_current_head()
    assert found is not None, "the store's migrations have a head"
    return found


def current(connection: Connection) -> str | None:
    """The store's revision: ``None`` for an empty database, the baseline for one that arbiter
    0.1.0 wrote."""
    revision = _stamped(connection)
    if revision is None and inspect(connection).has_table(RUNS_TABLE):
        return BASELINE
    return revision


def _stamped(connection: Connection) -> str | None:
    """The revision recorded in the store's version table (None when it has none). The history
    is linear, so the table holds at most one row."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    version: ColumnClause[str] = column("version_num")
    return connection.execute(select(version).select_from(table(VERSION_TABLE))).scalars().first()


def _known(revision: str) -> bool:
    """True for a revision of this code's history."""
    from alembic.script import ScriptDirectory

    return revision in {script.revision for script in ScriptDirectory.from_config(config()).walk_revisions()}


def _newer(shown: str, revision: str) -> ValueError:
    return ValueError(
        f"store {shown}: its schema (revision {revision}) is newer than this arbiter's ({HEAD}): "
        "upgrade arbiter to use it"
    )


def upgrade(connection: Connection, shown: str) -> None:
    """Bring the store on ``connection`` (in a transaction holding the schema lock) to this code's
    schema: create it when empty, upgrade it when older; ValueError when it is newer."""
    revision = current(connection)
    if revision == HEAD:
        return
    if revision is not None and not _known(revision):
        raise _newer(shown, revision)
    from alembic import command

    cfg = config(connection)
    if revision == BASELINE and _stamped(connection) is None:
        command.stamp(cfg, BASELINE)  # a 0.1.0 store: the tables are there, the version is not
    command.upgrade(cfg, "head")


def check(connection: Connection, shown: str) -> None:
    """ValueError unless the store on ``connection`` is at this code's schema (for readers, which
    must not change it)."""
    revision = current(connection)
    if revision is None:
        raise ValueError(f"store {shown}: no arbiter store there (nothing has run on it yet)")
    if revision == HEAD:
        return
    if not _known(revision):
        raise _newer(shown, revision)
    raise ValueError(
        f"store {shown}: its schema (revision {revision}) is older than this arbiter's ({HEAD}): "
        "any command that writes to it upgrades it, e.g. arbiter status --store URL"
    )
