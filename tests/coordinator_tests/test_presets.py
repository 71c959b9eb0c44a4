"""Presets (coordinator.presets): the shipped file, the operator's file that replaces it, one-line
errors naming the file, the preset and the field, and a run moved to another preset."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import click
import pytest

import coordinator
import engine
from coordinator.cli.options import search_limits
from coordinator.match.config import MatchConfig
from coordinator.presets import (
    PRESETS_ENV,
    SHIPPED_PRESETS,
    Preset,
    PresetsFile,
    apply_preset,
    load_presets,
    parse_presets,
    preset_for,
    presets_file,
)
from coordinator.sprt.config import SprtConfig

#: fishtest's bounds (normalized Elo).
FISHTEST_BOUNDS = {"stc": (0.0, 2.0), "ltc": (0.5, 2.5), "nonreg": (-1.75, 0.25)}

GOOD = """
[congo.quick]
description = "a quick one"
elo0 = -3
elo1 = 4
alpha = 0.1
nodes = 200

[congo.clock]
description = "on the clock"
elo0 = 0
elo1 = 5
model = "logistic"
tc = "1+0.01"
timemargin = 300
"""


@pytest.fixture(autouse=True)
def shipped_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped file unless a test names its own."""
    monkeypatch.delenv(PRESETS_ENV, raising=False)


def test_the_shipped_file_has_stc_ltc_and_nonreg_for_both_games() -> None:
    presets = load_presets()
    assert set(presets) == set(engine.GAMES)
    for game in engine.GAMES:
        assert set(presets[game]) == set(FISHTEST_BOUNDS)
        for name, (elo0, elo1) in FISHTEST_BOUNDS.items():
            preset = presets[game][name]
            assert (preset.game, preset.name, preset.elo0, preset.elo1) == (game, name, elo0, elo1)
            assert (preset.alpha, preset.beta, preset.model) == (0.05, 0.05, "normalized")
            assert preset.limits.deterministic and preset.description
        stc, ltc, nonreg = (presets[game][name].limits.nodes for name in ("stc", "ltc", "nonreg"))
        assert stc is not None and ltc == 6 * stc and nonreg == stc  # fishtest's 60+0.6 / 10+0.1
    assert preset_for("congress", "ltc") == presets["congress"]["ltc"]


def test_the_shipped_file_lies_in_a_package_the_wheel_ships() -> None:
    package = Path(coordinator.__file__).resolve().parent
    assert SHIPPED_PRESETS.resolve().is_relative_to(package) and SHIPPED_PRESETS.is_file()
    pyproject = tomllib.loads((package.parent / "pyproject.toml").read_text())
    assert "coordinator" in pyproject["tool"]["maturin"]["python-packages"]


def test_an_operator_file_replaces_the_shipped_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    own = tmp_path / "presets.toml"
    own.write_text(GOOD)
    monkeypatch.setenv(PRESETS_ENV, str(own))
    assert presets_file() == PresetsFile(own, from_env=True)
    presets = load_presets()
    assert set(presets["congo"]) == {"quick", "clock"} and presets["congress"] == {}
    quick, clock = presets["congo"]["quick"], presets["congo"]["clock"]
    assert (quick.elo0, quick.elo1, quick.alpha, quick.beta, quick.limits) == (
        -3.0,
        4.0,
        0.1,
        0.05,
        engine.Limits(nodes=200),
    )
    assert clock.model == "logistic" and not clock.limits.deterministic
    assert clock.limits == engine.Limits(time_control=engine.TimeControl.parse("1+0.01"), time_margin_ms=300)
    with pytest.raises(ValueError) as caught:
        preset_for("congo", "stc")
    message = str(caught.value)
    assert "'stc'" in message and "congo" in message and "clock, quick" in message
    assert str(own) in message and f"${PRESETS_ENV}" in message and "\n" not in message


def test_a_missing_operator_file_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(PRESETS_ENV, str(tmp_path / "nope.toml"))
    with pytest.raises(ValueError, match=rf"nope\.toml \(\${PRESETS_ENV}\): no such file$"):
        load_presets()


VALID = {"description": '"d"', "elo0": "0", "elo1": "2", "nodes": "100"}


@pytest.mark.parametrize(
    ("changes", "field", "expected"),
    [
        ({"elo1": None}, "elo1", "missing"),
        ({"description": '""'}, "description", "expected a text"),
        ({"elo1": "-1"}, "elo1", "expected a value greater than elo0"),
        ({"elo1": '"two"'}, "elo1", "expected a number"),
        ({"elo1": "500"}, "elo1", "expected a value between -200 and 200"),
        ({"alpha": "0"}, "alpha", "strictly between 0 and 1"),
        ({"alpha": "0.5", "beta": "0.6"}, "alpha, beta", "alpha + beta < 1"),
        ({"model": '"elo"'}, "model", "expected one of normalized, logistic, BayesElo"),
        ({"nodes": "0"}, "nodes", "expected a whole number from 1 to 100000000, got 0"),
        ({"nodes": "1.5"}, "nodes", "expected a whole number"),
        ({"nodes": None}, "", "expected a limit: nodes, depth, movetime or tc"),
        ({"tc": '"fast"'}, "tc", "expected a time control like 10+0.1"),
        ({"tc": "10"}, "tc", "expected a time control in quotes"),
        ({"timemargin": "50"}, "timemargin", "it needs tc"),
        ({"elo_1": "2"}, "elo_1", "unknown field; expected one of description, elo0, elo1"),
    ],
)
def test_a_bad_field_is_one_line_naming_the_file_the_preset_and_the_field(
    changes: dict[str, str | None], field: str, expected: str
) -> None:
    fields = {**VALID, **changes}
    text = "[congo.stc]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items() if v is not None)
    with pytest.raises(ValueError) as caught:
        parse_presets(text, "presets file /x.toml (shipped)")
    message = str(caught.value)
    prefix = "presets file /x.toml (shipped): [congo.stc]" + (f" {field}:" if field else ":")
    assert message.startswith(prefix) and expected in message and "\n" not in message, message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[chess.stc]\n", "[chess]: expected a game, one of congo, congress"),
        ("congo = 1\n", "congo: expected a table of presets [congo.NAME]"),
        ("[congo]\nstc = 1\n", "[congo.stc]: expected a table of fields"),
        ('[congo."S T C"]\n', "[congo.S T C]: expected a name of lower-case letters"),
        ("[congo.stc\n", "not valid TOML: "),
    ],
)
def test_a_bad_layout_is_one_line_naming_the_file(text: str, expected: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_presets(text, "F")
    assert str(caught.value).startswith(f"F: {expected}") and "\n" not in str(caught.value)


def sprt_config() -> SprtConfig:
    return SprtConfig(
        game="congo",
        candidate=engine.validate_weights("congo", None) | {"pawn": 150},
        baseline=engine.validate_weights("congo", None),
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
        elo0=0.0,
        elo1=2.0,
        limits=engine.Limits(nodes=4000),
        batch_pairs=16,
        max_games=1000,
        seed=7,
        book="book.txt",
        candidate_source="pawny.json",
    )


def test_apply_preset_moves_a_run_to_the_preset_and_keeps_everything_else() -> None:
    stc = sprt_config()
    ltc = apply_preset(stc, preset_for("congo", "ltc"))
    assert (ltc.elo0, ltc.elo1, ltc.alpha, ltc.beta, ltc.elo_model) == (0.5, 2.5, 0.05, 0.05, "normalized")
    assert ltc.limits == engine.Limits(nodes=24000) and not ltc.scale_time
    assert ltc.fingerprint() != stc.fingerprint()
    changed = ("elo0", "elo1", "limits")
    assert {k: v for k, v in ltc.to_json().items() if k not in changed} == {
        k: v for k, v in stc.to_json().items() if k not in changed
    }
    again = apply_preset(stc, preset_for("congo", "stc"))
    assert again == stc and again.fingerprint() == stc.fingerprint()  # nothing to change


def test_apply_preset_scales_time_for_a_clock_and_moves_a_match_by_its_limits_only() -> None:
    clock = parse_presets(GOOD, "F")["congo"]["clock"]
    timed = apply_preset(sprt_config(), clock)
    assert timed.scale_time and timed.elo_model == "logistic" and timed.limits == clock.limits
    config = sprt_config()
    match = MatchConfig(
        game="congo",
        candidate=config.candidate,
        baseline=config.baseline,
        openings=config.openings,
        engine_version=config.engine_version,
        pairs=10,
        seed=3,
    )
    moved = apply_preset(match, preset_for("congo", "ltc"))
    assert moved == replace(match, limits=engine.Limits(nodes=24000))
    assert moved.fingerprint() != match.fingerprint()
    with pytest.raises(ValueError, match="'ltc' is a congress preset; the run plays congo"):
        apply_preset(match, preset_for("congress", "ltc"))


def test_timemargin_alone_sets_the_grace_of_a_preset_clock() -> None:
    clock: Preset = parse_presets(GOOD, "F")["congo"]["clock"]
    limits = search_limits(None, None, None, clock.limits, None, 1000)
    assert limits.time_control == clock.limits.time_control and limits.time_margin_ms == 1000
    with pytest.raises(click.UsageError, match="needs --tc"):
        search_limits(None, None, None, engine.Limits(nodes=100), None, 1000)
    assert search_limits(50, None, None, clock.limits) == engine.Limits(nodes=50)
