"""A sent batch is kept as the digest of its payload, not its openings: the openings follow from the
run's stored configuration and the batch's index, and writing a batch's openings (tens of
kilobytes at the default batch size) was the dearest part of marking it sent.

Revision 0009, after 0008. Batches sent before keep their openings and have no digest.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, String, Text

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("batches") as table:
        table.alter_column("openings", existing_type=Text, nullable=True)
        table.add_column(Column("payload_digest", String(64)))


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
