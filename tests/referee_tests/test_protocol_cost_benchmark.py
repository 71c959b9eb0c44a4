"""benchmarks/protocol_cost.py and protocol_cost_by_game.py run at their smallest setting, and the
games they play through the referee are the games in-process play gives with the same table (they
stop if they are not); engine_ab.py charges each build the moves it made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from worker.program_batch import builtin_program

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def table_rows(script: str, *args: str, row: str) -> list[str]:
    """The table rows starting with ``row`` that ``benchmarks/SCRIPT ARGS`` prints (it must
    succeed)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith(row)]


def test_the_protocol_benchmark_plays_the_in_process_games() -> None:
    args = ("--games", "congress", "--nodes", "100", "--pairs", "1", "--batches", "1", "--reps", "1")
    rows = table_rows("protocol_cost.py", *args, row="| congress | 100 |")
    assert len(rows) == 1 and rows[0].count("|") == 15, rows


def test_the_game_by_game_benchmark_plays_the_in_process_games() -> None:
    args = ("--games", "congress", "--nodes", "100", "--pairs", "1", "--batches", "2")
    rows = table_rows("protocol_cost_by_game.py", *args, row="| congress | 100 | 4 |")
    assert len(rows) == 1 and rows[0].count("|") == 11, rows


def test_the_engine_ab_benchmark_charges_each_build_its_own_moves() -> None:
    """One build against itself: both play the same games, so each is charged the same moves."""
    binary = builtin_program()
    limits = ("--nodes", "100", "--pairs", "1", "--batches", "1", "--hash", "1")
    rows = table_rows("engine_ab.py", binary, binary, "--game", "congress", *limits, row="| ")
    cells = [[c.strip() for c in row.split("|")[1:4]] for row in rows[1:] if "---" not in row]
    builds = {name: (moves, float(cpu)) for name, moves, cpu in cells}
    assert set(builds) == {"old", "new"} and builds["old"][0] == builds["new"][0] != "0", rows
    # Each build's CPU a move is charged (schedstat ns): the same program, within a wide bound.
    assert all(cpu > 0 for _, cpu in builds.values())
    assert 0.25 < builds["new"][1] / builds["old"][1] < 4, rows
