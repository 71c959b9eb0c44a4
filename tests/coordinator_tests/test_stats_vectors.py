"""coordinator.stats against the fishtest reference vectors (shared/reference/sprt-vectors.json).

Every vector is checked, every expected field, within the file's stated tolerances:
LLR and bounds 1e-6; fixed-games Elo, elo95 and LOS 1e-6; SPRT-aware Elo, interval
(and its LOS) 1e-3.  Normalized Elo has no stated tolerance; being closed-form it
is held to 1e-6.
"""

from __future__ import annotations

from typing import Any

import pytest

from coordinator.stats import (
    SprtParams,
    SprtState,
    decide,
    fixed_elo,
    llr,
    llr_legacy_bayeselo,
    nelo_pentanomial,
    nelo_trinomial,
    sprt_bounds,
    sprt_elo,
    sprt_summary,
    update_sprt,
)

TOL_LLR = 1e-6
TOL_FIXED = 1e-6
TOL_SPRT_ELO = 1e-3
TOL_NELO = 1e-6

KNOWN_EXPECTED_FIELDS = {
    "lower_bound",
    "upper_bound",
    "llr",
    "state",
    "llr_direct",
    "llr_direct_function",
    "llr_legacy_bayeselo_trinomial",
    "sprt_elo",
    "fixed_games_elo",
    "nelo_pentanomial",
    "nelo_trinomial",
}


def _results(inp: dict[str, Any]) -> tuple[list[float], list[float] | None]:
    """Counts in ascending-score order, and [L, D, W] when the vector has them."""
    if inp["kind"] == "pentanomial":
        return list(inp["counts"]), None
    ldw = [inp["losses"], inp["draws"], inp["wins"]]
    return ldw, ldw


def _state(expected: dict[str, Any]) -> str:
    """fishtest's '' (still running) is our 'continue'."""
    return expected["state"] or "continue"


def test_every_expected_field_is_checked(sprt_vector: dict[str, Any]) -> None:
    unknown = set(sprt_vector["expected"]) - KNOWN_EXPECTED_FIELDS
    assert not unknown, f"fields this suite does not check: {sorted(unknown)}"


def test_input_is_consistent(sprt_vector: dict[str, Any]) -> None:
    inp = sprt_vector["input"]
    if inp["kind"] == "pentanomial":
        assert len(inp["counts"]) == 5
        assert sum(inp["counts"]) == inp["game_pairs"]
        assert inp["games"] == 2 * inp["game_pairs"]
    else:
        assert inp["kind"] == "trinomial"
        assert inp["counts"] == [inp["losses"], inp["draws"], inp["wins"]]
        assert sum(inp["counts"]) == inp["games"]
    assert sprt_vector["id"].startswith(("P", "T"))


def test_bounds(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]
    lower, upper = sprt_bounds(inp["alpha"], inp["beta"])
    assert lower == pytest.approx(exp["lower_bound"], abs=TOL_LLR)
    assert upper == pytest.approx(exp["upper_bound"], abs=TOL_LLR)


def test_llr(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]
    results, ldw = _results(inp)
    value = llr(results, inp["elo0"], inp["elo1"], inp["elo_model"], ldw=ldw)
    assert value == pytest.approx(exp["llr"], abs=TOL_LLR)
    if "llr_direct" in exp:
        assert value == pytest.approx(exp["llr_direct"], abs=TOL_LLR)
    if "llr_legacy_bayeselo_trinomial" in exp:
        assert ldw is not None
        legacy = llr_legacy_bayeselo(inp["elo0"], inp["elo1"], ldw)
        assert legacy == pytest.approx(exp["llr_legacy_bayeselo_trinomial"], abs=TOL_LLR)


def test_state_after_one_update(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]
    results, ldw = _results(inp)
    params = SprtParams(
        elo0=inp["elo0"],
        elo1=inp["elo1"],
        alpha=inp["alpha"],
        beta=inp["beta"],
        elo_model=inp["elo_model"],
    )
    state = update_sprt(params, SprtState(), results, ldw=ldw)
    assert state.llr == pytest.approx(exp["llr"], abs=TOL_LLR)
    assert state.state == _state(exp)
    assert decide(exp["llr"], exp["lower_bound"], exp["upper_bound"]) == _state(exp)


def test_sprt_elo(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]["sprt_elo"]
    results, ldw = _results(inp)
    got = sprt_elo(results, inp["elo0"], inp["elo1"], inp["elo_model"], inp["alpha"], inp["beta"], ldw=ldw)
    assert got.elo == pytest.approx(exp["elo"], abs=TOL_SPRT_ELO)
    assert got.ci_low == pytest.approx(exp["ci_low"], abs=TOL_SPRT_ELO)
    assert got.ci_high == pytest.approx(exp["ci_high"], abs=TOL_SPRT_ELO)
    assert got.los == pytest.approx(exp["los"], abs=TOL_SPRT_ELO)
    assert got.llr == pytest.approx(exp["llr"], abs=TOL_LLR)
    assert got.lower_bound == pytest.approx(exp["a"], abs=TOL_LLR)
    assert got.upper_bound == pytest.approx(exp["b"], abs=TOL_LLR)


def test_fixed_games_elo(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]["fixed_games_elo"]
    results, _ = _results(inp)
    got = fixed_elo(results)
    assert got.elo == pytest.approx(exp["elo"], abs=TOL_FIXED)
    assert got.elo95 == pytest.approx(exp["elo95"], abs=TOL_FIXED)
    assert got.ci_low == pytest.approx(exp["ci_low"], abs=TOL_FIXED)
    assert got.ci_high == pytest.approx(exp["ci_high"], abs=TOL_FIXED)
    assert got.los == pytest.approx(exp["los"], abs=TOL_FIXED)


def test_normalized_elo(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]
    results, _ = _results(inp)
    if inp["kind"] == "pentanomial":
        assert "nelo_trinomial" not in exp
        want = exp["nelo_pentanomial"]
        got = nelo_pentanomial(results)
        assert got.nelo95 == pytest.approx(want["nelo95"], abs=TOL_NELO)
    else:
        assert "nelo_pentanomial" not in exp
        want = exp["nelo_trinomial"]
        got = nelo_trinomial(results)
    assert got.nelo == pytest.approx(want["nelo"], abs=TOL_NELO)
    assert got.ci_low == pytest.approx(want["ci_low"], abs=TOL_NELO)
    assert got.ci_high == pytest.approx(want["ci_high"], abs=TOL_NELO)


def test_summary(sprt_vector: dict[str, Any]) -> None:
    inp, exp = sprt_vector["input"], sprt_vector["expected"]
    if inp["kind"] == "pentanomial":
        data: dict[str, Any] = {"pentanomial": inp["counts"]}
        nelo = exp["nelo_pentanomial"]
    else:
        data = {"wdl": [inp["wins"], inp["draws"], inp["losses"]]}
        nelo = exp["nelo_trinomial"]
    got = sprt_summary(
        **data,
        elo0=inp["elo0"],
        elo1=inp["elo1"],
        elo_model=inp["elo_model"],
        alpha=inp["alpha"],
        beta=inp["beta"],
    )
    fixed, sprt = exp["fixed_games_elo"], exp["sprt_elo"]
    assert got["llr"] == pytest.approx(exp["llr"], abs=TOL_LLR)
    assert got["lower_bound"] == pytest.approx(exp["lower_bound"], abs=TOL_LLR)
    assert got["upper_bound"] == pytest.approx(exp["upper_bound"], abs=TOL_LLR)
    assert got["state"] == _state(exp)
    assert got["elo"] == pytest.approx(fixed["elo"], abs=TOL_FIXED)
    assert got["elo95"] == pytest.approx(fixed["elo95"], abs=TOL_FIXED)
    assert got["los"] == pytest.approx(fixed["los"], abs=TOL_FIXED)
    assert got["sprt_elo"] == pytest.approx(sprt["elo"], abs=TOL_SPRT_ELO)
    assert got["sprt_elo_ci"] == pytest.approx([sprt["ci_low"], sprt["ci_high"]], abs=TOL_SPRT_ELO)
    assert got["sprt_los"] == pytest.approx(sprt["los"], abs=TOL_SPRT_ELO)
    assert got["nelo"] == pytest.approx(nelo["nelo"], abs=TOL_NELO)
    assert got["nelo_ci"] == pytest.approx([nelo["ci_low"], nelo["ci_high"]], abs=TOL_NELO)


def test_file_has_the_48_vectors(sprt_vectors: dict[str, Any]) -> None:
    ids = [v["id"] for v in sprt_vectors["vectors"]]
    assert len(ids) >= 48
    assert len(set(ids)) == len(ids)
