"""Each run's games still playing: what the workers of its batches in flight say they have played
(a claim, never counted), for ``arbiter status`` and the dashboard while the run plays.

Revision 0008, after 0007. Runs from before have none playing.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, Integer

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as table:
        table.add_column(Column("playing", Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
