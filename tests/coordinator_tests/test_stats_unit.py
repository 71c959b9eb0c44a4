"""Unit tests of coordinator.stats: bounds, validation, overshoot, symmetry, summary."""

from __future__ import annotations

import math

import pytest

from coordinator.cli.stats import MAX_COUNT
from coordinator.stats import (
    SUMMARY_KEYS,
    SprtParams,
    SprtState,
    bayeselo_to_elo,
    bayeselo_to_proba,
    decide,
    draw_elo,
    elo_to_score,
    fixed_elo,
    llr,
    llr_legacy_bayeselo,
    nelo,
    proba_to_bayeselo,
    run_sprt,
    score_to_elo,
    sprt_bounds,
    sprt_elo,
    sprt_summary,
    update_sprt,
)
from coordinator.stats.inputs import (
    MAX_HYPOTHESIS_ELO,
    MIN_HYPOTHESIS_WIDTH,
    HypothesisError,
    check_hypotheses,
)
from coordinator.stats.numeric import NoSignChange, brent_root, phi, phi_inv
from coordinator.stats.pdf import mean_var, mle_expected, mle_t_value, results_to_pdf
from coordinator.stats.residuals import outliers_against
from coordinator.stats.sprt_elo import llr_drift_variance

EXPECTED_SUMMARY_KEYS = {
    "llr",
    "lower_bound",
    "upper_bound",
    "state",
    "elo",
    "elo95",
    "los",
    "sprt_elo",
    "sprt_elo_ci",
    "sprt_los",
    "nelo",
    "nelo_ci",
}

PENTA = [10, 50, 200, 55, 12]
LDW = [591, 2163, 716]

# --------------------------------------------------------------------------- bounds


def test_bounds_default_error_rates() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.9444389791664403, abs=1e-12)
    assert upper == pytest.approx(2.9444389791664403, abs=1e-12)


def test_bounds_formula_with_unequal_error_rates() -> None:
    lower, upper = sprt_bounds(0.01, 0.2)
    assert lower == pytest.approx(math.log(0.2 / 0.99))
    assert upper == pytest.approx(math.log(0.8 / 0.01))
    assert SprtParams(elo0=0, elo1=2, alpha=0.01, beta=0.2).bounds == (lower, upper)


def test_decide_thresholds() -> None:
    assert decide(-3.0, -2.94, 2.94) == "rejected"
    assert decide(3.0, -2.94, 2.94) == "accepted"
    assert decide(0.0, -2.94, 2.94) == "continue"
    assert decide(-2.9, -2.94, 2.94, overshoot0=0.1) == "rejected"
    assert decide(2.9, -2.94, 2.94, overshoot1=0.1) == "accepted"


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"pentanomial": [1, 2, -3, 4, 5]}, r"pentanomial\[2\].*non-negative"),
        ({"wdl": [10, -1, 5]}, r"wdl\[1\].*non-negative"),
        ({"wdl": [10, 5]}, r"wdl: expected 3 counts"),
        ({"pentanomial": [1, 2, 3]}, r"pentanomial: expected 5 counts"),
        ({"wdl": [1, "x", 3]}, r"wdl\[1\]: expected a number"),
        ({"wdl": [1, math.nan, 3]}, r"wdl\[1\]"),
        ({}, r"counts: expected pentanomial .* or wdl"),
        ({"wdl": [10, 5, 5], "elo0": 2, "elo1": 2}, r"elo1: expected a value greater than elo0"),
        ({"wdl": [10, 5, 5], "elo0": 3, "elo1": 1}, r"elo1: expected a value greater than elo0"),
        ({"wdl": [10, 5, 5], "alpha": 0}, r"alpha: expected .*between 0 and 1"),
        ({"wdl": [10, 5, 5], "alpha": 1.5}, r"alpha: expected .*between 0 and 1"),
        ({"wdl": [10, 5, 5], "beta": 1}, r"beta: expected .*between 0 and 1"),
        ({"wdl": [10, 5, 5], "beta": -0.1}, r"beta: expected .*between 0 and 1"),
        ({"wdl": [10, 5, 5], "alpha": 0.6, "beta": 0.5}, r"alpha \+ beta < 1"),
        ({"wdl": [10, 5, 5], "elo_model": "glicko"}, r"elo_model: unknown model 'glicko'; expected one of"),
        ({"pentanomial": PENTA, "elo_model": "BayesElo"}, r"elo_model: BayesElo needs win/draw/loss"),
    ],
)
def test_summary_rejects_bad_input(kwargs: dict, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        sprt_summary(**kwargs)


def test_low_level_functions_validate_too() -> None:
    with pytest.raises(ValueError, match=r"results: expected 3 counts .* or 5 counts"):
        llr([1, 2, 3, 4], 0, 2, "logistic")
    with pytest.raises(ValueError, match=r"results\[0\]: expected a finite non-negative count"):
        fixed_elo([-1, 2, 3])
    with pytest.raises(ValueError, match=r"elo_model: unknown model"):
        sprt_elo(LDW, 0, 2, "elo")
    with pytest.raises(ValueError, match=r"batch_size: expected a positive integer"):
        SprtParams(elo0=0, elo1=2, batch_size=0)
    with pytest.raises(ValueError, match=r"elo1: expected a value greater than elo0"):
        SprtParams(elo0=1, elo1=1)
    with pytest.raises(ValueError, match=r"alpha: expected"):
        sprt_bounds(0.0, 0.05)


@pytest.mark.parametrize(
    ("elo0", "elo1", "model", "pattern"),
    [
        (0, 1e-300, "normalized", r"elo1: expected at least elo0 \+ 0.01 = 0.01 .*got 1e-300"),
        (0.1, 0.105, "logistic", r"elo1: expected at least elo0 \+ 0.01 = 0.11"),
        (-5000, 5000, "logistic", r"elo0: expected a value between -1000 and 1000 \(logistic Elo\)"),
        (0, 1000.5, "BayesElo", r"elo1: expected a value between -1000 and 1000 \(BayesElo Elo\)"),
        (0, 250, "normalized", r"elo1: expected a value between -200 and 200 \(normalized Elo\)"),
        (-1e308, 1e308, "normalized", r"elo0: expected a value between -200 and 200"),
        (0, math.inf, "logistic", r"elo1: expected a finite number"),
    ],
)
def test_hypotheses_the_statistics_cannot_compute_are_refused(
    elo0: float, elo1: float, model: str, pattern: str
) -> None:
    with pytest.raises(HypothesisError, match=pattern):
        check_hypotheses(elo0, elo1, model)
    for compute in (
        lambda: llr(LDW, elo0, elo1, model),
        lambda: sprt_elo(LDW, elo0, elo1, model),
        lambda: SprtParams(elo0=elo0, elo1=elo1, elo_model=model),  # type: ignore[arg-type]
    ):
        with pytest.raises(ValueError, match=pattern):
            compute()


def test_hypothesis_bounds_are_inclusive_and_errors_name_the_callers_inputs() -> None:
    for model, limit in MAX_HYPOTHESIS_ELO.items():
        assert check_hypotheses(-limit, limit, model) == (-limit, limit)
        assert check_hypotheses(limit - MIN_HYPOTHESIS_WIDTH, limit, model)
    assert check_hypotheses(0.1, 0.11) == (0.1, 0.11)  # 0.11 - 0.1 < 0.01 by rounding only
    with pytest.raises(HypothesisError) as raised:
        check_hypotheses(0, 0.001, "normalized", ("--accept-elo0", "--accept-elo1"))
    assert raised.value.name == "--accept-elo1"
    assert raised.value.expected.startswith("expected at least --accept-elo0 + 0.01")


#: Lopsided counts (empty cells beside many counts) in ascending-score order.
EXTREME_PENTA = [
    [0, 0, 0, 0, 0],
    [0, 0, 0, 0, 1],
    [1, 0, 0, 0, 0],
    [0, 0, 1, 0, 0],
    [0, 1, 0, 0, 0],
    [0, 0, 0, 1, 0],
    [1, 0, 0, 0, 1],
    [0, 1, 0, 1, 0],
    [1, 0, 3, 10, 0],
    [10, 50, 200, 55, 12],
]
EXTREME_LDW = [[0, 0, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 1], [0, 5, 1], [591, 2163, 716]]


def _edge_hypotheses(model: str) -> list[tuple[float, float]]:
    """The narrowest and widest hypotheses at the bounds of ``model``."""
    limit, width = MAX_HYPOTHESIS_ELO[model], MIN_HYPOTHESIS_WIDTH  # type: ignore[index]
    return [(0, width), (-limit, -limit + width), (limit - width, limit), (-limit, limit)]


@pytest.mark.parametrize("model", ["logistic", "normalized", "BayesElo"])
@pytest.mark.parametrize("scale", [1, 10**6, MAX_COUNT])
def test_every_statistic_is_computed_for_any_accepted_hypothesis_and_counts(model: str, scale: int) -> None:
    samples = [{"wdl": [c * scale for c in ldw[::-1]]} for ldw in EXTREME_LDW]
    if model != "BayesElo":
        samples += [{"pentanomial": [c * scale for c in penta]} for penta in EXTREME_PENTA]
    elif scale > 10**6:  # a draw rate of 1 - 1e-15 makes every BayesElo bound one logistic Elo
        samples = [s for s in samples if s["wdl"][1] == 0 or s["wdl"][0] + s["wdl"][2] > 0]
    for elo0, elo1 in _edge_hypotheses(model):
        for sample in samples:
            summary = sprt_summary(**sample, elo0=elo0, elo1=elo1, elo_model=model)
            values = [summary[key] for key in SUMMARY_KEYS if key != "state"]  # type: ignore[literal-required]
            flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
            assert all(math.isfinite(x) for x in flat), (sample, elo0, elo1, summary)
            assert 0 <= summary["los"] <= 1 and 0 <= summary["sprt_los"] <= 1, (sample, summary)
            low, high = summary["sprt_elo_ci"]
            assert low <= summary["sprt_elo"] + 1e-9 and summary["sprt_elo"] <= high + 1e-9, summary


def test_bayeselo_bounds_that_collapse_at_a_sample_draw_rate_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match=r"elo0, elo1: \[0, 5\] \(BayesElo\) .*cannot be estimated"):
        sprt_summary(wdl=[0, MAX_COUNT, 0], elo0=0, elo1=5, elo_model="BayesElo")


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize(
    "counts",
    [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0]],
)
def test_lopsided_llr_per_sample_converges_up_to_the_largest_count(model: str, counts: list[int]) -> None:
    # Empty cells are regularized to 1e-3 counts: beside 10^12 counts the fit's root lies within
    # 1e-15 of its pole, where fishtest's bracket (1e-9 inside it) finds no root.
    per_sample = [llr([c * n for c in counts], 0, 5, model) / n for n in (10**9, MAX_COUNT)]
    assert per_sample[1] == pytest.approx(per_sample[0], rel=1e-6)


def test_lopsided_fits_keep_their_constraint() -> None:
    _, pdf = results_to_pdf([MAX_COUNT, 0, 0, 0, 0])
    for score in (0.3, 0.5, 0.9):
        fit = mle_expected(pdf, score)
        assert sum(p for _, p in fit) == pytest.approx(1, abs=1e-12)
        assert mean_var(fit)[0] == pytest.approx(score, abs=1e-12)
    fit = mle_t_value(pdf, 0.5, 0.2)
    mean, var = mean_var(fit)
    assert (mean - 0.5) / var**0.5 == pytest.approx(0.2, abs=1e-6)


def test_model_names_are_case_insensitive() -> None:
    assert SprtParams(elo0=0, elo1=2, elo_model="bayeselo").elo_model == "BayesElo"
    assert llr(LDW, 0, 2, "LOGISTIC") == llr(LDW, 0, 2, "logistic")


# --------------------------------------------------------------------------- overshoot

# Batches of 20 games [L, D, W] for a candidate around +20 Elo; cumulative updates.
BATCHES = [
    (3, 10, 7),
    (4, 9, 7),
    (2, 11, 7),
    (3, 10, 7),
    (2, 10, 8),
    (5, 9, 6),
    (2, 9, 9),
    (3, 10, 7),
    (2, 11, 7),
    (3, 9, 8),
    (2, 10, 8),
    (3, 10, 7),
    (2, 9, 9),
]


def _cumulative(batches: list[tuple[int, int, int]]) -> list[list[int]]:
    total = [0, 0, 0]
    out = []
    for batch in batches:
        total = [t + b for t, b in zip(total, batch, strict=True)]
        out.append(list(total))
    return out


def _expected_overshoot(llrs: list[float], upper_side: bool) -> float:
    """Siegmund's estimate sum(jump^2) / (2 sum(jump)) over record highs (or lows)."""
    ref = 0.0
    m = sq = 0.0
    for value in llrs:
        if (value > ref) if upper_side else (value < ref):
            m += value - ref
            sq += (value - ref) ** 2
            ref = value
    return abs(sq / m / 2) if m else 0.0


def test_overshoot_accepts_before_the_raw_bound() -> None:
    params = SprtParams(elo0=0, elo1=10, elo_model="logistic", batch_size=20)
    updates = _cumulative(BATCHES)
    states = run_sprt(params, updates)
    llrs = [llr(u, 0, 10, "logistic") for u in updates]
    _, upper = params.bounds
    decisions = [s.state for s in states]
    # The LLR is still below the upper bound at update 12 ...
    assert llrs[11] < upper
    # ... but the expected overshoot moved the bound inward: accepted there.
    assert decisions == ["continue"] * 11 + ["accepted", "accepted"]
    for i, state in enumerate(states):
        assert state.llr == pytest.approx(llrs[i], abs=1e-12)
        assert state.overshoot is not None
        assert state.overshoot.upper == pytest.approx(_expected_overshoot(llrs[: i + 1], True), rel=1e-12)
        assert state.overshoot.lower == 0.0
        assert state.overshoot.last_update == 20 * (i + 1)
    # Without the batch history (a single evaluation) the same counts still continue.
    assert update_sprt(params, SprtState(), updates[11]).state == "continue"
    assert decide(llrs[11], *params.bounds) == "continue"


def test_overshoot_rejects_before_the_raw_bound() -> None:
    """Mirror image: swap wins and losses and the hypotheses; now the lower side acts."""
    params = SprtParams(elo0=-10, elo1=0, elo_model="logistic", batch_size=20)
    updates = _cumulative([(w, d, lo) for lo, d, w in BATCHES])
    states = run_sprt(params, updates)
    llrs = [llr(u, -10, 0, "logistic") for u in updates]
    lower, _ = params.bounds
    assert llrs[11] > lower
    assert [s.state for s in states] == ["continue"] * 11 + ["rejected", "rejected"]
    assert states[-1].overshoot is not None
    assert states[-1].overshoot.lower == pytest.approx(_expected_overshoot(llrs, False), rel=1e-12)
    assert states[-1].overshoot.upper == 0.0


def test_overshoot_same_counts_twice_is_harmless() -> None:
    params = SprtParams(elo0=0, elo1=10, elo_model="logistic", batch_size=20)
    updates = _cumulative(BATCHES[:5])
    once = run_sprt(params, updates)[-1]
    twice = update_sprt(params, once, updates[-1])
    assert twice == once


def test_overshoot_dropped_when_contract_broken() -> None:
    params = SprtParams(elo0=0, elo1=10, elo_model="logistic", batch_size=20)
    updates = _cumulative(BATCHES[:5])
    state = run_sprt(params, updates)[-1]
    # Fewer samples than before: data was lost; overshoot correction is abandoned.
    lost = update_sprt(params, state, updates[2])
    assert lost.overshoot is None
    assert lost.lost_samples == 40
    # And stays abandoned on later regular updates.
    later = update_sprt(params, lost, updates[-1])
    assert later.overshoot is None
    # A count that is not a multiple of the batch size is illegal.
    illegal = update_sprt(params, state, [15, 51, 35])
    assert illegal.overshoot is None
    assert illegal.illegal_update == 101


def test_overshoot_skipped_batches_restart_records() -> None:
    params = SprtParams(elo0=0, elo1=10, elo_model="logistic", batch_size=20)
    updates = _cumulative(BATCHES[:6])
    state = run_sprt(params, updates[:2])[-1]
    jumped = update_sprt(params, state, updates[5])  # 40 -> 120 samples: 3 batches missed
    assert jumped.overshoot is not None
    assert jumped.overshoot.skipped_updates == (120 - 40) - 1  # fishtest's audit count
    assert jumped.overshoot.last_update == 120
    assert jumped.overshoot.ref0 == jumped.overshoot.ref1 == pytest.approx(jumped.llr)
    assert jumped.overshoot.m1 == state.overshoot.m1  # type: ignore[union-attr]


# --------------------------------------------------------------------------- symmetry


@pytest.mark.parametrize("counts", [LDW, [13624, 34333, 13543], [0, 3, 17]])
def test_swapping_wins_and_losses_negates_elo(counts: list[int]) -> None:
    swapped = counts[::-1]
    a, b = fixed_elo(counts), fixed_elo(swapped)
    assert b.elo == pytest.approx(-a.elo, abs=1e-9)
    assert b.elo95 == pytest.approx(a.elo95, abs=1e-9)
    assert b.los == pytest.approx(1 - a.los, abs=1e-9)
    assert nelo(swapped).nelo == pytest.approx(-nelo(counts).nelo, abs=1e-9)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("counts", [PENTA, LDW])
def test_mirrored_data_and_hypotheses_mirror_sprt(model: str, counts: list[int]) -> None:
    swapped = counts[::-1]
    assert llr(swapped, -2, 0.5, model) == pytest.approx(-llr(counts, -0.5, 2, model), abs=1e-9)
    a = sprt_elo(counts, -1, 1, model)
    b = sprt_elo(swapped, -1, 1, model)
    assert b.elo == pytest.approx(-a.elo, abs=1e-6)
    assert (b.ci_low, b.ci_high) == pytest.approx((-a.ci_high, -a.ci_low), abs=1e-6)
    assert b.los == pytest.approx(1 - a.los, abs=1e-6)


def test_summary_swapping_w_and_l() -> None:
    a = sprt_summary(wdl=[716, 2163, 591], elo0=-2, elo1=2, elo_model="logistic")
    b = sprt_summary(wdl=[591, 2163, 716], elo0=-2, elo1=2, elo_model="logistic")
    assert b["elo"] == pytest.approx(-a["elo"], abs=1e-9)
    assert b["llr"] == pytest.approx(-a["llr"], abs=1e-9)
    assert b["sprt_elo"] == pytest.approx(-a["sprt_elo"], abs=1e-6)
    assert b["nelo"] == pytest.approx(-a["nelo"], abs=1e-9)


# --------------------------------------------------------------------------- summary


@pytest.mark.parametrize(
    "kwargs",
    [
        {"pentanomial": PENTA},
        {"wdl": [716, 2163, 591], "elo_model": "logistic"},
        {"wdl": [716, 2163, 591], "elo_model": "BayesElo", "elo0": 0, "elo1": 5},
        {"pentanomial": PENTA, "wdl": [204, 510, 210], "elo_model": "BayesElo"},
        {"wdl": [0, 0, 0]},
    ],
)
def test_summary_has_exactly_the_keys(kwargs: dict) -> None:
    summary = sprt_summary(**kwargs)
    assert set(summary) == EXPECTED_SUMMARY_KEYS
    assert tuple(summary) == SUMMARY_KEYS
    assert summary["state"] in ("accepted", "rejected", "continue")
    for key in ("sprt_elo_ci", "nelo_ci"):
        low, high = summary[key]  # type: ignore[misc]
        assert low <= high
    for key in EXPECTED_SUMMARY_KEYS - {"state", "sprt_elo_ci", "nelo_ci"}:
        assert isinstance(summary[key], float), key  # type: ignore[literal-required]


# --------------------------------------------------------------------------- helpers


@pytest.mark.parametrize("elo", [-800.0, -35.5, 0.0, 1.25, 400.0])
def test_score_elo_round_trip(elo: float) -> None:
    assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo, abs=1e-9)


def test_score_conversion_values_and_clamping() -> None:
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(0.75) == pytest.approx(190.84850188786498)
    assert score_to_elo(1.0) == score_to_elo(0.999) == pytest.approx(400 * math.log10(999))
    assert score_to_elo(0.0) == pytest.approx(-score_to_elo(1.0))
    assert 0.0 <= elo_to_score(-200_000) < 1e-300  # no overflow far out
    assert elo_to_score(200_000) == 1.0
    with pytest.raises(ValueError, match="score"):
        score_to_elo(math.nan)


def test_bayeselo_round_trip_and_legacy_llr() -> None:
    loss, draw, win = bayeselo_to_proba(12.0, 250.0)
    assert loss + draw + win == pytest.approx(1.0)
    assert proba_to_bayeselo(loss, win) == pytest.approx((12.0, 250.0))
    assert bayeselo_to_elo(0.0, 250.0) == pytest.approx(0.0, abs=1e-12)
    # Legacy trinomial LLR: exact likelihood ratio of the two BayesElo hypotheses.
    ldw = [591, 2163, 716]
    d = draw_elo(ldw)
    p0, p1 = bayeselo_to_proba(0.0, d), bayeselo_to_proba(5.0, d)
    expected = sum(n * math.log(p1[i] / p0[i]) for i, n in enumerate(ldw))
    assert llr_legacy_bayeselo(0.0, 5.0, ldw) == pytest.approx(expected, rel=1e-12)
    assert llr_legacy_bayeselo(0.0, 5.0, ldw) > 0  # more wins than losses favours H1


def test_brent_root_and_normal_law() -> None:
    assert brent_root(lambda x: x**3 - 2, 0, 2) == pytest.approx(2 ** (1 / 3), abs=1e-11)
    assert brent_root(math.cos, 0, 3) == pytest.approx(math.pi / 2, abs=1e-11)
    with pytest.raises(NoSignChange):
        brent_root(lambda x: x * x + 1, -1, 1)
    assert phi(0) == 0.5
    assert phi_inv(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert phi(phi_inv(0.3)) == pytest.approx(0.3, abs=1e-12)


def test_llr_zero_when_data_sits_between_hypotheses() -> None:
    # Perfectly balanced data halfway between symmetric hypotheses: no evidence either way.
    assert llr([100, 200, 100], -5, 5, "logistic") == pytest.approx(0.0, abs=1e-9)
    assert llr([10, 40, 100, 40, 10], -3, 3, "normalized") == pytest.approx(0.0, abs=1e-9)


def test_drift_variance_options() -> None:
    _, pdf = results_to_pdf([591, 2163, 716])
    mean, _ = mean_var(pdf)
    s0, s1 = elo_to_score(0), elo_to_score(5)
    # At the sample mean both variance conventions agree; elsewhere the re-centred
    # (MLE) variance is larger, so the drift is smaller in magnitude.
    assert llr_drift_variance(pdf, s0, s1, mean) == pytest.approx(
        llr_drift_variance(pdf, s0, s1, mean, mle_variance=True)
    )
    plain = llr_drift_variance(pdf, s0, s1, 0.45)
    mle = llr_drift_variance(pdf, s0, s1, 0.45, mle_variance=True)
    assert abs(mle[0]) < abs(plain[0]) and mle[1] < plain[1]


def test_outliers_against_a_true_reference_flag_liars_however_many_lie_alike() -> None:
    reference = [2, 16, 44, 16, 2]  # results the coordinator played again itself
    honest = {f"w{i}": [1, 8, 22, 8, 1] for i in range(2)}
    assert outliers_against(reference, honest, 0.05) == {}
    # Three liars winning far more pairs than they should: a majority, yet each one is flagged.
    liars = {f"liar{i}": [0, 1, 4, 8, 3] for i in range(3)}
    flagged = outliers_against(reference, honest | liars, 0.05)
    assert sorted(flagged) == sorted(liars) and all(z > 0 for z in flagged.values())
    losing = outliers_against(reference, honest | {"liar": [3, 8, 4, 1, 0]}, 0.05)
    assert list(losing) == ["liar"] and losing["liar"] < 0
    # The same mean, other shape (every pair decisive): only the chi-squared sees it.
    shape = outliers_against(reference, honest | {"liar": [0, 40, 0, 40, 0]}, 0.05)
    assert list(shape) == ["liar"] and abs(shape["liar"]) < 1
    few = honest | {"new": [0, 0, 0, 3, 0]}  # under MIN_SCORE_PAIRS pairs: not tested yet
    assert "new" not in outliers_against(reference, few, 0.05)
    assert outliers_against([0, 0, 1, 1, 0], liars, 0.05) == {}  # no reference to differ from yet
