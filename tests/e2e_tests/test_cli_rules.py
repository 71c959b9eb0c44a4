"""The rules commands of the `arbiter` CLI end to end: perft, moves, show, and every bad input.

Each case runs the real command in a fresh interpreter (`python -m coordinator.cli`). Bad input
must exit with status 2 and print exactly one line on stderr that names it, with no traceback.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

TIMEOUT = 60
CONGO_START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
CONGRESS_START = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"
CONGRESS_FIRST_MOVES = {
    "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3",
    "a1b3", "b1a3", "b1c3", "g1h2", "d1c1", "e1f1",
}  # fmt: skip


def arbiter(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coordinator.cli", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def ok(*args: str) -> list[str]:
    """Runs a command that must succeed silently on stderr; its stdout lines."""
    result = arbiter(*args)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


# --- successful commands ------------------------------------------------------------------------


def test_perft_congo_3() -> None:
    lines = ok("perft", "congo", "3")
    assert lines[0] == "nodes 14332"
    assert re.fullmatch(r"seconds \d+\.\d{3}", lines[1])
    assert re.fullmatch(r"nodes/s \d+", lines[2])
    assert len(lines) == 3


def test_perft_congress_3_divide() -> None:
    lines = ok("perft", "congress", "3", "--divide")
    split = [line.split() for line in lines[:-3]]
    assert len(split) == 12
    assert {move for move, _ in split} == CONGRESS_FIRST_MOVES
    assert sum(int(n) for _, n in split) == 1854
    assert dict(split)["g1h2"] == "168"
    assert lines[-3] == "nodes 1854"
    assert lines[-2].startswith("seconds ")
    assert lines[-1].startswith("nodes/s ")


def test_perft_with_fen_and_depth_zero() -> None:
    assert ok("perft", "congo", "3", "--fen", "3l3/6p/7/3pp2/2Mp3/7/3L3 w")[0] == "nodes 2771"
    assert ok("perft", "congo", "0")[0] == "nodes 1"
    assert ok("perft", "CONGRESS", "1")[0] == "nodes 12"


def test_moves_congress() -> None:
    lines = ok("moves", "congress")
    assert len(lines) == 12
    assert set(lines) == CONGRESS_FIRST_MOVES


def test_moves_with_fen_lists_monkey_chains() -> None:
    lines = ok("moves", "congo", "--fen", "3l3/6p/7/3pp2/2Mp3/7/3L3 w")
    assert len(lines) == 18
    assert {"c3e3", "c3e3e5", "c3e3e5c3", "c3e5e3c3"} <= set(lines)


def test_show_congo_after_one_move() -> None:
    lines = ok("show", "congo", "d2d3")
    text = "\n".join(lines)
    river = next(line for line in lines if line.lstrip().startswith("4 "))
    assert river.count("~") == 7 and "river" in river
    assert "[P]" in next(line for line in lines if line.lstrip().startswith("3 "))  # d3, in the castle
    assert "[L]" in next(line for line in lines if line.lstrip().startswith("1 "))
    assert "[l]" in next(line for line in lines if line.lstrip().startswith("7 "))
    assert "castle" in text
    assert "position: gmelecz/ppppppp/7/7/3P3/PPP1PPP/GMELECZ b" in lines
    assert lines[-1] == "black to move, 24 legal moves"


def test_show_congress_trap() -> None:
    lines = ok("show", "congress", "g1h2", "e5e4", "h2d6")
    assert lines[-2] == "position: hh1Hk1bb/1ppp1pp1/4p3/8/1PPPPPP1/HH1KK2B b"
    assert lines[-1] == "black to move, 11 legal moves"
    assert any("left wing" in line and "right wing" in line for line in lines)
    sixth = next(line for line in lines if line.lstrip().startswith("6 "))
    assert sixth.split() == ["6", "h", "h", ".", "H", "|", "k", ".", "b", "b", "6"]


def test_show_reports_the_end_of_the_game() -> None:
    lines = ok("show", "congo", "d1d7", "--fen", "3l3/7/7/7/7/P6/3L3 w")
    assert lines[-1] == "game over: white wins (lion captured)"
    lines = ok("show", "congress", "--fen", "3k4/8/8/8/8/K7 w")
    assert lines[-1] == "game over: black wins (no legal move)"


def test_show_accepts_mindsports_and_upper_case_moves() -> None:
    a = ok("show", "congo", "--fen", "3l3/6p/7/3pp2/2Mp3/7/3L3 w", "c3-e3-e5x")
    b = ok("show", "congo", "--fen", "3l3/6p/7/3pp2/2Mp3/7/3L3 w", "c3e3e5")
    assert a == b
    assert ok("show", "congress", "G1H2") == ok("show", "congress", "g1h2")


# --- bad input ----------------------------------------------------------------------------------

BAD_FENS = {
    "congo": [
        ("layout", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ"),
        ("layout", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w 0"),
        ("board", "gmelecz/ppppppp/7/7/PPPPPPP/GMELECZ w"),
        ("board", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMEKECZ w"),
        ("board", "l6/7/7/7/7/7/3L3 w"),
        ("board", "3l2P/7/7/7/7/7/3L3 w"),
        ("side to move", "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ x"),
    ],
    "congress": [
        ("layout", "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB"),
        ("board", "hh1kk1bb/1pppppp1/9/8/1PPPPPP1/HH1KK1BB w"),
        ("board", "hhkkk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"),
        ("board", "hh2bb2/8/8/8/8/HH2BB2 w"),
        ("side to move", "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB W"),
    ],
}

BAD_INPUT = [
    # (arguments, text stderr must contain)
    (["perft", "chess", "2"], "'chess'"),
    (["moves", "chess"], "'chess'"),
    (["show", "xiangqi", "d2d3"], "'xiangqi'"),
    (["show", "congo", "d2d5"], '"d2d5"'),
    (["show", "congo", "d2d3", "d2d3"], '"d2d3"'),
    (["show", "congress", "b2b4"], '"b2b4"'),
    (["show", "congo", "h1h2"], '"h1h2"'),
    (["show", "congo", "d2"], '"d2"'),
    (["show", "congo", "d2d3d"], '"d2d3d"'),
    (["show", "congress", "a7a6"], '"a7a6"'),
    (["show", "congress", "b2-b3"], '"b2-b3"'),
    (["show", "congo", "d2\nd3"], '"d2\\nd3"'),
    (["perft", "congo", "-1"], "-1"),
    (["perft", "congo", "--", "-1"], "-1"),
    (["perft", "congo", "31"], "31"),
    (["perft", "congress", "1000000"], "1000000"),
    (["perft", "congo", "99999999999999999999999"], "99999999999999999999999"),
    (["perft", "congo", "abc"], "'abc'"),
    # A bad value names its parameter as typed, without click's quotes or an optional one's brackets.
    (["perft", "chess", "2"], "arbiter perft: GAME: 'chess' is not one of"),
    (["perft", "congo", "31"], "arbiter perft: DEPTH: 31 is not in the range 0<=x<=12"),
    (["perft", "congo", "1", "--fen", "x"], "arbiter perft: --fen: "),
    (["perft", "congo", "2.5"], "'2.5'"),
    (["perft", "congo"], "DEPTH"),
    (["perft", "congo", "2", "--bogus"], "--bogus"),
    (["moves", "congress", "--depth", "3"], "--depth"),
    (["show", "congo", "-x"], "-x"),
    (["frobnicate"], "'frobnicate'"),
    (["perft", "congo", "2", "--fen"], "--fen"),
    (["moves", "congo", "--fen", "7/7\nx w"], '"7/7\\nx w"'),
]
# Each bad position string through one of the three commands, in turn.
for _game, _cases in BAD_FENS.items():
    _commands = (["perft", _game, "1"], ["moves", _game], ["show", _game, "d2d3"])
    for _i, (_field, _fen) in enumerate(_cases):
        BAD_INPUT.append(([*_commands[_i % 3], "--fen", _fen], f'"{_fen}": {_field} field'))


@pytest.mark.parametrize(("args", "named"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_and_status_2(args: list[str], named: str) -> None:
    result = arbiter(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert result.stderr.endswith("\n")
    assert lines[0].startswith((f"arbiter {args[0]}: ", "arbiter: No such command"))
    assert named in lines[0]
    assert result.stdout == ""


def test_bad_move_names_its_ply_and_position() -> None:
    result = arbiter("show", "congo", "d2d3", "d6d5", "d3d5")
    assert result.returncode == 2
    line = result.stderr.strip()
    assert "ply 3" in line
    assert '"d3d5"' in line
    assert '"gmelecz/ppp1ppp/3p3/7/3P3/PPP1PPP/GMELECZ w"' in line
