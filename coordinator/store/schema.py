"""The store's tables: every one of them, in one place (the migrations in ``migrations/`` create
and change them; this is what the code reads and writes).

Runs and their batches; results (the counts tallied from a batch's records) and the records
themselves, one row per batch; the refusal log and quarantines (what the trust checks decided);
and a tuning run's own tables beside Optuna's: its trials, champions, acceptance SPRTs and SPSA
iterations.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
)

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
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
    # The secret that chooses the run's spot-checked batches (hex; never sent to a worker).
    Column("check_key", String(64)),
    # Games its batches in flight have played, as their workers say (never counted; revision 0008).
    Column("playing", Integer, nullable=False, server_default="0"),
)

batches = Table(
    "batches",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    # The openings of a batch sent before revision 0009 (since: None, they follow from the run's
    # configuration and the batch's index), and the SHA-256 of the payload's text as sent.
    Column("openings", Text),
    Column("payload_digest", String(64)),
    Column("seed", BigInteger, nullable=False),  # 63-bit (derive_seed): wider than PostgreSQL's INTEGER
    Column("state", String(16), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("worker", String(255)),
    Column("refusal", Text),
    Column("updated_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

results = Table(
    "results",
    metadata,
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
    #: What the worker reported beside its games (JSON): faults of engine programs, the factor it
    #: scaled time limits by. None for a plain result.
    Column("details", Text),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

#: Engine programs the runs ship to workers: the archive of each program's files, once, by the
#: digest of its files (wire.programs), so that a resumed run ships the very same program.
programs = Table(
    "programs",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("archive", LargeBinary, nullable=False),
    Column("size", Integer, nullable=False),
    Column("stored_at", DateTime, nullable=False),
)

#: The game records of a batch, as one JSON array (in game order) of records, each an array of the
#: wire record's fields in :data:`wire.protocol.RECORD_FIELDS` order (opening, moves, result,
#: reason, candidate colour, per-move budgets and times; records stored by 0.1.0 have only the
#: first five): one row per batch, and no key repeated per game, keep storing a result cheap.
batch_games = Table(
    "batch_games",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    Column("games", Text, nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

#: Every refusal of a batch's answer, in order: who gave it (None when it names nobody) and why
#: (``batches.refusal`` keeps only the last reason; this is what reports count per worker).
refusal_log = Table(
    "refusal_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False, index=True),
    Column("batch_index", Integer, nullable=False),
    Column("worker", String(255)),
    Column("reason", Text, nullable=False),
    Column("created_at", DateTime, nullable=False),
)

quarantines = Table(
    "quarantines",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("worker", String(255), nullable=False),
    Column("reason", Text, nullable=False),
    Column("discarded_batches", Integer, nullable=False, default=0),
    Column("created_at", DateTime, nullable=False),
    PrimaryKeyConstraint("run_id", "worker"),
)

#: Which engines play each batch of a tournament (kind ``tournament``): the pairing's candidate side
#: (whose wins, draws and losses its result counts) and baseline side, by their names in the run.
#: Written for every batch of the plan when the run is made (names are at most 200 characters).
tournament_batches = Table(
    "tournament_batches",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("batch_index", Integer, nullable=False),
    Column("candidate", String(200), nullable=False),
    Column("baseline", String(200), nullable=False),
    PrimaryKeyConstraint("run_id", "batch_index"),
)

tune_trials = Table(
    "tune_trials",
    metadata,
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

champions = Table(
    "champions",
    metadata,
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

#: Every acceptance SPRT of a candidate (an Optuna trial or the SPSA iteration after which theta was
#: taken), one per stage (acceptance setting); ``run_id`` is null for a candidate skipped because
#: it had the champion's weights. ``sequence`` orders them as they were started.
tune_acceptances = Table(
    "tune_acceptances",
    metadata,
    Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    Column("candidate", Integer, primary_key=True),
    Column("stage", Integer, primary_key=True),
    Column("sequence", Integer, nullable=False),
    Column("run_id", Integer, ForeignKey("runs.id")),
    Column("champion_number", Integer, nullable=False),
)

#: One row per SPSA iteration dispatched: the store run that plays it, its signs, and once it is
#: applied (in iteration order) its result and theta after it.
spsa_iterations = Table(
    "spsa_iterations",
    metadata,
    Column("tune_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    Column("iteration", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
    Column("flips", String(4096), nullable=False),
    Column("wins", Integer),
    Column("losses", Integer),
    Column("theta", Text),
)

#: The runs of a tuning campaign, round by round: step 0 is the round's tuning run, step 1 and on
#: its verification SPRTs in order.
campaign_steps = Table(
    "campaign_steps",
    metadata,
    Column("campaign_run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=False),
)

#: The tables of a tuning run (created with the others; listed for readers that count rows).
TUNING_TABLES = (tune_trials, champions, tune_acceptances, spsa_iterations, campaign_steps)

PENTANOMIAL_COLUMNS = ("ll", "ld", "dd_wl", "wd", "ww")
WDL_COLUMNS = ("wins", "draws", "losses")

# What ``arbiter server`` keeps about each run it owns (revision 0006): a row is added when the
# server first takes the run up (submitted to it, or found unfinished in its store).
run_service = Table(
    "run_service",
    metadata,
    Column("run_id", Integer, ForeignKey("runs.id"), primary_key=True),
    # Who submitted it (None: the operator, or a run started from a terminal).
    Column("owner", String(64)),
    # Runs of a higher priority are served first; equal ones share the fleet.
    Column("priority", Integer, nullable=False, server_default="0"),
    # The run's weight among its owner's runs of its priority, in percent.
    Column("throughput", Integer, nullable=False, server_default="100"),
    # The part of the fleet the server gives it now (0 to 1; None: not served now).
    Column("share", Float),
    # A stop was asked for: the server does not play it until it is resumed.
    Column("held", Boolean, nullable=False, server_default="0"),
    # The server playing it, and until when its claim holds unless renewed.
    Column("lease_holder", String(255)),
    Column("lease_until", DateTime),
    # The submitter's webhooks (a JSON list of URLs).
    Column("webhooks", Text),
    # True once its end was announced (webhooks are sent once).
    Column("notified", Boolean, nullable=False, server_default="0"),
    # Deleted by a user: hidden from lists and never played again (its records are kept).
    Column("deleted", Boolean, nullable=False, server_default="0"),
    Column("submitted_at", DateTime, nullable=False),
    # "approved" (played), "pending" (waits for an approver) or "refused" (revision 0007).
    Column("approval", String(16), nullable=False, server_default="approved"),
    Column("approved_by", String(64)),
)

# The people who use a server (revision 0007): roles user, approver, admin; states pending,
# active, disabled. Passwords are Argon2id hashes (coordinator/accounts/passwords.py).
accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("password_hash", Text, nullable=False),
    Column("role", String(16), nullable=False),
    Column("state", String(16), nullable=False),
    Column("created_at", DateTime, nullable=False),
)

# Tokens of the CLI and scripts: only their SHA-256 is kept.
api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("label", String(64), nullable=False),
    Column("digest", String(64), nullable=False, unique=True),
    Column("created_at", DateTime, nullable=False),
    Column("last_used_at", DateTime),
    Column("revoked_at", DateTime),
)

# Sessions of the web pages: the SHA-256 of the cookie's value, and the session's CSRF token.
web_sessions = Table(
    "web_sessions",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", DateTime, nullable=False),
    Column("expires_at", DateTime, nullable=False),
)

# Who did what: every submission, approval, stop, change and deletion, and account changes.
audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", DateTime, nullable=False, index=True),
    Column("actor", String(64), nullable=False),
    Column("action", String(32), nullable=False),
    Column("run_id", Integer, index=True),
    Column("detail", Text),
)
