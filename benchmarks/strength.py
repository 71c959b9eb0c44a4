"""Strength and speed of the engine, for docs/performance.md.

Plays game pairs (each opening twice, colours reversed) from seeded random openings:
default weights against material-only weights at a node limit, and depth d+1 against depth d.
Also reports bench nodes/s and CPU seconds per game at 2,000 nodes per move.

    python benchmarks/strength.py [--pairs 100] [--nodes 2000] [--depth 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import engine
from coordinator.openings.builder import random_walk
from coordinator.stats import fixed_elo

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ADJUDICATION = engine.Adjudication(max_plies=300, repetition=True, bare_lions=True)


def random_opening(game: str, rng: random.Random, plies: int) -> str:
    """A position `plies` random legal moves from the start that is not already decided."""
    while (pos := random_walk(game, rng, plies)) is None:
        pass
    return pos.fen()


def play_pair(
    args: tuple[str, str, dict, dict, engine.Limits, engine.Limits],
) -> tuple[float, float, int]:
    """Score of engine A in the two games of one opening, and the CPU seconds used."""
    game, opening, a_weights, b_weights, a_limits, b_limits = args
    start = time.process_time()
    score, plies = 0.0, 0
    for a_is_white in (True, False):
        # play_game gives both sides one limit; different limits are played move by move.
        if a_limits == b_limits:
            w, b = (a_weights, b_weights) if a_is_white else (b_weights, a_weights)
            record = engine.play_game(game, w, b, opening, a_limits, ADJUDICATION)
        else:
            record = play_asymmetric(
                game, opening, a_limits if a_is_white else b_limits, b_limits if a_is_white else a_limits
            )
        plies += record["plies"]
        points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[record["result"]]
        score += points if a_is_white else 1 - points
    return score, time.process_time() - start, plies


def play_asymmetric(
    game: str, opening: str, white_limits: engine.Limits, black_limits: engine.Limits
) -> dict:
    """A game where each side searches with its own limit (used for depth d+1 against d)."""
    pos = engine.Position.from_fen(game, opening)
    seen: dict[str, int] = {pos.fen(): 1}
    moves: list[str] = []
    while True:
        outcome = pos.outcome()
        if outcome is not None:
            return {"result": "1-0" if outcome.winner == "white" else "0-1", "plies": len(moves)}
        if len(moves) >= (ADJUDICATION.max_plies or 0) or seen[pos.fen()] >= 3:
            return {"result": "1/2-1/2", "plies": len(moves)}
        limits = white_limits if pos.turn == "white" else black_limits
        move = engine.search(pos, depth=limits.depth, nodes=limits.nodes)["best_move"]
        pos = pos.play(move)
        moves.append(move)
        seen[pos.fen()] = seen.get(pos.fen(), 0) + 1


def match(
    game: str,
    label: str,
    pairs: int,
    seed: int,
    a_w: dict,
    b_w: dict,
    a_l: engine.Limits,
    b_l: engine.Limits,
    pool,
) -> str:
    rng = random.Random(f"{seed}-{game}-{label}")
    openings = [random_opening(game, rng, rng.randint(2, 4)) for _ in range(pairs)]
    results = list(pool.map(play_pair, [(game, o, a_w, b_w, a_l, b_l) for o in openings]))
    penta = [0] * 5
    for score, _, _ in results:
        penta[int(score * 2)] += 1
    games = 2 * pairs
    points = sum(s for s, _, _ in results)
    elo = fixed_elo(penta)
    return (
        f"| {game} | {label} | {games} | {100 * points / games:.1f}% | "
        f"{elo.elo:+.0f} ± {elo.elo95:.0f} | {penta} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print("| game | bench nodes | bench nodes/s (1 core) |")
    print("|---|---|---|")
    for game in engine.GAMES:
        nodes, seconds = engine.bench(game)
        print(f"| {game} | {nodes} | {nodes / seconds:,.0f} |")
    print()
    print(f"| game | games at {args.nodes} nodes/move | CPU s per game | plies per game |")
    print("|---|---|---|---|")
    for game in engine.GAMES:
        rng = random.Random(args.seed)
        cpu, plies, n = 0.0, 0, 20
        for _ in range(n // 2):
            _, c, p = play_pair(
                (game, random_opening(game, rng, 3), {}, {}, *[engine.Limits(nodes=args.nodes)] * 2)
            )
            cpu += c
            plies += p
        print(f"| {game} | {n} | {cpu / n:.3f} | {plies / n:.0f} |")
    print()
    print("| game | match (A vs B) | games | A's score | Elo of A (95%) | pentanomial [LL,LD,DD+WL,WD,WW] |")
    print("|---|---|---|---|---|---|")
    with ProcessPoolExecutor() as pool:
        for game in engine.GAMES:
            material = engine.read_weights_file(EXAMPLES / f"{game}-material.json")
            nodes = engine.Limits(nodes=args.nodes)
            print(
                match(
                    game, "default vs material-only", args.pairs, args.seed, {}, material, nodes, nodes, pool
                ),
                flush=True,
            )
            d = args.depth
            print(
                match(
                    game,
                    f"depth {d + 1} vs depth {d}",
                    args.pairs,
                    args.seed,
                    {},
                    {},
                    engine.Limits(depth=d + 1),
                    engine.Limits(depth=d),
                    pool,
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
