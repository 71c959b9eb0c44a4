"""What the engine sandbox costs: arbiter-engine started and searching in the sandbox
(``worker.referee.sandbox``: bubblewrap, namespaces, the seccomp filter) against the same program
started as a plain child (``ResourceLimits(sandboxed=False)``, what the referee did before).

- ``start``: a player started (process, handshake, options, UCI_Variant) and closed (``quit``,
  reaped), as a batch of an engine that is not kept does: wall time and the CPU of this process
  and its children (bwrap, the sandbox's init and the engine, all reaped);
- ``move``: one ``position``/``go nodes N`` search from the start position after ``ucinewgame``,
  an engine started once per mode: wall time per move (the referee and the engine take turns on
  one CPU, as a worker's batch does).

Modes alternate run by run, so that a shared machine's load drifts over both alike; the table
gives medians and the sandbox's ratio to the plain child.

    python benchmarks/sandbox_cost.py                        # Congo, 20 starts, 200 moves at 2,000 nodes
    python benchmarks/sandbox_cost.py --starts 50 --moves 500 --nodes 2000
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from worker.program_batch import BUILTIN_HASH_MB, builtin_program
from worker.referee import EnginePlayer, EngineSpec
from worker.referee.cpu import one_cpu
from worker.referee.process import ResourceLimits
from worker.referee.sandbox import this_machine
from worker.referee.uci import AtDeadline, GoLimits

MODES = {"plain child": False, "sandboxed": True}
START_FEN = {
    "congo": "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",
    "congress": "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",
}


def cpu_now() -> float:
    """CPU seconds of this process and its reaped children (the engines and bwrap)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def player(game: str, sandboxed: bool) -> EnginePlayer:
    spec = EngineSpec(
        (builtin_program(), "--variant", game),
        name="arbiter-engine",
        options={"Hash": BUILTIN_HASH_MB},
        limits=ResourceLimits(sandboxed=sandboxed),
    )
    return EnginePlayer(spec, game)


def starts(game: str, count: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds of each start-and-close, per mode."""
    found: dict[str, tuple[list[float], list[float]]] = {mode: ([], []) for mode in MODES}
    for i in range(count):
        order = list(MODES.items()) if i % 2 == 0 else list(reversed(MODES.items()))
        for mode, sandboxed in order:
            wall, cpu = time.perf_counter(), cpu_now()
            one = player(game, sandboxed)
            one.start()
            one.close()
            found[mode][0].append(time.perf_counter() - wall)
            found[mode][1].append(cpu_now() - cpu)
    return found


def moves(game: str, count: int, nodes: int, block: int = 20) -> dict[str, list[float]]:
    """Wall seconds of each move, per mode, in alternating blocks of ``block`` moves."""
    players = {mode: player(game, sandboxed) for mode, sandboxed in MODES.items()}
    found: dict[str, list[float]] = {mode: [] for mode in MODES}
    try:
        for p in players.values():
            p.start()
        for i in range(0, count, block):
            order = list(players.items()) if (i // block) % 2 == 0 else list(reversed(players.items()))
            for mode, p in order:
                for _ in range(min(block, count - i)):
                    p.new_game()
                    wall = time.perf_counter()
                    p.play(START_FEN[game], [], GoLimits(nodes=nodes), 10.0, AtDeadline.HANG)
                    found[mode].append(time.perf_counter() - wall)
    finally:
        for p in players.values():
            p.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", default="congo", choices=sorted(START_FEN))
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=2000)
    args = parser.parse_args()
    box = this_machine()
    if not box.ready:
        parser.exit(1, f"sandbox_cost: no sandbox on this machine: {box.reason}\n")
    with one_cpu(True, take_turns=True):
        started = starts(args.game, args.starts)
        moved = moves(args.game, args.moves, args.nodes)
    plain_wall, plain_cpu = (statistics.median(v) for v in started["plain child"])
    box_wall, box_cpu = (statistics.median(v) for v in started["sandboxed"])
    print(f"{args.game}: start and close of arbiter-engine, median of {args.starts}")
    print(f"  plain child  {plain_wall * 1e3:7.2f} ms wall  {plain_cpu * 1e3:7.2f} ms CPU")
    print(f"  sandboxed    {box_wall * 1e3:7.2f} ms wall  {box_cpu * 1e3:7.2f} ms CPU")
    wall_added, cpu_added = (box_wall - plain_wall) * 1e3, (box_cpu - plain_cpu) * 1e3
    print(f"  sandbox adds {wall_added:7.2f} ms wall  {cpu_added:7.2f} ms CPU")
    plain_move, box_move = statistics.median(moved["plain child"]), statistics.median(moved["sandboxed"])
    print(f"{args.game}: one move at {args.nodes} nodes, median of {args.moves}")
    ratio = box_move / plain_move
    print(
        f"  plain child  {plain_move * 1e3:7.3f} ms   sandboxed {box_move * 1e3:7.3f} ms   ratio {ratio:.3f}"
    )


if __name__ == "__main__":
    main()
