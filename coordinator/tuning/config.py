"""The full configuration of a tuning run, stored with the run as JSON."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import engine
from coordinator.defaults import ADJUDICATION, TUNE_BATCH_PAIRS, TUNE_LIMITS
from coordinator.sprt.config import SprtConfig, derive_seed, fingerprint
from coordinator.stats.inputs import check_hypotheses
from coordinator.tuning import spsa
from wire.programs import EngineProgram

METHODS = ("optuna", "spsa")
#: Optuna's samplers a run may use (made in ``tuning.space``).
SAMPLERS = ("tpe", "cmaes", "random")
#: Settings kept out of a configuration's JSON while they hold their default (the fingerprints of
#: runs made before they existed stay what they were).
_OMITTED_AT_DEFAULT: dict[str, Any] = {
    "program": None,
    "ranges": {},
    "spsa_rounding": "nearest",
    "spsa_table": [],
    "acceptance_in_budget": False,
}
#: How SPSA makes a perturbed theta whole numbers: to the nearest, or as fishtest does.
ROUNDINGS = ("nearest", "stochastic")


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


@dataclass(frozen=True)
class Tunable:
    """A number a tuning run may change: an evaluation weight of the built-in engine, or a spin
    option of an engine program."""

    name: str
    min: int
    max: int
    default: int
    description: str


@dataclass(frozen=True)
class TuneConfig:
    """Everything that defines a tuning run (JSON round-trips through :meth:`to_json`)."""

    game: str
    params: list[str]
    start: dict[str, int]
    openings: list[str]
    engine_version: str
    sampler: str = "tpe"
    seed: int = 0
    trial_pairs: int = 32
    batch_pairs: int = TUNE_BATCH_PAIRS
    limits: engine.Limits = TUNE_LIMITS
    adjudication: engine.Adjudication = ADJUDICATION
    # A trial is pruned when its LOS against the champion falls below this (see tuning/pruning.py).
    prune_los: float = 0.05
    # The full SPRT a promising trial must pass to become champion.
    accept_elo0: float = 0.0
    accept_elo1: float = 5.0
    accept_alpha: float = 0.05
    accept_beta: float = 0.05
    accept_margin: float = 20.0
    accept_max_games: int = 4000
    max_trials: int | None = 50
    max_games: int | None = None
    time_limit: float | None = None
    book: str = ""
    start_source: str = "default"
    # Stored configurations older than SPSA have no method: they are Optuna's. (The CLI's
    # default is spsa.)
    method: str = "optuna"
    # Optuna: each tuned weight's range narrowed to the start +- radius * the table's range.
    radius: float | None = None
    # Optuna: trials open at once. Trial k is asked once trial k - parallel_trials has ended, been
    # told and had its acceptance SPRTs: the same trials with any number of workers.
    parallel_trials: int = 8
    # Successive halving over game budgets: every trial plays min_trial_pairs, the best
    # 1/halving_factor of those go on to halving_factor times as many, and so on to trial_pairs.
    min_trial_pairs: int = 8
    halving_factor: int = 3
    # Acceptance SPRTs at each of these node limits in turn (none: at the trials' limits).
    accept_nodes: list[int] = field(default_factory=list)
    # SPSA: its planned games are max_games; theta plays an acceptance SPRT every accept_every of
    # them and at the end; iteration k plays theta after iterations 0 .. k - spsa_lag - 1.
    accept_every: int | None = None
    spsa_lag: int = 8
    spsa_c_end: float = spsa.C_END_FRACTION
    spsa_r_end: float = spsa.R_END
    spsa_a_ratio: float = spsa.A_RATIO
    spsa_alpha: float = spsa.ALPHA
    spsa_gamma: float = spsa.GAMMA
    #: The engine program tuned (its spin options are the parameters), or None: the built-in
    #: engine's weights. ``ranges`` holds each spin option's [min, max], as the program declared.
    program: EngineProgram | None = None
    ranges: dict[str, list[int]] = field(default_factory=dict)
    #: SPSA: how theta +- c is made whole (fishtest: stochastically), and the parameter list in
    #: OpenBench's format when one was given: [name, start, min, max, c_end, r_end] each.
    spsa_rounding: str = "nearest"
    spsa_table: list[list[Any]] = field(default_factory=list)
    #: SPSA: ``max_games`` bounds every game of the run, its acceptance SPRTs' included (each
    #: reserved at its whole ``accept_max_games``), not only its iterations'. False for runs
    #: stored before budgets counted every game (their iterations stay what they were).
    acceptance_in_budget: bool = False

    def __post_init__(self) -> None:
        """Reject settings no run could use."""
        if self.spsa_rounding not in ROUNDINGS:
            raise ValueError(
                f"--rounding: expected one of {', '.join(ROUNDINGS)}, got {self.spsa_rounding!r}"
            )
        if self.method not in METHODS:
            raise ValueError(
                f"--method: unknown method {self.method!r}, expected one of {', '.join(METHODS)}"
            )
        if self.radius is not None and not 0 < self.radius <= 1:
            raise ValueError(f"--radius must be a fraction of each range in (0, 1], got {self.radius:g}")
        if self.min_trial_pairs < 1:
            raise ValueError(
                f"--min-trial-pairs: expected a positive number of pairs, got {self.min_trial_pairs}"
            )
        if self.parallel_trials < 1:
            raise ValueError(
                f"--parallel-trials: expected a positive number of trials, got {self.parallel_trials}"
            )
        if self.halving_factor < 2:
            raise ValueError(f"--halving-factor must be at least 2, got {self.halving_factor}")
        if any(n < 1 for n in self.accept_nodes):
            raise ValueError(f"--accept-nodes: node limits must be positive, got {self.accept_nodes}")
        if len(set(self.accept_nodes)) != len(self.accept_nodes):
            raise ValueError(f"--accept-nodes names a node limit twice: {self.accept_nodes}")
        if self.accept_every is not None and self.accept_every < 1:
            raise ValueError(f"--accept-every: expected a positive number of games, got {self.accept_every}")
        if self.spsa_lag < 0:
            raise ValueError(f"--spsa-lag: expected 0 or more iterations, got {self.spsa_lag}")
        for flag, value in (("--c-end", self.spsa_c_end), ("--r-end", self.spsa_r_end)):
            if not value > 0:
                raise ValueError(f"{flag} must be positive, got {value:g}")
        if self.spsa_a_ratio < 0:
            raise ValueError(f"--a-ratio must be 0 or more, got {self.spsa_a_ratio:g}")
        if self.method == "spsa" and (self.max_games is None or self.iterations < 1):
            least = self.spsa_games(1) if self.acceptance_in_budget else 2 * self.batch_pairs
            raise ValueError(
                f"--max-games: SPSA plans its gains over its games; give at least one iteration "
                f"and its acceptance SPRTs ({least} games), got {self.max_games}"
                if self.acceptance_in_budget
                else f"--max-games: SPSA plans its gains over its games; give at least one iteration "
                f"({least} games), got {self.max_games}"
            )
        check_hypotheses(self.accept_elo0, self.accept_elo1, "normalized", ("--accept-elo0", "--accept-elo1"))
        if not 0 < self.prune_los < 1:
            raise ValueError(f"--prune-los must be between 0 and 1, got {self.prune_los}")
        if not (math.isfinite(self.accept_margin) and self.accept_margin > 0):
            raise ValueError(f"--accept-margin must be a positive number, got {self.accept_margin}")
        # A trial's own SPRT runs from 0 to the margin in logistic Elo: it must be computable too.
        check_hypotheses(0.0, self.accept_margin, "logistic", ("0", "--accept-margin"))
        if not self.params:
            raise ValueError("params: at least one weight must be tuned")
        for name, value in (("trial_pairs", self.trial_pairs), ("batch_pairs", self.batch_pairs)):
            if value < 1:
                raise ValueError(f"{name}: expected a positive number of pairs, got {value}")
        if self.time_limit is not None and self.time_limit <= 0:
            raise ValueError(f"time_limit: expected a positive number of seconds, got {self.time_limit}")
        if self.method == "spsa":
            self.spsa_plan()  # its gains must be computable (SpsaPlan checks them)

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        out = {
            **data,
            "params": list(self.params),
            "start": dict(self.start),
            "openings": list(self.openings),
            "accept_nodes": list(self.accept_nodes),
            "limits": self.limits.to_json(),
            "adjudication": self.adjudication.to_json(),
            "program": None if self.program is None else self.program.to_json(),
            "ranges": {k: list(v) for k, v in self.ranges.items()},
            "spsa_table": [list(row) for row in self.spsa_table],
        }
        return {k: v for k, v in out.items() if k not in _OMITTED_AT_DEFAULT or v != _OMITTED_AT_DEFAULT[k]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TuneConfig:
        """Inverse of :meth:`to_json`."""
        return cls(
            **{
                **data,
                "limits": engine.Limits.from_json(data.get("limits")),
                "adjudication": engine.Adjudication.from_json(data.get("adjudication")),
                "program": None if data.get("program") is None else EngineProgram.from_json(data["program"]),
            }
        )

    def tunables(self) -> list[Tunable]:
        """Everything this run could tune, in order: the built-in engine's weight table, or the
        tuned program's spin options."""
        if self.program is None:
            table = engine.weights(self.game)
            return [Tunable(w.name, w.min, w.max, w.default, w.description) for w in table]
        what = f"spin option of {self.program.name}"
        return [Tunable(n, lo, hi, self.start.get(n, lo), what) for n, (lo, hi) in self.ranges.items()]

    def spsa_plan(self) -> spsa.SpsaPlan:
        """The SPSA plan of the run: its tuned parameters' ranges (the engine's weight table, or
        the tuned program's spin options), and each one's c_end and r_end where its parameter list
        (in OpenBench's format) gives them."""
        if self.spsa_table:
            weights = tuple(
                spsa.SpsaWeight(name, int(low), int(high), float(c_end), float(r_end))
                for name, _, low, high, c_end, r_end in self.spsa_table
            )
            return spsa.SpsaPlan(
                weights,
                self.iterations,
                self.batch_pairs,
                self.spsa_a_ratio,
                self.spsa_alpha,
                self.spsa_gamma,
            )
        table = {t.name: t for t in self.tunables()}
        return spsa.plan_for(
            [(name, table[name].min, table[name].max) for name in self.params],
            self.iterations,
            self.batch_pairs,
            self.spsa_c_end,
            self.spsa_r_end,
            self.spsa_a_ratio,
            self.spsa_alpha,
            self.spsa_gamma,
        )

    def fingerprint(self) -> str:
        """Equal for runs with the same settings."""
        return fingerprint(self.to_json())

    @property
    def stages(self) -> int:
        """Acceptance SPRTs a candidate must pass: one per ``accept_nodes`` value, or one."""
        return max(1, len(self.accept_nodes))

    def stage_limits(self, stage: int) -> engine.Limits:
        """The search limits of acceptance stage ``stage``."""
        return engine.Limits(nodes=self.accept_nodes[stage]) if self.accept_nodes else self.limits

    @property
    def iterations(self) -> int:
        """SPSA iterations planned: the game budget in whole batches, less (with
        ``acceptance_in_budget``) the games every acceptance SPRT of theta may play."""
        per_iteration = 2 * self.batch_pairs
        budget = self.max_games or 0
        if not self.acceptance_in_budget:
            return budget // per_iteration
        low, high = 0, budget // per_iteration  # the most iterations whose games fit, with their SPRTs
        while low < high:
            middle = (low + high + 1) // 2
            if self.spsa_games(middle) <= budget:
                low = middle
            else:
                high = middle - 1
        return low

    def spsa_games(self, iterations: int) -> int:
        """The most games ``iterations`` SPSA iterations play with their acceptance SPRTs: theta
        goes to them each time the iterations' games pass a multiple of ``accept_every`` and after
        the last iteration, and each plays every acceptance stage to its game cap at most."""
        if iterations == 0:
            return 0
        games = iterations * 2 * self.batch_pairs
        every = self.accept_every
        checkpoints = 1
        if every:
            crossings = games // every
            last_crosses = crossings > (games - 2 * self.batch_pairs) // every
            checkpoints = crossings + (0 if last_crosses else 1)
        return games + checkpoints * self.stages * self.accept_max_games

    def _match(
        self,
        seed: int,
        candidate: dict[str, int],
        baseline: dict[str, int],
        sources: tuple[str, str],
        limits: engine.Limits | None = None,
        **sprt: Any,
    ) -> SprtConfig:
        """A match of ``candidate`` against ``baseline``: the run's game, book, limits (unless
        given) and batches, with the given SPRT settings, budget and seed."""
        programs: dict[str, Any] = {}
        if self.program is not None:  # the parameters are the program's options; no weights
            base = dict(self.program.options)
            programs = {
                "candidate_program": replace(self.program, options=base | dict(candidate)),
                "baseline_program": replace(self.program, options=base | dict(baseline)),
            }
            candidate, baseline = {}, {}
        return SprtConfig(
            game=self.game,
            candidate=dict(candidate),
            baseline=dict(baseline),
            openings=self.openings,
            engine_version=self.engine_version,
            limits=self.limits if limits is None else limits,
            adjudication=self.adjudication,
            batch_pairs=self.batch_pairs,
            seed=seed,
            book=self.book,
            candidate_source=sources[0],
            baseline_source=sources[1],
            **programs,
            **sprt,
        )

    def _acceptance_sprt(self) -> dict[str, Any]:
        """The acceptance SPRTs' hypotheses (normalized Elo) and error rates."""
        return {
            "elo0": self.accept_elo0,
            "elo1": self.accept_elo1,
            "elo_model": "normalized",
            "alpha": self.accept_alpha,
            "beta": self.accept_beta,
        }

    def match_config(
        self,
        seed: int,
        candidate: dict[str, int],
        baseline: dict[str, int],
        sources: tuple[str, str],
        limits: engine.Limits,
        max_games: int,
    ) -> SprtConfig:
        """An SPRT of ``candidate`` against ``baseline`` at ``limits`` with the acceptance SPRTs'
        hypotheses (a campaign's verification of a round's champion)."""
        return self._match(
            seed,
            candidate,
            baseline,
            sources,
            limits,
            max_games=max_games,
            **self._acceptance_sprt(),
        )

    def trial_config(
        self, number: int, candidate: dict[str, int], reference: dict[str, int], tag: str
    ) -> SprtConfig:
        """A trial: up to ``trial_pairs`` pairs against the fixed reference, the start weights
        (the pruner may stop it earlier). Its SPRT settings (logistic 0 against the margin) only
        end it early when it is clearly better than the reference."""
        return self._match(
            derive_seed(self.seed, "trial", number),
            candidate,
            reference,
            (f"{tag} trial {number}", f"{tag} start"),
            elo0=0.0,
            elo1=self.accept_margin,
            elo_model="logistic",
            alpha=0.1,
            beta=0.1,
            max_games=2 * self.trial_pairs,
        )

    def accept_config(
        self, number: int, candidate: dict[str, int], champion: dict[str, int], tag: str, stage: int = 0
    ) -> SprtConfig:
        """The acceptance SPRT of candidate ``number`` (an Optuna trial or an SPSA iteration)
        against the current champion, at the limits of acceptance stage ``stage``."""
        labels = ("accept", number) if stage == 0 else ("accept", number, "stage", stage)
        what = "trial" if self.method == "optuna" else "iteration"
        return self._match(
            derive_seed(self.seed, *labels),
            candidate,
            champion,
            (f"{tag} {what} {number}", f"{tag} champion"),
            self.stage_limits(stage),
            max_games=self.accept_max_games,
            **self._acceptance_sprt(),
        )

    def iteration_config(
        self, iteration: int, plus: dict[str, int], minus: dict[str, int], tag: str
    ) -> SprtConfig:
        """SPSA iteration ``iteration``: one batch of theta+ (the candidate) against theta-. Its
        SPRT settings never matter: the one batch is its whole budget, and it always counts."""
        return self._match(
            derive_seed(self.seed, "iteration", iteration),
            plus,
            minus,
            (f"{tag} iteration {iteration} theta+", f"{tag} iteration {iteration} theta-"),
            max_games=2 * self.batch_pairs,
        )
