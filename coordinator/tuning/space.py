"""The search space of a tuning run, taken from the engine's weight table (the single source of
names and ranges), optionally narrowed around the start weights, and the Optuna samplers and
pruners that explore it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import optuna

import engine

SAMPLERS = ("tpe", "cmaes", "random")
#: CMA-ES's first step, as a fraction of each weight's search range (Optuna's default is 1/6).
CMAES_SIGMA0 = 0.1


def tuned_names(game: str, params: Sequence[str] | None) -> list[str]:
    """The weights to tune: all of the table, or the named subset (unknown names are an error)."""
    table = [w.name for w in engine.weights(game)]
    if not params:
        return table
    unknown = [p for p in params if p not in table]
    if unknown:
        raise ValueError(
            f"unknown {game} weight(s) in --params: {', '.join(unknown)}; see `arbiter weights {game}`"
        )
    if len(set(params)) != len(params):
        raise ValueError(f"--params names a weight twice: {', '.join(params)}")
    return list(params)


def distributions(
    game: str,
    names: Sequence[str],
    center: Mapping[str, int] | None = None,
    radius: float | None = None,
) -> dict[str, optuna.distributions.BaseDistribution]:
    """Integer distributions with the table's ranges, or (``radius``) each narrowed to
    ``center`` +- radius * the table's range (at least +-1), inside the table's range."""
    table = {w.name: w for w in engine.weights(game)}
    space: dict[str, optuna.distributions.BaseDistribution] = {}
    for name in names:
        low, high = table[name].min, table[name].max
        if low >= high:
            raise ValueError(f"weight {name} has an empty range {low}..{high}")
        if radius is not None and center is not None:
            reach = max(1, round(radius * (high - low)))
            low, high = max(low, center[name] - reach), min(high, center[name] + reach)
        space[name] = optuna.distributions.IntDistribution(low, high)
    return space


def make_sampler(name: str, seed: int, start: Mapping[str, int] | None = None) -> optuna.samplers.BaseSampler:
    """Multivariate TPE with a constant liar (several trials in flight), CMA-ES, or random.
    CMA-ES starts from ``start`` (the champion), when given, with a small first step."""
    if name == "tpe":
        with warnings.catch_warnings():
            # Optuna >= 4.9 deprecates the argument (and no longer warns by default): a
            # FutureWarning on every `arbiter tune` otherwise.
            warnings.simplefilter("ignore", FutureWarning)
            return optuna.samplers.TPESampler(
                seed=seed,
                multivariate=True,
                constant_liar=True,
                n_startup_trials=8,
                warn_independent_sampling=False,
            )
    if name == "cmaes":
        if start is None:
            return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
        with warnings.catch_warnings():
            # Optuna >= 4.9 deprecates x0 and sigma0 (removal planned for 6.0) for OptunaHub.
            warnings.simplefilter("ignore", FutureWarning)
            return optuna.samplers.CmaEsSampler(
                x0=dict(start), sigma0=CMAES_SIGMA0, seed=seed, warn_independent_sampling=False
            )
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}: expected one of {', '.join(SAMPLERS)}")


def candidate_weights(champion: Mapping[str, int], trial_params: Mapping[str, Any]) -> dict[str, int]:
    """The champion's weights with the trial's values for the tuned names."""
    return {**champion, **{k: int(v) for k, v in trial_params.items()}}


class LosPruner(optuna.pruners.BasePruner):
    """Prunes a trial once "better than the champion" has become implausible: after at least
    ``min_batches`` counted batches, when the likelihood of superiority computed from the trial's
    pentanomial counts (user attributes ``los`` and ``batches``, set by the tuner) is below
    ``threshold``.

    A GSPRT cannot do this job here: over a trial's few dozen pairs its log-likelihood ratio moves
    too little to reach a bound, even for a candidate 200 Elo worse.
    """

    def __init__(self, threshold: float = 0.05, min_batches: int = 2) -> None:
        """Prune below ``threshold`` LOS once ``min_batches`` batches are counted."""
        self.threshold = threshold
        self.min_batches = min_batches

    def prune(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> bool:
        """True when the trial is clearly not better than the champion."""
        los = trial.user_attrs.get("los")
        batches = trial.user_attrs.get("batches", 0)
        return los is not None and batches >= self.min_batches and los < self.threshold


class TrialPruner(optuna.pruners.BasePruner):
    """The LOS pruner, then (if given) Optuna's successive halving over game budgets: a trial
    stops when it is clearly worse than the champion, or when at a rung of its game budget it is
    not among the best ``1 / reduction_factor`` of the trials that reached that rung."""

    def __init__(self, los: LosPruner, halving: optuna.pruners.SuccessiveHalvingPruner | None) -> None:
        """Combine ``los`` with ``halving`` (None: no halving)."""
        self.los = los
        self.halving = halving

    def prune(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> bool:
        """True when either rule stops the trial."""
        if self.los.prune(study, trial):
            return True
        return self.halving is not None and self.halving.prune(study, trial)


def make_pruner(prune_los: float, min_trial_pairs: int, trial_pairs: int, halving_factor: int) -> TrialPruner:
    """The pruner of a study whose trials report after each batch at step = games counted."""
    halving = None
    if min_trial_pairs < trial_pairs:
        halving = optuna.pruners.SuccessiveHalvingPruner(
            min_resource=2 * min_trial_pairs, reduction_factor=halving_factor, min_early_stopping_rate=0
        )
    return TrialPruner(LosPruner(prune_los), halving)
