"""When an Optuna trial stops early, and its course: its value after each counted batch.

A trial is pruned when it is clearly worse than the champion (its likelihood of superiority over
the champion's value below ``--prune-los`` once two batches are counted), or by successive halving
over game budgets: every trial plays ``2 * --min-trial-pairs`` games, and at that rung and each
``--halving-factor`` times larger one it goes on only if it is among the best ``1 / factor`` of the
values at the rung, its own included (Optuna's successive-halving rule). A GSPRT cannot do the
first job: over a trial's few dozen pairs its log-likelihood ratio moves too little to reach a
bound, even for a candidate 200 Elo worse.

What a trial is compared with is fixed when it is asked: the champion of that moment and the
trials told to Optuna by then (their values at each rung). Optuna's own pruners compare with every
trial of the study, running ones included, so their verdicts depend on how far the others have
got, that is on timing; here a trial's course is a function of its own games.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from coordinator.sprt.runner import PrefixCounter
from coordinator.stats import fixed_elo
from coordinator.tuning.objective import superiority

#: Batches a trial plays before its LOS may prune it.
LOS_MIN_BATCHES = 2


def promoted(value: float, rivals: Sequence[float], factor: int) -> bool:
    """Optuna's successive-halving rule: ``value`` goes on when it is among the best ``1 /
    factor`` of ``rivals`` and itself (while there are fewer than ``factor``: the best of them)."""
    competing = sorted([*rivals, value])
    return value >= competing[-max(len(competing) // factor, 1)]


@dataclass(frozen=True)
class TrialPruner:
    """The pruning rule of a study whose trials count their value at step = games counted."""

    threshold: float
    #: Games at each rung of successive halving (none: no halving).
    rungs: tuple[int, ...]
    factor: int

    def rung_values(self, course: Mapping[int, float]) -> dict[int, float]:
        """A trial's value at each rung it reached: after the first batch that reached the rung's
        games (``course``: its value by games counted)."""
        values: dict[int, float] = {}
        steps = sorted(course)
        for rung, games in enumerate(self.rungs):
            reached = next((step for step in steps if step >= games), None)
            if reached is None:
                break
            values[rung] = course[reached]
        return values

    def rivals(self, courses: Iterable[Mapping[int, float]]) -> dict[int, list[float]]:
        """The values of the trials of ``courses`` at each rung."""
        rivals: dict[int, list[float]] = {}
        for course in courses:
            for rung, value in self.rung_values(course).items():
                rivals.setdefault(rung, []).append(value)
        return rivals

    def prune(
        self,
        batches: int,
        games: tuple[int, int],
        value: float,
        los: float,
        rivals: Mapping[int, Sequence[float]],
    ) -> bool:
        """Should a trial stop after counting batch ``batches`` (which took its games from
        ``games[0]`` to ``games[1]``) at ``value`` and ``los`` against its champion?"""
        if batches >= LOS_MIN_BATCHES and los < self.threshold:
            return True
        reached = [rung for rung, at in enumerate(self.rungs) if games[0] < at <= games[1]]
        return any(not promoted(value, rivals.get(rung, ()), self.factor) for rung in reached)


def make_pruner(prune_los: float, min_trial_pairs: int, trial_pairs: int, halving_factor: int) -> TrialPruner:
    """The rule of ``--prune-los``, ``--min-trial-pairs``, ``--trial-pairs`` and ``--halving-factor``
    (no halving when the minimum is the whole budget)."""
    rungs: list[int] = []
    games = 2 * min_trial_pairs
    while min_trial_pairs < trial_pairs and games <= 2 * trial_pairs:
        rungs.append(games)
        games *= halving_factor
    return TrialPruner(prune_los, tuple(rungs), halving_factor)


@dataclass(frozen=True)
class CoursePoint:
    """A trial after one counted batch: games, Elo against the reference and its 95% half-width,
    likelihood of superiority over its champion, pentanomial counts."""

    games: int
    elo: float
    elo95: float
    los: float
    pentanomial: tuple[int, ...]


class TrialCourse:
    """A trial's course, batch by batch as its runner counts them, and the pruner's verdict after
    each: :meth:`after_batch` is the runner's ``stop``."""

    def __init__(
        self, pruner: TrialPruner, champion: tuple[float, float], rivals: Mapping[int, Sequence[float]]
    ) -> None:
        """A course compared with ``champion`` (its value and 95% half-width) and ``rivals`` (the
        values at each rung of the trials told before this one was asked)."""
        self.pruner = pruner
        self.champion = champion
        self.rivals = rivals
        #: By batches counted (a quarantine may count them again from the first).
        self.points: dict[int, CoursePoint] = {}
        self.pruned = False

    def after_batch(self, prefix: PrefixCounter) -> bool:
        """Note the trial after the batch just counted; True when it is to be pruned there."""
        elo = fixed_elo(prefix.pentanomial)
        los = superiority(elo.elo, elo.elo95, *self.champion)
        before = self.points[prefix.batches - 1].games if prefix.batches > 1 else 0
        games = sum(prefix.wdl)
        self.points[prefix.batches] = CoursePoint(games, elo.elo, elo.elo95, los, tuple(prefix.pentanomial))
        self.pruned = self.pruner.prune(prefix.batches, (before, games), elo.elo, los, self.rivals)
        return self.pruned

    def upto(self, batches: int) -> list[CoursePoint]:
        """The course over the first ``batches`` counted batches."""
        return [self.points[b] for b in range(1, batches + 1)]
