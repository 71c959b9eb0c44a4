"""What a rating list costs: ``coordinator.ratings.rate`` on a large round robin, and ratings over games.

Simulates a round robin of game pairs between engines with known Elos (seeded; White's expected
score is the logistic curve of the difference plus 30 Elo, a third of the games drawn), then times,
in CPU seconds (best of ``--repeat``): checking the games alone (``tabulate``), the whole ``rate``
(checks, fit, sandwich errors, LOS, head-to-head), and ``rate_over`` at ``--checkpoints`` evenly
spaced prefixes, as the HTML report's plot asks for.

    python benchmarks/ratings.py                              # 10 engines, 10,000 games
    python benchmarks/ratings.py --engines 20 --games 100000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from coordinator.ratings import RatedGame, rate, rate_over
from coordinator.ratings.games import tabulate


def simulate(engines: int, games: int, seed: int) -> list[RatedGame]:
    """Round-robin game pairs, cycling over the pairings, ``games`` games in all."""
    rng = np.random.default_rng(seed)
    truth = np.linspace(-200.0, 200.0, engines)
    first, second = np.triu_indices(engines, k=1)
    pairs = games // 2
    pairing = np.arange(pairs) % len(first)
    white = np.stack([first[pairing], second[pairing]], axis=1).ravel()
    black = np.stack([second[pairing], first[pairing]], axis=1).ravel()
    expected = 1 / (1 + 10 ** (-(truth[white] - truth[black] + 30.0) / 400))
    draw = np.minimum(1 / 3, 2 * np.minimum(expected, 1 - expected))
    u = rng.random(len(white))
    score = np.where(u < expected - draw / 2, 1.0, np.where(u < expected + draw / 2, 0.5, 0.0))
    return [
        RatedGame(f"engine{w}", f"engine{b}", float(s), pair=i // 2)
        for i, (w, b, s) in enumerate(zip(white.tolist(), black.tolist(), score.tolist(), strict=True))
    ]


def best_cpu_seconds(action: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``action``, in process CPU seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        action()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--engines", type=int, default=10)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--checkpoints", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = simulate(args.engines, args.games, args.seed)
    checkpoints = [round(args.games * (i + 1) / args.checkpoints) for i in range(args.checkpoints)]
    check = best_cpu_seconds(lambda: tabulate(games), args.repeat)
    whole = best_cpu_seconds(lambda: rate(games), args.repeat)
    over = best_cpu_seconds(lambda: rate_over(games, checkpoints), args.repeat)
    print(f"{args.engines} engines, {len(games):,} games, best of {args.repeat} (CPU seconds)")
    print("| step | CPU seconds | against rate |")
    print("|---|---|---|")
    print(f"| check the games (tabulate) | {check:.4f} | {check / whole:.2f}x |")
    print(f"| rate (all of it) | {whole:.4f} | 1.00x |")
    print(f"| rate_over, {args.checkpoints} checkpoints | {over:.4f} | {over / whole:.2f}x |")


if __name__ == "__main__":
    main()
