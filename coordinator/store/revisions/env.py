"""Alembic's entry point for the store's revisions: they always run on the connection the store
opened (``coordinator.store.migrations``), inside its transaction and schema lock."""

from __future__ import annotations

from alembic import context

from coordinator.store.migrations import VERSION_TABLE
from coordinator.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the store's revisions run through coordinator.store.migrations, on its connection")
context.configure(connection=connection, target_metadata=metadata, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
