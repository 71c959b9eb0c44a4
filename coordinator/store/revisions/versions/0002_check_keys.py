"""Each run gets a key of its own that chooses which of its batches are spot-checked: known only to
the coordinator (never sent to a worker), so that no worker can tell which batches will be checked.

Revision 0002, after 0001. Runs from before have none; one is made when such a run is resumed.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, String

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("runs", Column("check_key", String(64)))


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
