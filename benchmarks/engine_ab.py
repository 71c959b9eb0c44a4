"""Two builds of arbiter-engine against each other through the referee: what a change to the
engine costs or saves per move, apart from the referee.

The two builds play the game's default book at fixed nodes, each opening twice with colours
swapped, on one CPU (``worker.referee.cpu``) as a worker plays a batch. Every game charges each
build exactly the CPU its process used (its process CPU clock, every thread's run time to the
nanosecond: ``EnginePlayer.cpu_seconds``), and each build's total is divided by the moves it
made. Because the builds take turns move by move, a machine whose speed drifts slows both alike:
two runs of one build against itself agree within about half a percent, where timing the builds
one after the other moved by a third on a shared machine. If the builds search differently their
games differ from a game against themselves, which is fine: each is charged for its own moves.

    python benchmarks/engine_ab.py OLD_BINARY NEW_BINARY                 # Congo, 2,000 nodes
    python benchmarks/engine_ab.py OLD NEW --game congress --nodes 500 --batches 8
"""

from __future__ import annotations

import argparse
import os

from protocol_cost import payloads

import engine
from worker.games import pair_limits
from worker.program_batch import BUILTIN_HASH_MB
from worker.referee import EnginePlayer, EngineSpec, play_game
from worker.referee.cpu import one_cpu


def cpu_of(players: dict[str, EnginePlayer]) -> dict[str, float]:
    """CPU seconds each build's processes have used so far (their process CPU clocks)."""
    return {name: p.cpu_seconds() for name, p in players.items()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", help="one arbiter-engine build")
    parser.add_argument("new", help="the other")
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--nodes", type=int, default=2000, help="node limit per move")
    parser.add_argument("--pairs", type=int, default=8, help="openings per batch")
    parser.add_argument("--batches", type=int, default=4, help="batches (each with the book's next openings)")
    parser.add_argument("--hash", type=int, default=BUILTIN_HASH_MB, help="each build's Hash (MiB)")
    args = parser.parse_args()
    for binary in (args.old, args.new):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary}: expected an executable arbiter-engine")
    if min(args.nodes, args.pairs, args.batches, args.hash) < 1:
        parser.error("--nodes, --pairs, --batches and --hash must be positive")
    players = {}
    for name, binary in (("old", args.old), ("new", args.new)):
        spec = EngineSpec((binary, "--variant", args.game), name=name, options={"Hash": args.hash})
        players[name] = EnginePlayer(spec, args.game)
    cpu = dict.fromkeys(players, 0.0)
    moves = dict.fromkeys(players, 0)
    old, new = players["old"], players["new"]
    try:
        with one_cpu():
            for player in players.values():
                player.start()
            for payload in payloads(args.game, args.nodes, args.pairs, args.batches):
                for pair, opening in enumerate(payload.openings):
                    limits = pair_limits(payload.limits, payload.seed, pair)
                    for white, black in ((old, new), (new, old)):
                        before = cpu_of(players)
                        played = play_game(white, black, args.game, opening, limits, payload.adjudication)
                        for name, used in cpu_of(players).items():
                            cpu[name] += used - before[name]
                        if played.white_fault or played.black_fault:
                            raise SystemExit(f"engine_ab: a build failed: {played.detail}")
                        plies = len(played.moves)
                        moves[str(white.spec.name)] += (plies + 1) // 2
                        moves[str(black.spec.name)] += plies // 2
    finally:
        for player in players.values():
            player.close()
    per_move = {name: cpu[name] / max(1, moves[name]) * 1e6 for name in players}
    games = 2 * args.pairs * args.batches
    print(f"{args.game}, {args.nodes:,} nodes a move, Hash {args.hash} MiB, {games} games")
    print("| build | moves | engine CPU µs/move | vs old |")
    print("|---|---|---|---|")
    for name in players:
        change = per_move[name] / per_move["old"] - 1
        print(f"| {name} | {moves[name]:,} | {per_move[name]:.1f} | {change:+.2%} |")


if __name__ == "__main__":
    main()
