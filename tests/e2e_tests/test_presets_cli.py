"""``--preset`` of ``arbiter sprt`` and ``arbiter match``, and ``arbiter presets``: a preset's bounds
and limits are what the stored run plays, an option given on the command line wins, the operator's
file ($ARBITER_PRESETS) replaces the shipped one, and a bad name or file is one line, exit 2, with
no store made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sprt_testkit import run_cli, write_book, write_weights

from coordinator.presets import PRESETS_ENV, SHIPPED_PRESETS
from coordinator.store import Store

GAME = "congo"
#: One pair in one batch: the smallest run that is stored and finishes.
ONE_PAIR = ("--max-games", "2", "--batch-pairs", "1", "--concurrency", "1")
OPERATOR_FILE = """
[congo.quick]
description = "a quick one for the tests"
elo0 = -3
elo1 = 4
alpha = 0.1
nodes = 120
"""


@pytest.fixture(autouse=True)
def shipped_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped file unless a test names its own."""
    monkeypatch.delenv(PRESETS_ENV, raising=False)


def run_args(command: str, tmp_path: Path, db: Path, *extra: str) -> list[str]:
    """``arbiter COMMAND congo`` of a weights file against the defaults on a small book."""
    book = write_book(tmp_path / "book.txt", GAME, count=4)
    candidate = write_weights(tmp_path / "pawny.json", {"pawn": 150})
    return [command, GAME, "--candidate", str(candidate), "--book", str(book), "--store", f"sqlite:///{db}"]


def stored_config(db: Path, run_id: int) -> dict[str, Any]:
    """The configuration run ``run_id`` of the store ``db`` was stored with."""
    store = Store(f"sqlite:///{db}", create=False)
    try:
        run = store.get_run(run_id)
        assert run is not None
        return dict(run.config)
    finally:
        store.close()


def test_a_preset_sets_bounds_and_limits_and_an_option_given_wins(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    done = run_cli(*run_args("sprt", tmp_path, db), "--preset", "stc", *ONE_PAIR)
    assert done.returncode == 0, done.stderr
    stc = stored_config(db, 1)
    assert (stc["elo0"], stc["elo1"], stc["alpha"], stc["beta"]) == (0.0, 2.0, 0.05, 0.05)
    assert stc["limits"] == {"nodes": 4000} and stc["elo_model"] == "normalized"

    done = run_cli(
        *run_args("sprt", tmp_path, db), "--preset", "nonreg", "--elo1", "3", "--nodes", "150", *ONE_PAIR
    )
    assert done.returncode == 0, done.stderr
    mixed = stored_config(db, 2)
    assert (mixed["elo0"], mixed["elo1"], mixed["limits"]) == (-1.75, 3.0, {"nodes": 150})


def test_the_operator_file_replaces_the_shipped_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    own = tmp_path / "presets.toml"
    own.write_text(OPERATOR_FILE)
    monkeypatch.setenv(PRESETS_ENV, str(own))

    listed = run_cli("presets")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"presets file: {own} (from ${PRESETS_ENV})"
    assert [line.split()[:5] for line in lines[2:]] == [["congo", "quick", "[-3,", "4]", "normalized"]]
    assert "a=0.1 b=0.05  nodes 120  a quick one for the tests" in lines[2]
    data = json.loads(run_cli("presets", "congo", "--json").stdout)
    assert data["file"] == str(own) and data["from_env"] and list(data["presets"]["congo"]) == ["quick"]

    db = tmp_path / "o.db"
    done = run_cli(*run_args("sprt", tmp_path, db), "--preset", "quick", *ONE_PAIR)
    assert done.returncode == 0, done.stderr
    config = stored_config(db, 1)
    assert (config["elo0"], config["elo1"], config["alpha"], config["limits"]) == (
        -3.0,
        4.0,
        0.1,
        {"nodes": 120},
    )

    done = run_cli(*run_args("match", tmp_path, db), "--preset", "quick", "--pairs", "1")
    assert done.returncode == 0, done.stderr
    match = stored_config(db, 2)
    assert match["limits"] == {"nodes": 120} and "elo0" not in match

    refused = run_cli(*run_args("sprt", tmp_path, db), "--preset", "stc")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert refused.stderr.startswith("arbiter sprt: --preset: no preset 'stc' for congo in the presets file ")
    assert refused.stderr.rstrip().endswith(f"{own} (${PRESETS_ENV}); it has: quick")


def test_the_shipped_presets_are_listed_with_their_file() -> None:
    listed = run_cli("presets", "congress")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("presets file: ") and lines[0].endswith(
        f"presets.toml (shipped; ${PRESETS_ENV}=FILE replaces it)"
    )
    rows = [line.split()[:5] for line in lines[2:]]
    assert rows == [
        ["congress", "stc", "[0,", "2]", "normalized"],
        ["congress", "ltc", "[0.5,", "2.5]", "normalized"],
        ["congress", "nonreg", "[-1.75,", "0.25]", "normalized"],
    ]


@pytest.mark.parametrize("command", ["sprt", "match"])
def test_an_unknown_preset_is_one_line_naming_it_the_game_and_the_presets(
    tmp_path: Path, command: str
) -> None:
    db = tmp_path / "none.db"
    done = run_cli(*run_args(command, tmp_path, db), "--preset", "stcc")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"arbiter {command}: --preset: no preset 'stcc' for congo in the presets file "
        f"{SHIPPED_PRESETS} (shipped); it has: ltc, nonreg, stc"
    ]
    assert not db.exists()


def test_a_broken_operator_file_is_one_line_naming_it_and_the_field(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    own = tmp_path / "presets.toml"
    own.write_text(OPERATOR_FILE.replace("nodes = 120", "nodes = -5"))
    monkeypatch.setenv(PRESETS_ENV, str(own))
    db = tmp_path / "none.db"
    for args in ([*run_args("sprt", tmp_path, db), "--preset", "quick"], ["presets"]):
        done = run_cli(*args)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [
            f"arbiter {args[0]}: "
            + ("--preset: " if args[0] == "sprt" else "")
            + f"presets file {own} (${PRESETS_ENV}): [congo.quick] nodes: "
            "expected a whole number from 1 to 100000000, got -5"
        ]
    assert not db.exists()
