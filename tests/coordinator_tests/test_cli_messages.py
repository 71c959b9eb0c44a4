"""The messages a user acts on: each says what to type or what went wrong, in words."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from coordinator.console.hints import resume_command
from coordinator.runs import decision_label
from coordinator.sprt.config import side_name
from coordinator.sprt.report import PROGRESS_WIDTH, ending_text, fit_line, headline
from coordinator.sprt.report import progress_line as sprt_progress_line
from coordinator.sprt.runner import Progress
from coordinator.tournament.drive import progress_line as tournament_progress_line
from coordinator.tuning.acceptance import AcceptanceProgress
from coordinator.tuning.outcomes import acceptance_ending, tally, tally_text
from coordinator.tuning.progress import TuneProgress
from coordinator.tuning.report import progress_line as tune_progress_line
from coordinator.tuning.report import spsa_progress_line
from coordinator.tuning.spsa_tuner import SpsaProgress


def test_resume_command_repeats_the_store_and_broker_the_environment_would_not_supply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    monkeypatch.delenv("ARBITER_BROKER", raising=False)
    assert resume_command(3, "sqlite:///arbiter.db", "") == "arbiter resume 3"
    hint = resume_command(3, "sqlite:///int.db", "redis://:hunter2@host:6379/0")
    assert "hunter2" not in hint
    assert shlex.split(hint) == [
        "arbiter",
        "resume",
        "3",
        "--store",
        "sqlite:///int.db",
        "--broker",
        "redis://:***@host:6379/0",
    ]
    monkeypatch.setenv("ARBITER_STORE", "sqlite:///int.db")
    monkeypatch.setenv("ARBITER_BROKER", "redis://host:6379/0")
    assert resume_command(3, "sqlite:///int.db", "redis://host:6379/0") == "arbiter resume 3"
    assert resume_command(3, "sqlite:///arbiter.db", "") == "arbiter resume 3 --store sqlite:///arbiter.db"


def sprt_progress(**changes: Any) -> Progress:
    """A large run's progress: every figure as wide as it gets."""
    values: dict[str, Any] = {
        "run_id": 12345, "counted_batches": 9999, "pentanomial": [1234, 23456, 34567, 23456, 1234],
        "wdl": [123456, 234567, 123456], "llr": -2.5, "lower_bound": -2.94, "upper_bound": 2.94,
        "decision": None, "stored_batches": 10010, "in_flight": 128, "elapsed": 36000.0,
        "games_played_here": 481479, "max_games": None,
    }  # fmt: skip
    return Progress(**(values | changes))


def test_fit_line_leaves_out_the_least_important_parts_first() -> None:
    parts = [(0, "a" * 30), (2, "b" * 30), (1, "c" * 30), (0, "")]
    assert fit_line(parts, 70) == f"{'a' * 30}  {'c' * 30}"
    assert fit_line(parts, 100) == f"{'a' * 30}  {'b' * 30}  {'c' * 30}"
    assert fit_line([(0, "x" * 90)], 79) == "x" * 79


def test_every_progress_line_fits_80_columns() -> None:
    accepting = AcceptanceProgress(
        candidate=1234, stage=1, nodes=20000, llr=-1.23, lower_bound=-2.94, upper_bound=2.94
    )
    tune = TuneProgress(
        trials=1234, running_trials=16, games=4567890, games_per_second=123.4, champion=12,
        champion_elo=123.0, champion_elo95=45.0, best_trial=1200, best_value=130.0, accepting=accepting,
        elapsed=99999.0, eta=99999.0,
    )  # fmt: skip
    spsa = SpsaProgress(
        applied=12345, iterations=20000, in_flight=64, games=4567890, games_per_second=123.4, champion=12,
        champion_elo=123.0, champion_elo95=45.0, accepting=accepting, elapsed=99999.0, eta=99999.0,
    )  # fmt: skip
    lines = {
        "sprt": sprt_progress_line(sprt_progress()),
        "refused": sprt_progress_line(sprt_progress(refused="12 refused: " + "why " * 30)),
        "tune": tune_progress_line(tune, 2000),
        "spsa": spsa_progress_line(spsa),
        "tournament": tournament_progress_line(sprt_progress(), 20000),
        "playing": sprt_progress_line(sprt_progress(playing=12800)),
        "tournament playing": tournament_progress_line(sprt_progress(playing=12800), 20000),
    }
    for kind, line in lines.items():
        assert len(line) <= PROGRESS_WIDTH, (kind, line)
    assert lines["sprt"].startswith("run 12345: 481479 games  LLR -2.50 [-2.94,2.94]  Elo ")
    assert "penta" not in lines["sprt"]  # the least important, left out when it does not fit
    assert lines["playing"].startswith("run 12345: 481479 games +12800 playing  LLR -2.50")
    assert lines["refused"].startswith("run 12345: 481479 games  12 refused: why why")
    assert lines["tune"].startswith("trials 1234/2000 (16 running)  games 4567890")
    usual = replace(
        tune, trials=12, running_trials=2, games=11920, accepting=replace(accepting, candidate=7, nodes=300)
    )
    assert tune_progress_line(usual, 100).startswith(
        "trials 12/100 (2 running)  games 11920  SPRT trial 7: LLR -1.23 [-2.94,2.94]"
    )
    assert replace(tune, accepting=None).champion == 12
    assert "champion #12 +123+-45" in tune_progress_line(replace(tune, accepting=None), 2000)
    refused = tune_progress_line(replace(tune, refused="3 refused: unsigned"), 2000)
    assert "games 4567890  3 refused: unsigned" in refused
    spsa_refused = spsa_progress_line(replace(spsa, refused="3 refused: why"))
    assert "games 4567890  3 refused: why" in spsa_refused and len(spsa_refused) <= PROGRESS_WIDTH
    assert lines["tournament"].startswith("tournament 12345: 10010/20000 batches ended  128 in flight")
    first = sprt_progress_line(sprt_progress(pentanomial=[0] * 5, wdl=[0] * 3, games_played_here=0))
    assert first.startswith("run 12345: 0 games  LLR -2.50 [-2.94,2.94]") and "128 in flight" in first


def test_a_campaign_round_shows_its_last_acceptance_sprt_within_80_columns() -> None:
    """A round's tuning line is the SPSA line after the round's prefix: at the end of a long
    round (every iteration applied, the acceptance SPRT playing) the SPRT's LLR still shows."""
    from coordinator.campaign.drive import RoundPrinter

    printer = RoundPrinter("round 2 tuning: ")
    accepting = AcceptanceProgress(
        candidate=4500, stage=1, nodes=2000, llr=1.23, lower_bound=-2.94, upper_bound=2.94
    )
    spsa = SpsaProgress(
        applied=4500, iterations=4500, in_flight=0, games=36000, games_per_second=12.3, champion=0,
        champion_elo=0.0, champion_elo95=0.0, accepting=accepting, elapsed=3600.0, eta=60.0,
    )  # fmt: skip
    line = printer.prefix + spsa_progress_line(spsa, printer.width)
    assert line.startswith("round 2 tuning: iterations 4500/4500  games 36000  SPRT LLR 1.23 [-2.94,2.94]")
    assert len(line) <= PROGRESS_WIDTH
    running = spsa_progress_line(replace(spsa, applied=100, in_flight=3, accepting=None), printer.width)
    assert running.startswith("iterations 100/4500 (3 in flight)  games 36000")


def test_the_sprt_headline_says_decision_sides_elo_games_and_llr() -> None:
    line = headline("accepted", "cand.json", "default", 528, (12.3, 8.1), (2.89, -2.94, 2.94), "±")
    assert (
        line == "H1 accepted: cand.json vs default, Elo +12.3 ± 8.1 after 528 games (LLR 2.89 [-2.94, 2.94])"
    )
    assert headline(None, "a", "b", 0, None, (0.0, -2.94, 2.94)).startswith("undecided: a vs b, no Elo yet")


def test_every_ending_that_puzzles_is_explained_in_words() -> None:
    inside = ending_text("accepted", (2.89, -2.94, 2.94), None)
    assert inside is not None and "Siegmund" in inside and "2.89" in inside
    assert "Siegmund" in (ending_text("rejected", (-2.90, -2.94, 2.94), None) or "")
    assert ending_text("accepted", (2.95, -2.94, 2.94), None) is None
    assert ending_text(None, (1.0, -2.94, 2.94), None) is None
    cap = ending_text("budget", (1.0, -2.94, 2.94), 200)
    assert cap is not None and "game cap of 200 games" in cap and "neither hypothesis" in cap
    assert decision_label("budget") == "undecided at its game cap"


def test_the_trial_tally_names_every_outcome_that_happened() -> None:
    counts = tally(["pruned", "complete", "accepted", "rejected", "pruned"])
    assert tally_text(counts) == "5 trials (2 pruned, 1 complete, 1 accepted, 1 rejected)"
    assert tally_text(tally([])) == "0 trials (none yet)"


def test_every_ending_of_an_acceptance_sprt_is_said_in_words() -> None:
    assert acceptance_ending(None, False, 0, 1, 0, 400) == "under way"
    assert acceptance_ending("accepted", True, 0, 1, 0, 400) == "H1 accepted: crowned"
    assert "on to the next setting" in acceptance_ending("accepted", False, 0, 2, 0, 400)
    rejected = acceptance_ending("rejected", False, 1, 2, 3, 400)
    assert rejected.startswith("H0 accepted: not better than champion #3") and "not crowned" in rejected
    capped = acceptance_ending("budget", False, 0, 1, 0, 400)
    assert capped.startswith("stopped at its game cap of 400 games undecided: not crowned")
    assert "budget" not in capped


def test_one_naming_of_engines() -> None:
    """SPRTs and tournaments name an engine alike: weights by their file's stem, an engine file
    by its name field, a commit as repository@sha."""
    from wire.programs import BuildSpec, EngineProgram

    program = EngineProgram(name="myengine", digest="0" * 64, command=("./e",))
    assert side_name("dir/cand.json", None) == "cand" and side_name("default", None) == "default"
    assert side_name("dir/engines/file.toml", program) == "myengine"
    sha = "1a2b3c4" + "0" * 33
    built = replace(program, build=BuildSpec(repo="https://u:pw@host/arbiter.git", sha=sha, bench=1))
    assert side_name("ref:topic", built) == "arbiter@1a2b3c4"


@pytest.mark.parametrize(
    "url", ["http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:abc", "http://:80", "ftp://host", ""]
)
def test_a_server_url_that_is_not_one_is_the_options_error(url: str) -> None:
    """A broken IPv6 host was urlsplit's bare 'Invalid IPv6 URL', a bad port an error at the first
    request; each is the --server option's one line."""
    from coordinator.server.client import ServerClient, ServerError

    with pytest.raises(
        ServerError, match=r"^--server: expected the server's http\(s\)://HOST:PORT URL, got "
    ):
        ServerClient.of(url)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["show", "congo", "\udcff"], "arbiter show: MOVES: expected UTF-8 text, got '\\udcff'"),
        (["moves", "congo", "--fen", "a\udcff"], "arbiter moves: --fen: expected UTF-8 text, got 'a\\udcff'"),
    ],
)
def test_an_argument_that_is_not_utf8_is_named(args: list[str], line: str) -> None:
    """Bytes of an argument that are not UTF-8 (Python keeps them as surrogates) were a codec's
    message naming neither the option nor what was expected, from where the text met the core."""
    from click.testing import CliRunner

    from coordinator.cli.main import main

    result = CliRunner().invoke(main, args, prog_name="arbiter")
    assert result.exit_code == 2 and result.stderr.strip() == line, result.stderr


def test_a_password_on_stdin_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    """It was a codec's 'surrogates not allowed' from where the password was hashed; no account is made."""
    from click.testing import CliRunner

    from coordinator.cli.main import main
    from coordinator.store import Store

    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url)
    args = ["user", "add", "bob", "--password-stdin", "--store", url]
    result = CliRunner().invoke(main, args, input=b"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\n", prog_name="arbiter")
    assert result.exit_code == 2, result.stderr
    assert (
        result.stderr.strip() == "arbiter user add: --password-stdin: the password on stdin is not UTF-8 text"
    )
    listed = CliRunner().invoke(main, ["user", "list", "--store", url])
    assert "no account yet" in listed.stderr, listed.stderr


@pytest.mark.parametrize("params", ["", ",,,"])
def test_params_that_name_no_weight_are_refused(params: str, tmp_path: Path) -> None:
    """They tuned every weight, as leaving --params out does (an empty shell variable started a
    tuning of the whole table); nothing is stored. (--max-games 8 would refuse any tuning at once.)"""
    from click.testing import CliRunner

    from coordinator.cli.main import main

    store = tmp_path / "store.db"
    args = ["tune", "congo", "--params", params, "--max-games", "8", "--store", f"sqlite:///{store}"]
    result = CliRunner().invoke(main, args, prog_name="arbiter")
    assert result.exit_code == 2, result.stderr
    assert (
        result.stderr.strip()
        == f"arbiter tune: --params: expected weight names like pawn,zebra, got {params!r}"
    )
    assert not store.exists()


@pytest.mark.parametrize(
    ("broker", "shown"),
    [
        ("garbage", "garbage"),
        ("amqp://guest:hunter2@host//", "amqp://guest:***@host//"),
        ("http://h:6379", "http://h:6379"),
    ],
)
def test_a_broker_that_is_not_redis_is_the_options_error(
    broker: str, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was "broker garbage is unreachable: Name or service not known", as if a host were down;
    the same from $ARBITER_BROKER, the password masked, nothing stored."""
    from click.testing import CliRunner

    from coordinator.cli.main import main

    store = tmp_path / "store.db"
    line = f"arbiter sprt: --broker: expected a Redis URL (redis://, rediss:// or unix://), got {shown}"
    args = ["sprt", "congo", "--candidate", "default", "--store", f"sqlite:///{store}"]
    given = CliRunner().invoke(main, [*args, "--broker", broker], prog_name="arbiter")
    assert given.exit_code == 2 and given.stderr.strip() == line, given.stderr
    monkeypatch.setenv("ARBITER_BROKER", broker)
    from_environment = CliRunner().invoke(main, args, prog_name="arbiter")
    assert from_environment.exit_code == 2 and from_environment.stderr.strip() == line, (
        from_environment.stderr
    )
    assert not store.exists()
