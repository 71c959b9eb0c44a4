"""Two builds of arbiter-engine side by side through the referee's protocol client: per move
of a recorded game, ``position`` (the whole game so far) and ``go nodes N`` in one write, as the
referee sends an untimed move.

Repetitions alternate which build goes first; each gives the wall time per move and the engine's
CPU per move (from /proc). Use it to see what a change to arbiter-engine costs or saves per move
apart from the referee (both builds are driven by the same client).

    python benchmarks/engine_ab.py OLD_BINARY NEW_BINARY            # Congo, 2,000 nodes, 4 reps of 5 games
    python benchmarks/engine_ab.py OLD NEW --game congress --nodes 500 --reps 6
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import engine
from coordinator.defaults import ADJUDICATION
from coordinator.openings.book import default_book_path, load_book
from worker.referee.process import EngineProcess
from worker.referee.uci import AtDeadline, GoLimits, UciClient, position_command

TICKS = os.sysconf("SC_CLK_TCK")
#: The longest one move may take (seconds): a bound, not a synchronisation.
MOVE_TIMEOUT = 60.0


def engine_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` and its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def one_game(
    binary: str, game: str, opening: str, moves: list[str], nodes: int, times: int
) -> tuple[float, float]:
    """(wall s, engine CPU s) per move of ``moves`` replayed ``times`` through one process of
    ``binary`` (more moves a measurement: /proc counts CPU in 10 ms ticks)."""
    with EngineProcess.start([binary, "--variant", game]) as process:
        client = UciClient(process)
        client.handshake()
        started, cpu = time.perf_counter(), engine_cpu(process.pid)
        for _ in range(times):
            client.new_game()
            for ply in range(len(moves)):
                position = position_command(opening, moves[:ply])
                client.go(GoLimits(nodes=nodes), MOVE_TIMEOUT, AtDeadline.HANG, position)
        wall, used = time.perf_counter() - started, engine_cpu(process.pid) - cpu
        client.quit()
    return wall / (times * len(moves)), used / (times * len(moves))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", help="one arbiter-engine build")
    parser.add_argument("new", help="the other")
    parser.add_argument("--game", default="congo", choices=engine.GAMES)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--games", type=int, default=5, help="times the game is replayed per measurement")
    args = parser.parse_args()
    for binary in (args.old, args.new):
        if not os.access(binary, os.X_OK):
            parser.error(f"{binary}: expected an executable arbiter-engine")
    if min(args.nodes, args.reps, args.games) < 1:
        parser.error("--nodes, --reps and --games must be positive")
    opening = load_book(default_book_path(args.game), args.game)[0]
    limits = engine.Limits(nodes=args.nodes)
    moves = engine.play_game(args.game, None, None, opening, limits, ADJUDICATION, hash_mb=16)["moves"]
    print(f"{args.game}, a {len(moves)}-ply game at {args.nodes} nodes, load average {os.getloadavg()}")
    found: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    for rep in range(args.reps):
        order = ("old", "new") if rep % 2 == 0 else ("new", "old")
        for name in order:
            binary = getattr(args, name)
            found[name].append(one_game(binary, args.game, opening, moves, args.nodes, args.games))
    print("| build | wall µs/move (median, range) | engine CPU µs/move (median, range) |")
    print("|---|---|---|")
    for name, rows in found.items():
        walls = [w * 1e6 for w, _ in rows]
        cpus = [c * 1e6 for _, c in rows]
        print(
            f"| {name} | {statistics.median(walls):.0f} ({min(walls):.0f} to {max(walls):.0f}) | "
            f"{statistics.median(cpus):.0f} ({min(cpus):.0f} to {max(cpus):.0f}) |"
        )


if __name__ == "__main__":
    main()
