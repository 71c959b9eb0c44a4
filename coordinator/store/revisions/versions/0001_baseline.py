"""The schema of arbiter 0.1.0: runs, batches, results and game records, the refusal log and
quarantines, and a tuning run's trials, champions, acceptance SPRTs and SPSA iterations.

Written out here, not taken from ``schema.py``, so that it stays what 0.1.0 made whatever the
later revisions change.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
)

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("kind", String(16), nullable=False),
        Column("game", String(32), nullable=False),
        Column("config", Text, nullable=False),
        Column("fingerprint", String(64), nullable=False, index=True),
        Column("state", String(16), nullable=False),
        Column("counted_batches", Integer, nullable=False, default=0),
        Column("decision", String(16)),
        Column("error", Text),
        Column("created_at", DateTime, nullable=False),
        Column("updated_at", DateTime, nullable=False),
        Column("finished_at", DateTime),
    )
    op.create_table(
        "batches",
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("batch_index", Integer, nullable=False),
        Column("openings", Text, nullable=False),
        Column("seed", BigInteger, nullable=False),  # 63-bit (derive_seed): wider than PostgreSQL's INTEGER
        Column("state", String(16), nullable=False),
        Column("attempts", Integer, nullable=False, default=0),
        Column("worker", String(255)),
        Column("refusal", Text),
        Column("updated_at", DateTime, nullable=False),
        PrimaryKeyConstraint("run_id", "batch_index"),
    )
    op.create_table(
        "results",
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("batch_index", Integer, nullable=False),
        Column("ll", Integer, nullable=False),
        Column("ld", Integer, nullable=False),
        Column("dd_wl", Integer, nullable=False),
        Column("wd", Integer, nullable=False),
        Column("ww", Integer, nullable=False),
        Column("wins", Integer, nullable=False),
        Column("draws", Integer, nullable=False),
        Column("losses", Integer, nullable=False),
        Column("nodes", Text, nullable=False),
        Column("cpu_seconds", Float, nullable=False),
        Column("worker", String(255)),
        Column("engine_version", String(64), nullable=False),
        Column("created_at", DateTime, nullable=False),
        PrimaryKeyConstraint("run_id", "batch_index"),
    )
    op.create_table(
        "batch_games",
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("batch_index", Integer, nullable=False),
        Column("games", Text, nullable=False),
        PrimaryKeyConstraint("run_id", "batch_index"),
    )
    op.create_table(
        "refusal_log",
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False, index=True),
        Column("batch_index", Integer, nullable=False),
        Column("worker", String(255)),
        Column("reason", Text, nullable=False),
        Column("created_at", DateTime, nullable=False),
    )
    op.create_table(
        "quarantines",
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("worker", String(255), nullable=False),
        Column("reason", Text, nullable=False),
        Column("discarded_batches", Integer, nullable=False, default=0),
        Column("created_at", DateTime, nullable=False),
        PrimaryKeyConstraint("run_id", "worker"),
    )
    op.create_table(
        "tune_trials",
        Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("trial_number", Integer, primary_key=True),
        Column("trial_run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("champion_number", Integer, nullable=False),
        Column("state", String(16), nullable=False),
        Column("elo", Float),
        Column("elo95", Float),
        Column("games", Integer, nullable=False, default=0),
        Column("params", Text, nullable=False),
        Column("accept_run_id", Integer, ForeignKey("runs.id")),
    )
    op.create_table(
        "champions",
        Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("number", Integer, primary_key=True),
        Column("weights", Text, nullable=False),
        Column("parent", Integer),
        Column("trial_number", Integer),
        Column("accept_run_id", Integer, ForeignKey("runs.id")),
        Column("elo_vs_parent", Float, nullable=False, default=0.0),
        Column("elo_vs_parent_low", Float, nullable=False, default=0.0),
        Column("elo_vs_parent_high", Float, nullable=False, default=0.0),
        Column("created_at", DateTime, nullable=False),
    )
    op.create_table(
        "tune_acceptances",
        Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("candidate", Integer, primary_key=True),
        Column("stage", Integer, primary_key=True),
        Column("sequence", Integer, nullable=False),
        Column("run_id", Integer, ForeignKey("runs.id")),
        Column("champion_number", Integer, nullable=False),
    )
    op.create_table(
        "spsa_iterations",
        Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
        Column("iteration", Integer, primary_key=True),
        Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
        Column("flips", String(4096), nullable=False),
        Column("wins", Integer),
        Column("losses", Integer),
        Column("theta", Text),
    )


def downgrade() -> None:
    raise NotImplementedError("stores are only ever upgraded")
