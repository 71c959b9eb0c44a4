"""The ``stats`` click command, invoked directly with click's CliRunner."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from click.testing import CliRunner

from coordinator.cli.stats import stats

SUMMARY_KEYS = {
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

_MODEL_OPTION = {"logistic": "logistic", "normalized": "normalized", "BayesElo": "bayeselo"}


def _vector(sprt_vectors: dict[str, Any], vector_id: str) -> dict[str, Any]:
    return next(v for v in sprt_vectors["vectors"] if v["id"] == vector_id)


def _args(inp: dict[str, Any]) -> list[str]:
    if inp["kind"] == "pentanomial":
        data = ["--penta", ",".join(str(c) for c in inp["counts"])]
    else:
        data = ["--wdl", f"{inp['wins']},{inp['draws']},{inp['losses']}"]
    return [
        *data,
        "--elo0",
        str(inp["elo0"]),
        "--elo1",
        str(inp["elo1"]),
        "--model",
        _MODEL_OPTION[inp["elo_model"]],
        "--alpha",
        str(inp["alpha"]),
        "--beta",
        str(inp["beta"]),
        "--json",
    ]


@pytest.mark.parametrize(
    "vector_id",
    ["P1-normalized-[0.0,2.0]", "P2-logistic-[0.0,5.0]", "T1-BayesElo-[0.0,5.0]", "T2-normalized-[0.5,2.5]"],
)
def test_json_output_matches_reference_vector(sprt_vectors: dict[str, Any], vector_id: str) -> None:
    vector = _vector(sprt_vectors, vector_id)
    exp = vector["expected"]
    result = CliRunner().invoke(stats, _args(vector["input"]))
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out) == SUMMARY_KEYS
    fixed, sprt = exp["fixed_games_elo"], exp["sprt_elo"]
    nelo = exp.get("nelo_pentanomial") or exp["nelo_trinomial"]
    assert out["llr"] == pytest.approx(exp["llr"], abs=1e-6)
    assert out["lower_bound"] == pytest.approx(exp["lower_bound"], abs=1e-6)
    assert out["upper_bound"] == pytest.approx(exp["upper_bound"], abs=1e-6)
    assert out["state"] == (exp["state"] or "continue")
    assert out["elo"] == pytest.approx(fixed["elo"], abs=1e-6)
    assert out["elo95"] == pytest.approx(fixed["elo95"], abs=1e-6)
    assert out["los"] == pytest.approx(fixed["los"], abs=1e-6)
    assert out["sprt_elo"] == pytest.approx(sprt["elo"], abs=1e-3)
    assert out["sprt_elo_ci"] == pytest.approx([sprt["ci_low"], sprt["ci_high"]], abs=1e-3)
    assert out["sprt_los"] == pytest.approx(sprt["los"], abs=1e-3)
    assert out["nelo"] == pytest.approx(nelo["nelo"], abs=1e-6)
    assert out["nelo_ci"] == pytest.approx([nelo["ci_low"], nelo["ci_high"]], abs=1e-6)


def test_defaults_are_those_of_sprt_normalized_0_5_at_5_percent(sprt_vectors: dict[str, Any]) -> None:
    exp = _vector(sprt_vectors, "P1-normalized-[0.0,5.0]")["expected"]
    result = CliRunner().invoke(stats, ["--penta", "10,50,200,55,12", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["llr"] == pytest.approx(exp["llr"], abs=1e-6)


def test_text_output_is_a_readable_summary() -> None:
    result = CliRunner().invoke(stats, ["--wdl", "716,2163,591", "--elo1", "5", "--model", "logistic"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith("LLR: 3.") and "[-2.94, 2.94] (accepted)" in lines[1]
    assert lines[2].startswith("Elo: 12.52 +- 7.09 (95%)") and "LOS: 99.97%" in lines[2]
    assert lines[3].startswith("SPRT Elo: 11.68 [3.38, 19.91]")
    assert lines[4].startswith("nElo: 20.43 [")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--penta", "1,2,x,4,5"], "--penta"),
        (["--penta", "1;2;3;4;5"], "--penta"),
        (["--penta", "1,2,3,4"], "expected 5 comma-separated counts"),
        (["--penta", "1,2,3,4,5,6"], "expected 5 comma-separated counts"),
        (["--wdl", "1,2"], "expected 3 comma-separated counts"),
        (["--wdl", "1,2,-3"], "non-negative"),
        (["--wdl", "1.5,2,3"], "--wdl"),
        (["--penta", "1,2,3,4,5", "--wdl", "1,2,3"], "got both"),
        ([], "got neither"),
        (["--json"], "got neither"),
        (["--wdl", "1,2,3", "--elo0", "2", "--elo1", "2"], "--elo1"),
        (["--wdl", "1,2,3", "--elo0", "3", "--elo1", "-1"], "greater than --elo0"),
        (["--wdl", "1,2,3", "--elo1", "nan"], "finite"),
        (["--wdl", "1,2,3", "--alpha", "0"], "--alpha"),
        (["--wdl", "1,2,3", "--beta", "1.2"], "--beta"),
        (["--wdl", "1,2,3", "--alpha", "0.6", "--beta", "0.5"], "alpha + beta < 1"),
        (["--wdl", "1,2,3", "--model", "glicko"], "--model"),
        (["--penta", "1,2,3,4,5", "--model", "bayeselo"], "--model bayeselo"),
        (["--penta", "1,1,1,1,1", "--elo1", "1e-300"], "--elo1: expected at least --elo0 + 0.01 = 0.01"),
        (
            ["--penta", "1,1,1,1,1", "--elo0", "-5000", "--elo1", "5000", "--model", "logistic"],
            "--elo0: expected a value between -1000 and 1000 (logistic Elo), got -5000",
        ),
        (["--wdl", "1,2,3", "--elo1", "250"], "--elo1: expected a value between -200 and 200"),
        (["--wdl", "1,2,3", "--elo0", "-1e308", "--elo1", "1e308"], "--elo0: expected a value between"),
        (["--wdl", "1,2,3", "--elo1", "1001", "--model", "bayeselo"], "between -1000 and 1000 (BayesElo"),
        (["--wdl", "1000000000001,0,0"], "of at most 1000000000000"),
        (["--wdl", "0,1000000000000,0", "--model", "bayeselo"], "the SPRT-aware Elo cannot be estimated"),
    ],
)
def test_bad_input_exits_2_with_message(args: list[str], message: str) -> None:
    result = CliRunner().invoke(stats, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    "counts",
    [
        ["--wdl", "10000000,0,0"],
        ["--wdl", "1000000000000,0,0"],
        ["--wdl", "0,1000000000000,0"],
        ["--penta", "0,0,1000000000000,0,0"],
        ["--penta", "1000000000000,0,0,0,1"],
        ["--penta", "1000000000000,1000000000000,1000000000000,1000000000000,1000000000000"],
    ],
)
@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_counts_up_to_the_maximum_are_computed(counts: list[str], model: str) -> None:
    result = CliRunner().invoke(stats, [*counts, "--model", model, "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    numbers = [x for key, v in out.items() if key != "state" for x in (v if isinstance(v, list) else [v])]
    assert all(math.isfinite(x) for x in numbers), out


@pytest.mark.parametrize(
    "hypothesis",
    [
        ["--elo0", "0.1", "--elo1", "0.11"],
        ["--elo0", "-200", "--elo1", "200"],
        ["--elo0", "-1000", "--elo1", "1000", "--model", "logistic"],
        ["--elo0", "999.99", "--elo1", "1000", "--model", "bayeselo"],
    ],
)
def test_hypotheses_at_the_bounds_are_accepted(hypothesis: list[str]) -> None:
    result = CliRunner().invoke(stats, ["--wdl", "716,2163,591", *hypothesis, "--json"])
    assert result.exit_code == 0, result.output
    assert math.isfinite(json.loads(result.output)["sprt_elo"])
