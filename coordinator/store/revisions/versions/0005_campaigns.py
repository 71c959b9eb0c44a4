"""Campaigns: the runs of each round of a tuning campaign (its tuning run, then its verification
SPRTs), by round and step.

Revision 0005, after 0004. Stores from before have no campaigns.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, ForeignKey, Integer

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaign_steps",
        Column("campaign_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("round", Integer, primary_key=True),
        Column("step", Integer, primary_key=True),
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    )


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
