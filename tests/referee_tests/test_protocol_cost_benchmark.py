"""benchmarks/protocol_cost.py and protocol_cost_by_game.py run at their smallest setting, and the
games they play through the referee are the games in-process play gives with the same table (they
stop if they are not)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "protocol_cost.py"


def test_the_protocol_benchmark_plays_the_in_process_games() -> None:
    argv = [sys.executable, str(BENCHMARK), "--games", "congress", "--nodes", "100"]
    done = subprocess.run(
        [*argv, "--pairs", "1", "--batches", "1", "--reps", "1"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| congress | 100 |")]
    assert len(rows) == 1 and rows[0].count("|") == 15, done.stdout


def test_the_game_by_game_benchmark_plays_the_in_process_games() -> None:
    argv = [sys.executable, str(BENCHMARK.with_name("protocol_cost_by_game.py")), "--games", "congress"]
    done = subprocess.run(
        [*argv, "--nodes", "100", "--pairs", "1", "--batches", "2"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| congress | 100 | 4 |")]
    assert len(rows) == 1 and rows[0].count("|") == 11, done.stdout
