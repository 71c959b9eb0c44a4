"""What a tuning run keeps in arbiter's own tables, beside Optuna's: which store run played each
trial, the acceptance SPRTs of each candidate (one per acceptance setting), the SPSA iterations
with theta after each of them (the path of theta), and the history of champions with the SPRT that
accepted each of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Column, Table, and_, func, insert, or_, select, union_all, update

from coordinator.store import Store, now
from coordinator.store.schema import (
    campaign_steps,
    champions,
    results,
    runs,
    spsa_iterations,
    tune_acceptances,
    tune_trials,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")

TRIAL_STATES = ("running", "complete", "pruned", "failed")

#: Results with their runs, to keep those of each run's counted prefix.
_COUNTED = results.join(runs, runs.c.id == results.c.run_id)


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


@dataclass(frozen=True)
class AcceptanceRow:
    """One acceptance SPRT of a candidate, or (``run_id`` None) a candidate skipped."""

    candidate: int
    stage: int
    sequence: int
    run_id: int | None
    champion_number: int


@dataclass(frozen=True)
class IterationRow:
    """One SPSA iteration: its run and signs; result and theta after it once applied."""

    iteration: int
    run_id: int
    flips: tuple[int, ...]
    wins: int | None
    losses: int | None
    theta: dict[str, float] | None


def _signs(text: str) -> tuple[int, ...]:
    """``"+-+"`` -> ``(1, -1, 1)``."""
    return tuple(1 if c == "+" else -1 for c in text)


def _json(value: Any) -> str:
    """A JSON column's text (keys sorted: equal values, equal text)."""
    return json.dumps(value, sort_keys=True)


class TuningRecords:
    """Reads and writes the tuning tables of one store (each write is one transaction)."""

    def __init__(self, store: Store) -> None:
        """The tuning records of ``store`` (its schema holds their tables)."""
        self.store = store

    def _insert(self, table: Table, **values: Any) -> None:
        """Insert one row."""
        with self.store.transaction() as c:
            c.execute(insert(table).values(**values))

    def _update(self, table: Table, key: Column[Any], tune_run_id: int, at: int, **values: Any) -> None:
        """Set ``values`` in the run's row of ``table`` whose ``key`` is ``at``."""
        with self.store.transaction() as c:
            c.execute(update(table).where(table.c.tune_run_id == tune_run_id, key == at).values(**values))

    def _read(
        self, row: type[R], table: Table, tune_run_id: int, order: Column[Any], **decode: Callable[[Any], Any]
    ) -> list[R]:
        """The run's rows of ``table`` in ``order``, each as a ``row``: the columns of its fields'
        names, those named in ``decode`` (when not null) through their function."""
        names = [f.name for f in fields(row)]
        query = select(*(table.c[n] for n in names)).where(table.c.tune_run_id == tune_run_id).order_by(order)
        with self.store.engine.connect() as c:
            return [
                row(
                    **{
                        n: decode[n](v) if n in decode and v is not None else v
                        for n, v in zip(names, r, strict=True)
                    }
                )
                for r in c.execute(query)
            ]

    def add_trial(
        self, tune_run_id: int, number: int, trial_run_id: int, champion: int, params: dict[str, int]
    ) -> None:
        """Record a new running trial."""
        self._insert(
            tune_trials,
            tune_run_id=tune_run_id,
            trial_number=number,
            trial_run_id=trial_run_id,
            champion_number=champion,
            state="running",
            games=0,
            params=_json(params),
        )

    def update_trial(self, tune_run_id: int, number: int, **values: Any) -> None:
        """Set state, elo, elo95, games, champion_number or accept_run_id of a trial."""
        self._update(tune_trials, tune_trials.c.trial_number, tune_run_id, number, **values)

    def trials(self, tune_run_id: int) -> list[TrialRow]:
        """The run's trials, in trial order."""
        return self._read(TrialRow, tune_trials, tune_run_id, tune_trials.c.trial_number, params=json.loads)

    def parents(self) -> dict[int, int]:
        """The tuning run of every trial, acceptance and SPSA iteration run of the store, and the
        campaign of every round and verification SPRT: ``{child: parent}``."""
        parents: dict[int, int] = {}
        with self.store.engine.connect() as c:
            for parent, child in c.execute(self._children_query()):
                parents[child] = parent
        return parents

    def children(self, tune_run_id: int) -> list[int]:
        """Every match run of a tuning run (trials, acceptance SPRTs, SPSA iterations), in order."""
        with self.store.engine.connect() as c:
            return sorted({child for parent, child in c.execute(self._children_query(tune_run_id))})

    @staticmethod
    def _children_query(tune_run_id: int | None = None) -> Any:
        """(parent, child) of every child run (a tuning run's match runs, a campaign's rounds and
        verification SPRTs), or only those of parent ``tune_run_id``."""
        parts = []
        for parent, column in (
            (tune_trials.c.tune_run_id, tune_trials.c.trial_run_id),
            (tune_trials.c.tune_run_id, tune_trials.c.accept_run_id),
            (tune_acceptances.c.tune_run_id, tune_acceptances.c.run_id),
            (spsa_iterations.c.tune_run_id, spsa_iterations.c.run_id),
            (campaign_steps.c.campaign_run_id, campaign_steps.c.run_id),
        ):
            query = select(parent, column).where(column.is_not(None))
            if tune_run_id is not None:
                query = query.where(parent == tune_run_id)
            parts.append(query)
        return union_all(*parts)

    # acceptance SPRTs -------------------------------------------------------------------------

    def add_acceptance(
        self,
        tune_run_id: int,
        candidate: int,
        stage: int,
        run_id: int | None,
        champion: int,
        *,
        on_trial: bool = False,
    ) -> None:
        """Record an acceptance SPRT started (or, with ``run_id`` None, a candidate skipped); with
        ``on_trial``, also as the candidate trial's acceptance run, in the same transaction, so that
        a kill between the two cannot leave a trial without the SPRT that crowns it."""
        with self.store.transaction() as c:
            if on_trial:
                c.execute(
                    update(tune_trials)
                    .where(tune_trials.c.tune_run_id == tune_run_id, tune_trials.c.trial_number == candidate)
                    .values(accept_run_id=run_id)
                )
            sequence = c.execute(
                select(func.count()).where(tune_acceptances.c.tune_run_id == tune_run_id)
            ).scalar_one()
            c.execute(
                insert(tune_acceptances).values(
                    tune_run_id=tune_run_id,
                    candidate=candidate,
                    stage=stage,
                    sequence=sequence,
                    run_id=run_id,
                    champion_number=champion,
                )
            )

    def acceptances(self, tune_run_id: int) -> list[AcceptanceRow]:
        """The run's acceptance SPRTs in the order they were started."""
        return self._read(AcceptanceRow, tune_acceptances, tune_run_id, tune_acceptances.c.sequence)

    # SPSA iterations --------------------------------------------------------------------------

    def add_iteration(self, tune_run_id: int, iteration: int, run_id: int, flips: tuple[int, ...]) -> None:
        """Record an SPSA iteration dispatched to run ``run_id``."""
        signs = "".join("+" if f > 0 else "-" for f in flips)
        self._insert(
            spsa_iterations, tune_run_id=tune_run_id, iteration=iteration, run_id=run_id, flips=signs
        )

    def apply_iteration(
        self, tune_run_id: int, iteration: int, wins: int, losses: int, theta: dict[str, float]
    ) -> None:
        """Record an iteration applied: its result and theta after it."""
        values = {"wins": wins, "losses": losses, "theta": _json(theta)}
        self._update(spsa_iterations, spsa_iterations.c.iteration, tune_run_id, iteration, **values)

    def iterations(self, tune_run_id: int) -> list[IterationRow]:
        """The run's SPSA iterations, in iteration order."""
        order = spsa_iterations.c.iteration
        return self._read(IterationRow, spsa_iterations, tune_run_id, order, flips=_signs, theta=json.loads)

    def add_champion(self, tune_run_id: int, champion: Champion) -> None:
        """Record a champion (number 0 is the start weights)."""
        values = {**asdict(champion), "weights": _json(champion.weights)}
        self._insert(champions, tune_run_id=tune_run_id, created_at=now(), **values)

    def champions(self, tune_run_id: int) -> list[Champion]:
        """The champion history, oldest (the start weights) first."""
        return self._read(Champion, champions, tune_run_id, champions.c.number, weights=json.loads)

    def games(self, tune_run_id: int, champion: int | None = None, through: int | None = None) -> int:
        """Games counted by the run's trials, acceptance SPRTs and SPSA iterations (each run's
        counted prefix: results stored beyond it do not count). Only those played while champion
        number ``champion`` reigned, if given (its trials and the acceptance SPRTs against it);
        only those of the trials numbered up to ``through`` and their acceptance SPRTs, if given."""
        trials = tune_trials.c.tune_run_id == tune_run_id
        accepts = tune_acceptances.c.tune_run_id == tune_run_id
        if champion is not None:
            trials = and_(trials, tune_trials.c.champion_number == champion)
            accepts = and_(accepts, tune_acceptances.c.champion_number == champion)
        if through is not None:
            trials = and_(trials, tune_trials.c.trial_number <= through)
            accepts = and_(accepts, tune_acceptances.c.candidate <= through)
        sources = [
            select(tune_trials.c.trial_run_id).where(trials),
            select(tune_trials.c.accept_run_id).where(trials),
            select(tune_acceptances.c.run_id).where(accepts),
        ]
        if champion is None and through is None:
            sources.append(
                select(spsa_iterations.c.run_id).where(spsa_iterations.c.tune_run_id == tune_run_id)
            )
        query = (
            select(func.coalesce(func.sum(results.c.wins + results.c.draws + results.c.losses), 0))
            .select_from(_COUNTED)
            .where(results.c.batch_index < runs.c.counted_batches)
            .where(or_(*(results.c.run_id.in_(source) for source in sources)))
        )
        with self.store.engine.connect() as c:
            return int(c.execute(query).scalar() or 0)

    def result_times(self, tune_run_id: int) -> list[tuple[datetime, int]]:
        """(stored at, games) of every counted result of the run's match runs, oldest first."""
        children = self._children_query(tune_run_id).subquery()
        query = (
            select(results.c.created_at, results.c.wins + results.c.draws + results.c.losses)
            .select_from(_COUNTED)
            .where(results.c.batch_index < runs.c.counted_batches)
            .where(results.c.run_id.in_(select(children.c[1])))
            .order_by(results.c.created_at)
        )
        with self.store.engine.connect() as c:
            return [(stamp, int(games)) for stamp, games in c.execute(query)]

    def crowned_at(self, tune_run_id: int) -> dict[int, datetime]:
        """When each champion was crowned (number 0: when the run started)."""
        query = select(champions.c.number, champions.c.created_at).where(
            champions.c.tune_run_id == tune_run_id
        )
        with self.store.engine.connect() as c:
            return {r.number: r.created_at for r in c.execute(query)}
