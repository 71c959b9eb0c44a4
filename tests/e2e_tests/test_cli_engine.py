"""The search commands of the `arbiter` CLI end to end: weights, search, bench, play.

Each case runs the real command in a fresh interpreter (`python -m coordinator.cli`) with a
timeout. Bad input must exit with status 2 and print exactly one line on stderr that names it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from coordinator.cli.main import COMMANDS

TIMEOUT = 60
CONGO_START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
ITERATION = re.compile(r"depth +(\d+) +score +(\S+( in \d+)?) +nodes +(\d+) +nps +\d+ +pv( [a-h1-7]+)+")


def arbiter(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coordinator.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=TIMEOUT,
        check=False,
    )


def ok(*args: str, stdin: str | None = None) -> list[str]:
    """Runs a command that must succeed silently on stderr; its stdout lines."""
    result = arbiter(*args, stdin=stdin)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def usage_error(*args: str) -> str:
    """Runs a command that must fail with status 2 and one stderr line; that line."""
    result = arbiter(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith(f"arbiter {args[0]}: ")
    return lines[0]


# --- weights ------------------------------------------------------------------------------------


def test_weights_table() -> None:
    lines = ok("weights", "congo")
    assert lines[0].split()[:5] == ["name", "default", "min", "max", "meaning"]
    rows = [line.split(maxsplit=4) for line in lines[1:]]
    assert len(rows) >= 12
    table = {w.name: w for w in engine.weights("congo")}
    assert [row[0] for row in rows] == list(table)
    for name, default, low, high, meaning in rows:
        spec = table[name]
        assert (int(default), int(low), int(high)) == (spec.default, spec.min, spec.max)
        assert int(low) <= int(default) <= int(high)
        assert meaning == spec.description


def test_weights_json_is_a_weights_file(tmp_path: Path) -> None:
    text = "\n".join(ok("weights", "congress", "--json"))
    data = json.loads(text)
    assert data == {w.name: w.default for w in engine.weights("congress")}
    path = tmp_path / "congress.json"
    path.write_text(text)
    assert engine.validate_weights("congress", path) == data
    # The file is accepted by the search command too.
    lines = ok("search", "congress", "--depth", "2", "--weights", str(path))
    assert lines[-1].startswith("bestmove ")


# --- search -------------------------------------------------------------------------------------


def test_search_depth_4() -> None:
    lines = ok("search", "congo", "--depth", "4")
    assert len(lines) == 5
    iterations = [ITERATION.fullmatch(line) for line in lines[:4]]
    assert all(iterations), lines
    assert [int(m.group(1)) for m in iterations if m] == [1, 2, 3, 4]
    expected = engine.search(engine.Position.from_fen("congo", CONGO_START), depth=4)
    assert lines[4] == f"bestmove {expected['best_move']}"
    assert [int(m.group(4)) for m in iterations if m][-1] == expected["nodes"]


def test_search_forced_win_is_reported() -> None:
    lines = ok("search", "congress", "--fen", "5k2/p6P/8/4B3/8/K7 w", "--depth", "5")
    assert "win in 3" in lines[-2]
    assert lines[-1] == "bestmove e3g5"


def test_two_limits_stop_at_the_first_reached() -> None:
    # As in cutechess and UCI's go: a depth and a node limit together, whichever comes first.
    lines = ok("search", "congo", "--depth", "20", "--nodes", "3000")
    last = lines[-2].split()
    assert int(last[last.index("depth") + 1]) < 20 and lines[-1].startswith("bestmove ")
    lines = ok("search", "congo", "--depth", "2", "--nodes", "100000000")
    assert lines[-2].split()[1] == "2"


def test_a_time_margin_needs_a_time_control() -> None:
    line = usage_error("sprt", "congo", "--candidate", "default", "--timemargin", "50")
    assert "--timemargin" in line and "--tc" in line
    line = usage_error("sprt", "congo", "--candidate", "default", "--tc", "10+x")
    assert "--tc" in line and "10+0.1" in line


def test_search_unknown_weight_name(tmp_path: Path) -> None:
    path = tmp_path / "typo.json"
    path.write_text('{"pawn": 100, "crocodilee": 300}')
    line = usage_error("search", "congo", "--depth", "2", "--weights", str(path))
    assert "crocodilee" in line
    assert "--weights" in line


def test_search_weight_out_of_range(tmp_path: Path) -> None:
    path = tmp_path / "range.json"
    path.write_text('{"king": 1}')
    line = usage_error("search", "congress", "--depth", "2", "--weights", str(path))
    assert "king" in line and "out of range" in line


# --- bench --------------------------------------------------------------------------------------


def test_bench_congress_depth_5() -> None:
    lines = ok("bench", "congress", "--depth", "5")
    nodes, _ = engine.bench("congress", 5)
    assert re.match(rf"congress +nodes +{nodes} +seconds", lines[0]), lines
    assert re.match(rf"total +nodes +{nodes} +seconds", lines[1]), lines
    assert lines[-1] == f"engine {engine.ENGINE_VERSION}"


# --- play ---------------------------------------------------------------------------------------


def test_play_congress_to_game_over() -> None:
    lines = ok("play", "congress", "--depth", "2")
    assert lines[-1].startswith("game over: ")
    moves = [line for line in lines if re.match(r"\d+\.(\.\.)? [a-h][1-6][a-h][1-6]  \(score ", line)]
    assert len(moves) > 0
    assert "(kings captured)" in lines[-1] or "(no legal move)" in lines[-1]


def test_play_human_against_engine() -> None:
    # An illegal move, a malformed one and the `moves` list are answered without leaving the game;
    # then two legal moves (legal whatever Black replies) and `quit`.
    script = "a2a5\nxyz\nmoves\na2a3\ng2g3\nquit\n"
    lines = ok("play", "congo", "--human", "white", "--nodes", "500", stdin=script)
    text = "\n".join(lines)
    assert 'illegal move "a2a5"' in text
    assert 'invalid move "xyz"' in text
    assert text.count("Type 'moves' to list the legal moves.") == 2
    reply = re.compile(r"\d+\.\.\. \S+  \(score .*, depth \d+, \d+ nodes\)")
    engine_moves = [line for line in lines if reply.match(line)]
    assert len(engine_moves) == 2
    assert any(line.startswith("1. a2a3") for line in lines)
    assert any(line.startswith("2. g2g3") for line in lines)
    # `moves` listed the 24 legal first moves of Congo.
    listed = [line for line in lines if "a1c3" in line and "g2g3" in line and "(score" not in line]
    assert listed and len(listed[0].split("> ")[-1].split()) == 24
    assert lines[-1].endswith("white resigns")


# --- help and shared option ranges --------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_description_reads_well(command: str) -> None:
    lines = ok(command, "-h")
    description = lines[1 : lines.index("Options:")]
    assert not [line for line in description if re.search(r"\S {2,}\S", line)], description


def test_every_depth_option_has_one_range() -> None:
    for command in ("bench", "search", "play", "sprt", "tune"):
        assert re.search(r"--depth D .*?\[1<=x<=64\]", " ".join(ok(command, "-h"))), command
    assert "--depth: 65 is not in the range 1<=x<=64" in usage_error("bench", "--depth", "65")


def test_worker_concurrency_has_the_shared_bound() -> None:
    line = usage_error("worker", "--concurrency", "1000000000")
    assert line == "arbiter worker: --concurrency: 1000000000 is not in the range 1<=x<=4096."


def test_tune_output_says_it_is_the_champions_weights() -> None:
    assert re.search(r"-o, --output FILE +The champion's weights file", "\n".join(ok("tune", "-h")))
