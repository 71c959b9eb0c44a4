"""What a batch size costs an SPRT: games played and error rates, simulated, against the batch size.

The SPRT is updated once per batch (``coordinator.stats.update_sprt``, with its overshoot
correction), so a run decides only at a batch's end: it plays on past the point where a per-pair
SPRT would have stopped. This simulates many SPRTs of the given bounds on pentanomial samples of a
draw-heavy game at a few true strengths, for each batch size, and prints the mean pairs to a
decision, the extra pairs over the smallest batch size, and how often H1 was accepted.

    python benchmarks/sprt_overshoot.py                      # [0, 5] nElo, about a minute
    python benchmarks/sprt_overshoot.py --batches 1 8 568 --runs 400

Figures go to docs/performance.md ("Batches sized by default").
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from coordinator.sizing import expected_sprt_pairs
from coordinator.stats import SprtParams, SprtState, update_sprt

#: A pair's score (both games) for each pentanomial cell, in [0, 1].
SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: An even pentanomial distribution with many draws (LL, LD, DD+WL, WD, WW).
EVEN = np.array([0.04, 0.20, 0.52, 0.20, 0.04])


def tilted(nelo: float) -> np.ndarray:
    """``EVEN`` with probability moved from LD to WD (or back) until its normalized Elo is ``nelo``."""

    def nelo_of(shift: float) -> float:
        p = EVEN + shift * np.array([0, -1, 0, 1, 0])
        mean = float(p @ SCORES)
        sigma = math.sqrt(float(p @ (SCORES - mean) ** 2))
        return (mean - 0.5) / sigma / math.sqrt(2) * 800 / math.log(10)

    low, high = -0.19, 0.19
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if nelo_of(middle) < nelo else (low, middle)
    return EVEN + low * np.array([0, -1, 0, 1, 0])


def decide(counts: np.ndarray, params: SprtParams) -> tuple[int, bool]:
    """Pairs played until the SPRT of ``params``, updated every ``params.batch_size`` pairs of the
    cumulative pentanomial ``counts`` (one row per pair), decides, and whether it accepted H1."""
    batch = params.batch_size
    state = SprtState()
    played = 0
    while state.state == "continue":
        played += batch
        if played > len(counts):
            raise SystemExit("sprt_overshoot: a run outlasted its samples; raise MAX_PAIRS")
        state = update_sprt(params, state, counts[played - 1].tolist())
    return played, state.state == "accepted"


#: Pairs drawn per simulated run (every batch size reads the same ones).
MAX_PAIRS = 200_000


def simulate(
    elo0: float, elo1: float, p: np.ndarray, batches: list[int], runs: int, rng: np.random.Generator
) -> list[tuple[float, float]]:
    """Per batch size, the mean pairs to a decision and the share of runs that accepted H1; every
    batch size plays the same pairs in each run (common random numbers: the differences between
    batch sizes are not lost in the runs' own spread)."""
    totals = [[0, 0] for _ in batches]
    for _ in range(runs):
        cells = rng.choice(5, size=MAX_PAIRS, p=p)
        counts = np.cumsum(np.eye(5, dtype=np.int64)[cells], axis=0)
        for total, batch in zip(totals, batches, strict=True):
            pairs, accepted = decide(counts, SprtParams(elo0, elo1, batch_size=batch))
            total[0] += pairs
            total[1] += accepted
    return [(pairs / runs, accepted / runs) for pairs, accepted in totals]


def main() -> None:
    """Simulate and print a markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 64, 256, 568])
    parser.add_argument(
        "--truths", type=float, nargs="+", help="true nElo values (default: elo0, middle, elo1)"
    )
    parser.add_argument("--runs", type=int, default=200, help="SPRTs per cell")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    truths = args.truths or [args.elo0, (args.elo0 + args.elo1) / 2, args.elo1]
    rng = np.random.default_rng(args.seed)
    wald = expected_sprt_pairs(SprtParams(args.elo0, args.elo1))
    print(
        f"SPRT [{args.elo0}, {args.elo1}] nElo, alpha = beta = 0.05, {args.runs} runs per cell; "
        f"Wald's estimate at a hypothesis: {wald:,.0f} pairs.\n"
    )
    print("| true nElo | batch pairs | mean pairs to decide | extra over the first | H1 accepted |")
    print("|---|---|---|---|---|")
    for truth in truths:
        cells = simulate(args.elo0, args.elo1, tilted(truth), args.batches, args.runs, rng)
        first = cells[0][0]
        for batch, (mean, share) in zip(args.batches, cells, strict=True):
            print(
                f"| {truth:g} | {batch} | {mean:,.0f} | {100 * (mean / first - 1):+.1f}% "
                f"| {100 * share:.1f}% |"
            )


if __name__ == "__main__":
    main()
