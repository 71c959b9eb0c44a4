"""What a tuning run keeps in arbiter's own tables, beside Optuna's: which store run played each
trial, and the history of champions with the SPRT that accepted each of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    and_,
    func,
    insert,
    or_,
    select,
    update,
)

from coordinator.store import Store, metadata, now, results, schema_lock

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

TRIAL_STATES = ("running", "complete", "pruned", "failed")


@dataclass(frozen=True)
class TrialRow:
    """One Optuna trial of a tuning run and the store run that played it."""

    trial_number: int
    trial_run_id: int
    champion_number: int
    state: str
    elo: float | None
    elo95: float | None
    games: int
    params: dict[str, int]
    accept_run_id: int | None


@dataclass(frozen=True)
class Champion:
    """A champion: its weights, the one it replaced, and the SPRT Elo it gained over that one."""

    number: int
    weights: dict[str, int]
    parent: int | None
    trial_number: int | None
    accept_run_id: int | None
    elo_vs_parent: float
    elo_vs_parent_low: float
    elo_vs_parent_high: float


class TuningRecords:
    """Reads and writes the tuning tables of one store (each write is one transaction)."""

    def __init__(self, store: Store) -> None:
        """Create the tuning tables in ``store`` if they are missing."""
        self.store = store
        with schema_lock(store.engine) as connection:
            metadata.create_all(connection, tables=[tune_trials, champions])

    def add_trial(
        self, tune_run_id: int, number: int, trial_run_id: int, champion: int, params: dict[str, int]
    ) -> None:
        """Record a new running trial."""
        with self.store.transaction() as c:
            c.execute(
                insert(tune_trials).values(
                    tune_run_id=tune_run_id,
                    trial_number=number,
                    trial_run_id=trial_run_id,
                    champion_number=champion,
                    state="running",
                    games=0,
                    params=json.dumps(params, sort_keys=True),
                )
            )

    def update_trial(self, tune_run_id: int, number: int, **values: Any) -> None:
        """Set state, elo, elo95, games or accept_run_id of a trial."""
        with self.store.transaction() as c:
            c.execute(
                update(tune_trials)
                .where(tune_trials.c.tune_run_id == tune_run_id, tune_trials.c.trial_number == number)
                .values(**values)
            )

    def trials(self, tune_run_id: int) -> list[TrialRow]:
        """The run's trials, in trial order."""
        query = (
            select(tune_trials)
            .where(tune_trials.c.tune_run_id == tune_run_id)
            .order_by(tune_trials.c.trial_number)
        )
        with self.store.engine.connect() as c:
            return [
                TrialRow(
                    trial_number=r.trial_number,
                    trial_run_id=r.trial_run_id,
                    champion_number=r.champion_number,
                    state=r.state,
                    elo=r.elo,
                    elo95=r.elo95,
                    games=r.games,
                    params=json.loads(r.params),
                    accept_run_id=r.accept_run_id,
                )
                for r in c.execute(query)
            ]

    def parents(self) -> dict[int, int]:
        """The tuning run of every trial and acceptance run of the store: ``{child: parent}``."""
        query = select(tune_trials.c.tune_run_id, tune_trials.c.trial_run_id, tune_trials.c.accept_run_id)
        parents: dict[int, int] = {}
        with self.store.engine.connect() as c:
            for row in c.execute(query):
                parents[row.trial_run_id] = row.tune_run_id
                if row.accept_run_id is not None:
                    parents[row.accept_run_id] = row.tune_run_id
        return parents

    def add_champion(self, tune_run_id: int, champion: Champion) -> None:
        """Record a champion (number 0 is the start weights)."""
        with self.store.transaction() as c:
            c.execute(
                insert(champions).values(
                    tune_run_id=tune_run_id,
                    number=champion.number,
                    weights=json.dumps(champion.weights, sort_keys=True),
                    parent=champion.parent,
                    trial_number=champion.trial_number,
                    accept_run_id=champion.accept_run_id,
                    elo_vs_parent=champion.elo_vs_parent,
                    elo_vs_parent_low=champion.elo_vs_parent_low,
                    elo_vs_parent_high=champion.elo_vs_parent_high,
                    created_at=now(),
                )
            )

    def champions(self, tune_run_id: int) -> list[Champion]:
        """The champion history, oldest (the start weights) first."""
        query = select(champions).where(champions.c.tune_run_id == tune_run_id).order_by(champions.c.number)
        with self.store.engine.connect() as c:
            return [
                Champion(
                    number=r.number,
                    weights=json.loads(r.weights),
                    parent=r.parent,
                    trial_number=r.trial_number,
                    accept_run_id=r.accept_run_id,
                    elo_vs_parent=r.elo_vs_parent,
                    elo_vs_parent_low=r.elo_vs_parent_low,
                    elo_vs_parent_high=r.elo_vs_parent_high,
                )
                for r in c.execute(query)
            ]

    def games(self, tune_run_id: int, champion: int | None = None) -> int:
        """Games stored for the run's trials and acceptance SPRTs (only those played against
        champion number ``champion``, if given)."""
        mine = tune_trials.c.tune_run_id == tune_run_id
        if champion is not None:
            mine = and_(mine, tune_trials.c.champion_number == champion)
        children = select(tune_trials.c.trial_run_id).where(mine)
        accepts = select(tune_trials.c.accept_run_id).where(mine)
        query = select(func.coalesce(func.sum(results.c.wins + results.c.draws + results.c.losses), 0)).where(
            or_(results.c.run_id.in_(children), results.c.run_id.in_(accepts))
        )
        with self.store.engine.connect() as c:
            return int(c.execute(query).scalar() or 0)
