"""The search space of a tuning run, taken from the engine's weight table (the single source of
names and ranges), optionally narrowed around the start weights, and the Optuna samplers that
explore it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import optuna

import engine
from coordinator.sprt.config import derive_seed
from coordinator.tuning.config import SAMPLERS

#: CMA-ES's first step, as a fraction of each weight's search range (Optuna's default is 1/6).
CMAES_SIGMA0 = 0.1


def distributions(
    game: str,
    names: Sequence[str],
    center: Mapping[str, int] | None = None,
    radius: float | None = None,
) -> dict[str, optuna.distributions.IntDistribution]:
    """Integer distributions with the table's ranges, or (``radius``) each narrowed to
    ``center`` +- radius * the table's range (at least +-1), inside the table's range."""
    table = {w.name: w for w in engine.weights(game)}
    space: dict[str, optuna.distributions.IntDistribution] = {}
    for name in names:
        low, high = table[name].min, table[name].max
        if low >= high:
            raise ValueError(f"weight {name} has an empty range {low}..{high}")
        if radius is not None and center is not None:
            reach = max(1, round(radius * (high - low)))
            low, high = max(low, center[name] - reach), min(high, center[name] + reach)
        space[name] = optuna.distributions.IntDistribution(low, high)
    return space


def _sampler(name: str, start: Mapping[str, int] | None, seed: int) -> optuna.samplers.BaseSampler:
    """One of the samplers, seeded with ``seed``."""
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
    return optuna.samplers.RandomSampler(seed=seed)


class TrialSeededSampler(optuna.samplers.BaseSampler):
    """A sampler whose proposals for trial ``k`` are a function of the seed, ``k`` and the trials
    in the study: each call is answered by a new inner sampler seeded from the seed and ``k`` (and,
    for a weight sampled on its own, its name).

    Optuna's samplers draw from one random stream per process, so what trial ``k`` gets depends on
    every call made before in that process: a resumed coordinator, or a trial asked again after a
    kill in the middle of its ask, would get other weights. TPE (with its constant liar, which
    reads the running trials' weights) and CMA-ES (whose state is kept in the trials' system
    attributes) take everything else from the study itself.
    """

    def __init__(self, name: str, seed: int, start: Mapping[str, int] | None = None) -> None:
        """Sampler ``name`` seeded from ``seed`` (CMA-ES starting from ``start``, when given)."""
        self.name = name
        self.seed = seed
        self.start = start

    def inner(self, trial: optuna.trial.FrozenTrial, *labels: object) -> optuna.samplers.BaseSampler:
        """The sampler that answers for ``trial`` (and ``labels``)."""
        return _sampler(
            self.name, self.start, derive_seed(self.seed, "sampler", trial.number, *labels) % 2**32
        )

    def infer_relative_search_space(
        self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial
    ) -> dict[str, optuna.distributions.BaseDistribution]:
        """The inner sampler's joint search space."""
        return self.inner(trial).infer_relative_search_space(study, trial)

    def sample_relative(
        self,
        study: optuna.study.Study,
        trial: optuna.trial.FrozenTrial,
        search_space: dict[str, optuna.distributions.BaseDistribution],
    ) -> dict[str, Any]:
        """The inner sampler's joint proposal."""
        return self.inner(trial).sample_relative(study, trial, search_space)

    def sample_independent(
        self,
        study: optuna.study.Study,
        trial: optuna.trial.FrozenTrial,
        param_name: str,
        param_distribution: optuna.distributions.BaseDistribution,
    ) -> Any:
        """The inner sampler's proposal for one weight, from a stream of its own."""
        return self.inner(trial, param_name).sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study: optuna.study.Study, trial: optuna.trial.FrozenTrial) -> None:
        """The inner sampler's hook."""
        self.inner(trial).before_trial(study, trial)

    def after_trial(
        self,
        study: optuna.study.Study,
        trial: optuna.trial.FrozenTrial,
        state: optuna.trial.TrialState,
        values: Sequence[float] | None,
    ) -> None:
        """The inner sampler's hook."""
        self.inner(trial).after_trial(study, trial, state, values)


def make_sampler(name: str, seed: int, start: Mapping[str, int] | None = None) -> TrialSeededSampler:
    """Multivariate TPE with a constant liar (several trials in flight), CMA-ES, or random, each
    seeded per trial. CMA-ES starts from ``start`` (the champion), when given, with a small first
    step."""
    if name not in SAMPLERS:
        raise ValueError(f"unknown sampler {name!r}: expected one of {', '.join(SAMPLERS)}")
    return TrialSeededSampler(name, seed, start)


def candidate_weights(champion: Mapping[str, int], trial_params: Mapping[str, Any]) -> dict[str, int]:
    """The champion's weights with the trial's values for the tuned names."""
    return {**champion, **{k: int(v) for k, v in trial_params.items()}}
