"""The search space of a tuning run, taken from the engine's weight table (the single source of
names and ranges), and the Optuna samplers and pruner that explore it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import optuna

import engine

SAMPLERS = ("tpe", "cmaes", "random")


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


def distributions(game: str, names: Sequence[str]) -> dict[str, optuna.distributions.BaseDistribution]:
    """Integer distributions with exactly the table's ranges."""
    table = {w.name: w for w in engine.weights(game)}
    for name in names:
        if table[name].min >= table[name].max:
            raise ValueError(f"weight {name} has an empty range {table[name].min}..{table[name].max}")
    return {n: optuna.distributions.IntDistribution(table[n].min, table[n].max) for n in names}


def make_sampler(name: str, seed: int) -> optuna.samplers.BaseSampler:
    """Multivariate TPE with a constant liar (several trials in flight), CMA-ES, or random."""
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
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
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
