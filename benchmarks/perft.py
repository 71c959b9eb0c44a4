"""Perft speed of the engine against the pure-Python rules oracle, measured in one run.

Runs the deepest reference perfts (Congo 6, Congress 7) on one core through the `engine` API and
the same positions at a smaller depth through the oracle in tests/rules_oracle, and prints
nodes/s for both and their ratio.

    python benchmarks/perft.py [--congo-depth 6] [--congress-depth 7] [--oracle-depth 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from rules_oracle import congo as oracle_congo
from rules_oracle import congress as oracle_congress

ORACLES = {"congo": oracle_congo, "congress": oracle_congress}
EXPECTED = {("congo", 6): 247_900_251, ("congress", 7): 63_438_398}


def timed(f, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = f(*args)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--congo-depth", type=int, default=6)
    parser.add_argument("--congress-depth", type=int, default=7)
    parser.add_argument("--oracle-depth", type=int, default=3)
    args = parser.parse_args()
    print("| game | depth | nodes | seconds | engine nodes/s | oracle nodes/s (depth) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for game, depth in (("congo", args.congo_depth), ("congress", args.congress_depth)):
        nodes, seconds = timed(engine.Position.start(game).perft, depth)
        expected = EXPECTED.get((game, depth))
        if expected is not None and nodes != expected:
            raise SystemExit(f"perft({depth}) of {game} gave {nodes}, expected {expected}")
        oracle = ORACLES[game]
        o_nodes, o_seconds = timed(oracle.perft, oracle.parse(oracle.START), args.oracle_depth)
        rate, o_rate = nodes / seconds, o_nodes / o_seconds
        print(
            f"| {game} | {depth} | {nodes:,} | {seconds:.2f} | {rate:,.0f} | "
            f"{o_rate:,.0f} ({args.oracle_depth}) | {rate / o_rate:,.0f}x |"
        )


if __name__ == "__main__":
    main()
