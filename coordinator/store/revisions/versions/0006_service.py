"""The service: what ``arbiter server`` keeps about each run it owns (who submitted it, its priority
and throughput, its share of the fleet, a stop asked for, the lease of the server playing it, and
the submitter's webhooks).

Revision 0006, after 0005. Runs of stores from before have no row: the server adds one when it
first takes such a run up.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Boolean, Column, DateTime, Float, ForeignKey, Integer, String, Text

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "run_service",
        Column("run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("owner", String(64)),
        Column("priority", Integer, nullable=False, server_default="0"),
        Column("throughput", Integer, nullable=False, server_default="100"),
        Column("share", Float),
        Column("held", Boolean, nullable=False, server_default="0"),
        Column("lease_holder", String(255)),
        Column("lease_until", DateTime),
        Column("webhooks", Text),
        Column("notified", Boolean, nullable=False, server_default="0"),
        Column("deleted", Boolean, nullable=False, server_default="0"),
        Column("submitted_at", DateTime, nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
