"""Engine programs: the archive of each program a run ships to its workers, kept once by the digest
of its files; and what a worker reported beside a batch's games (faults of engine programs, the
factor it scaled time limits by), per result.

Revision 0003, after 0002. Results from before have no details.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import Column, DateTime, Integer, LargeBinary, String, Text

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "programs",
        Column("digest", String(64), primary_key=True),
        Column("name", String(200), nullable=False),
        Column("archive", LargeBinary, nullable=False),
        Column("size", Integer, nullable=False),
        Column("stored_at", DateTime, nullable=False),
    )
    op.add_column("results", Column("details", Text))


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
