"""Accounts of the people who use ``arbiter server``: their roles and states, the tokens the CLI and
scripts use, the web's sessions, the record of who did what, and each run's approval.

Revision 0007, after 0006. Runs of stores from before are approved (their owner ran them).
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, DateTime, ForeignKey, Integer, String, Text

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("name", String(64), nullable=False, unique=True),
        Column("password_hash", Text, nullable=False),
        Column("role", String(16), nullable=False),
        Column("state", String(16), nullable=False),
        Column("created_at", DateTime, nullable=False),
    )
    op.create_table(
        "api_tokens",
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
        Column("label", String(64), nullable=False),
        Column("digest", String(64), nullable=False, unique=True),
        Column("created_at", DateTime, nullable=False),
        Column("last_used_at", DateTime),
        Column("revoked_at", DateTime),
    )
    op.create_table(
        "web_sessions",
        Column("digest", String(64), primary_key=True),
        Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
        Column("csrf", String(64), nullable=False),
        Column("created_at", DateTime, nullable=False),
        Column("expires_at", DateTime, nullable=False),
    )
    op.create_table(
        "audit_log",
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("at", DateTime, nullable=False, index=True),
        Column("actor", String(64), nullable=False),
        Column("action", String(32), nullable=False),
        Column("run_id", Integer, index=True),
        Column("detail", Text),
    )
    with op.batch_alter_table("run_service") as table:
        table.add_column(Column("approval", String(16), nullable=False, server_default="approved"))
        table.add_column(Column("approved_by", String(64)))


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
