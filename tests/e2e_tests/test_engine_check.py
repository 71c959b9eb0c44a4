"""``arbiter engine check`` on real programs: arbiter-engine (deterministic, its bench, its options),
the plain test engine, its random variant (usable, not deterministic), each relevant fault of the
faulty engine (one line, status 1), option values the engine does not accept, a changed program, a
missing interpreter, and bad engine files (status 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engine_testkit import arbiter_engine_file, python_engine_file
from sprt_testkit import run_cli


def check(*args: str) -> tuple[int, str, str]:
    done = run_cli("engine", "check", *args)
    return done.returncode, done.stdout, done.stderr


def check_json(*args: str) -> tuple[int, dict[str, Any]]:
    status, out, err = check(*args, "--json")
    assert out, err
    return status, dict(json.loads(out))


def test_arbiter_engine_is_deterministic_with_its_bench_and_options(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path / "ae", options="congo_pawn = 140\n")
    status, found = check_json(str(engine_file), "--nodes", "300")
    assert status == 0 and found["usable"] and found["problems"] == []
    assert found["id"]["name"].startswith("arbiter-engine") and found["id"]["author"] == "arbiter"
    options = {o["name"]: o for o in found["options"]}
    assert options["Hash"]["type"] == "spin" and options["Hash"]["min"] == 1
    assert options["UCI_Variant"]["vars"] == ["congo", "congress"]
    assert options["congo_pawn"]["type"] == "spin"
    assert [g["game"] for g in found["games"]] == ["congo", "congress"]
    assert all(g["deterministic"] and g["replayable"] for g in found["games"]), found["games"]
    assert isinstance(found["bench"], int) and found["bench"] > 0
    assert len(found["hash"]) == 64


def test_plain_engine_text_report(tmp_path: Path) -> None:
    engine_file = python_engine_file(tmp_path / "plain", "plain_engine.py", [], "plain")
    status, out, err = check(str(engine_file), "--game", "congress", "--nodes", "200")
    assert status == 0, out + err
    lines = out.splitlines()
    assert "id name       plain" in lines and "id author     arbiter tests" in lines
    assert "  Hash (spin) default 16 min 1 max 1024" in lines
    assert "  UCI_Variant (combo) default congo vars congo, congress" in lines
    assert any(line.startswith("congress      deterministic") for line in lines), out
    assert "bench         none" in lines and lines[-1] == "usable"


def test_a_random_engine_is_usable_but_not_deterministic(tmp_path: Path) -> None:
    engine_file = python_engine_file(tmp_path / "random", "plain_engine.py", ["--random"], "random")
    status, found = check_json(str(engine_file), "--game", "congo", "--nodes", "100")
    assert status == 0 and found["usable"]
    (game,) = found["games"]
    assert not game["deterministic"] and not game["replayable"]
    assert any("go nodes 100 gave" in d for d in game["differences"]), game


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--fault", "crash"], "congo: crashed: signal 11"),
        (["--fault", "exit"], "congo: crashed: exit status 1"),
        (["--fault", "illegal"], "congo: illegal move "),
        (["--fault", "garbage"], "congo: illegal move xyz"),
        (["--fault", "bestmove_none"], "congo: protocol violation: bestmove (none)"),
        (["--fault", "hang"], "congo: hang"),
        (["--no-uciok"], "no uciok in time"),
    ],
)
def test_each_fault_is_one_line_and_status_1(tmp_path: Path, args: list[str], says: str) -> None:
    engine_file = python_engine_file(tmp_path / "faulty", "faulty_engine.py", args, "faulty")
    status, out, err = check(str(engine_file), "--game", "congo", "--nodes", "100", "--timeout", "2")
    assert status == 1, out + err
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert len(problems) == 1 and problems[0].startswith(f"problem: {says}"), out


def test_option_values_hash_and_interpreter_are_checked(tmp_path: Path) -> None:
    engine_file = python_engine_file(tmp_path / "plain", "plain_engine.py", [], "plain")
    text = engine_file.read_text()
    engine_file.write_text(text + "[options]\nHash = 5000\nAggression = 3\nPonder = true\n")
    status, found = check_json(str(engine_file))
    assert status == 1 and found["games"] == []
    assert found["problems"] == [
        "option Hash: expected an integer from 1 to 1024, got 5000",
        "options.Aggression: the engine declares no such option",
    ]
    engine_file.write_text(text + f'hash = "{"0" * 64}"\n')
    status, out, _ = check(str(engine_file), "--game", "congo", "--nodes", "100")
    assert status == 1 and "problem: " in out and "hash: the program's files changed" in out
    assert "congo         deterministic" in out, "checked all the same"
    (tmp_path / "plain" / "x.py").write_text("")
    missing = tmp_path / "plain" / "missing.toml"
    missing.write_text('command = ["no-such-interpreter-here", "x.py"]\nfiles = ["x.py"]\n')
    status, out, _ = check(str(missing))
    assert status == 1 and "problem: engine program 'no-such-interpreter-here' is not on the PATH" in out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (None, "no such engine file"),
        ('command = ["./arbiter-engine"\n', "not TOML"),
        ('command = ["./arbiter-engine"]\ncolour = "red"\n', "unknown key 'colour'"),
    ],
)
def test_bad_engine_files_are_status_2(tmp_path: Path, text: str | None, says: str) -> None:
    path = tmp_path / "bad.toml"
    if text is not None:
        path.write_text(text)
    status, out, err = check(str(path))
    assert status == 2 and out == "" and err.startswith("arbiter engine") and says in err
    assert len(err.strip().splitlines()) == 1, err


def test_an_engine_that_crashes_at_start_shows_its_stderr(tmp_path: Path) -> None:
    """A file missing from ``files``: the engine's own ModuleNotFoundError is shown, in the text
    and in ``--json``, under the one-line problem."""
    engine_file = python_engine_file(tmp_path / "broken", "faulty_engine.py", [], "broken")
    engine_file.write_text(engine_file.read_text().replace('"plain_engine.py", ', ""))  # left out
    status, out, err = check(str(engine_file), "--game", "congo", "--timeout", "5")
    assert status == 1, out + err
    assert "problem: crashed: exit status 1" in out, out
    stderr = [line for line in out.splitlines() if line.startswith("  stderr: ")]
    assert any("ModuleNotFoundError: No module named 'plain_engine'" in line for line in stderr), out
    status, found = check_json(str(engine_file), "--game", "congo", "--timeout", "5")
    assert status == 1 and not found["usable"]
    assert any("ModuleNotFoundError" in line for line in found["stderr"]), found
