"""Tournaments: which engines play each batch of a run of kind ``tournament`` (the candidate side,
whose wins, draws and losses the batch's result counts, and the baseline side, by name).

Revision 0004, after 0003. Stores from before have no tournaments.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, ForeignKey, Integer, PrimaryKeyConstraint, String

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_batches",
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("batch_index", Integer, nullable=False),
        Column("candidate", String(200), nullable=False),
        Column("baseline", String(200), nullable=False),
        PrimaryKeyConstraint("run_id", "batch_index"),
    )


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
