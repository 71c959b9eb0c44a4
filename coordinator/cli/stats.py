"""``arbiter stats``: SPRT and Elo statistics of a set of results, from the shell.

The lead registers :data:`stats` in the main ``arbiter`` click group.  Input
errors are raised as ``click.BadParameter`` / ``click.UsageError`` (exit status 2)
with a message naming the input and what was expected.
"""

from __future__ import annotations

import json

import click

from coordinator.cli.options import check_hypothesis, hypothesis_options
from coordinator.stats import sprt_summary
from coordinator.stats.summary import StatsSummary

#: Larger counts than this are no real test; up to it every statistic is computed, however lopsided
#: the counts (tests/coordinator_tests/test_stats_unit.py).
MAX_COUNT = 10**12


def _parse_counts(text: str, expected: int, option: str, layout: str) -> list[int]:
    """Parse ``"a,b,c"`` into ``expected`` non-negative integers, or fail naming ``option``."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != expected:
        raise click.BadParameter(
            f"expected {expected} comma-separated counts {layout}, got {len(parts)} in {text!r}",
            param_hint=option,
        )
    counts = []
    for part in parts:
        try:
            value = int(part)
        except ValueError:
            raise click.BadParameter(
                f"expected non-negative integer counts {layout}, got {part!r} in {text!r}",
                param_hint=option,
            ) from None
        if not 0 <= value <= MAX_COUNT:
            raise click.BadParameter(
                f"expected non-negative integer counts {layout} of at most {MAX_COUNT}, "
                f"got {value} in {text!r}",
                param_hint=option,
            )
        counts.append(value)
    return counts


def _format_text(summary: StatsSummary, header: str) -> str:
    """Human-readable multi-line rendering of a :func:`sprt_summary` dict."""
    s = summary
    lo, hi = s["sprt_elo_ci"]
    nlo, nhi = s["nelo_ci"]
    return "\n".join(
        [
            header,
            f"LLR: {s['llr']:.2f} [{s['lower_bound']:.2f}, {s['upper_bound']:.2f}] ({s['state']})",
            f"Elo: {s['elo']:.2f} +- {s['elo95']:.2f} (95%)  LOS: {100 * s['los']:.2f}%",
            f"SPRT Elo: {s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}] (95%)  LOS: {100 * s['sprt_los']:.2f}%",
            f"nElo: {s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}] (95%)",
        ]
    )


@click.command("stats")
@click.option(
    "--penta",
    metavar="LL,LD,DD,WD,WW",
    help="Pentanomial game-pair counts from the candidate's view (DD = DD+WL).",
)
@click.option("--wdl", metavar="W,D,L", help="Win, draw, loss counts of the candidate.")
@hypothesis_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def stats(
    penta: str | None,
    wdl: str | None,
    elo0: float,
    elo1: float,
    model: str,
    alpha: float,
    beta: float,
    as_json: bool,
) -> None:
    """SPRT state, LLR and Elo estimates (fixed-sample, SPRT-aware, normalized)."""
    if (penta is None) == (wdl is None):
        raise click.UsageError(
            "expected exactly one of --penta LL,LD,DD,WD,WW or --wdl W,D,L, got "
            + ("both" if penta is not None else "neither")
        )
    check_hypothesis(elo0, elo1, alpha, beta, model)
    if penta is not None:
        counts = _parse_counts(penta, 5, "--penta", "LL,LD,DD,WD,WW")
        data = {"pentanomial": counts}
    else:
        counts = _parse_counts(wdl or "", 3, "--wdl", "W,D,L")
        data = {"wdl": counts}
    if model == "BayesElo" and penta is not None:
        raise click.UsageError(
            "--model bayeselo: expected --wdl W,D,L (BayesElo needs the draw rate, "
            "which pentanomial counts do not give)"
        )

    try:
        summary = sprt_summary(**data, elo0=elo0, elo1=elo1, elo_model=model, alpha=alpha, beta=beta)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None

    if as_json:
        click.echo(json.dumps(summary))
    else:
        kind = "pentanomial " + penta if penta is not None else "W,D,L " + (wdl or "")
        header = f"{kind}; SPRT [{elo0:g}, {elo1:g}] {model}, alpha={alpha:g}, beta={beta:g}"
        click.echo(_format_text(summary, header))
