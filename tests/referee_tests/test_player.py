"""worker.referee.player: an engine program's set-up, kept across games, restarted after faults."""

from __future__ import annotations

import pytest
from referee_testkit import ENV, PLAIN, QUICK, START, player

import engine
from worker.referee import EngineConfigError, EngineFault, EnginePlayer, EngineSpec, GoLimits
from worker.referee.process import MAX_RLIMIT, ResourceLimits, _rlimits
from worker.referee.uci import AtDeadline


def test_the_memory_limit_grows_by_the_hash() -> None:
    assert EngineSpec(PLAIN, options={"hash": 64}).process_limits().memory_bytes == (1 << 30) + (64 << 20)
    assert EngineSpec(PLAIN).process_limits().memory_bytes == 1 << 30
    with player("congo", options={"Hash": 64}) as one:
        one.start()
        assert one.process is not None
        with open(f"/proc/{one.process.pid}/limits") as f:
            line = next(row for row in f if row.startswith("Max address space"))
        assert line.split()[3] == str((1 << 30) + (64 << 20))


def test_a_hash_too_large_for_a_memory_limit_leaves_the_memory_unlimited() -> None:
    """An engine file's Hash of 10^20 MiB made a memory limit setrlimit cannot take: the engine did
    not start ("Exception occurred in preexec_fn") instead of being told the Hash by setoption."""
    huge = EngineSpec(PLAIN, options={"Hash": 10**20}, limits=ResourceLimits(cpu_seconds=2**70))
    for _which, soft, hard in _rlimits(huge.process_limits()):
        assert 0 <= soft <= hard <= MAX_RLIMIT


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"argv": ()}, "engine command is empty"),
        ({"argv": PLAIN, "options": {"uci_variant": "congo"}}, "UCI_Variant is set by the referee"),
        ({"argv": PLAIN, "command": "xboard"}, "must be uci or ugi"),
    ],
)
def test_bad_engine_specs(spec: dict[str, object], message: str) -> None:
    with pytest.raises(EngineConfigError, match=message):
        EngineSpec(**spec)  # type: ignore[arg-type]


def test_a_bad_option_value_stops_the_start_and_leaves_nothing_running() -> None:
    with player("congo", options={"Hash": 5000}) as one:
        with pytest.raises(EngineConfigError, match="option Hash: expected an integer from 1 to 1024"):
            one.start()
        assert not one.running
        assert one.process is not None and one.process.killed


def test_variant_and_restart_after_kill() -> None:
    with player("congress", options={"ponder": False}) as one:
        one.new_game()
        first = one.process
        best = one.play(START["congress"], ["b2b3"], GoLimits(nodes=200), 5.0, AtDeadline.HANG)
        assert best.move in engine.Position.from_fen("congress", START["congress"]).play("b2b3").legal_moves()
        one.kill()
        assert first is not None and first.killed and not one.running
        one.new_game()  # started again, handshake, options and variant again
        assert one.starts == 2 and one.process is not first
        assert one.name == "plain"
        # Its CPU counts both processes': the killed one's to its end, the new one's so far.
        ended, current = first.cpu_seconds(), one.process.cpu_seconds()
        assert ended is not None and ended > 0 and current is not None
        assert one.cpu_seconds() == pytest.approx(ended + current, abs=0.02)


def test_a_missing_program_is_a_configuration_error_not_a_fault() -> None:
    with player("congo", ("/nonexistent/engine",)) as one:
        with pytest.raises(EngineConfigError, match="not an executable file"):
            one.new_game()
        assert not issubclass(EngineConfigError, EngineFault)


@pytest.mark.parametrize(
    ("limits", "deadline", "ready"),
    [
        (GoLimits(nodes=200), AtDeadline.HANG, False),
        (GoLimits(nodes=200, movetime=1000), AtDeadline.FORFEIT, True),
        (GoLimits(wtime=5000, btime=5000), AtDeadline.FORFEIT, True),
    ],
    ids=["fixed-nodes", "movetime", "clock"],
)
def test_isready_comes_between_position_and_go_of_a_timed_move_only(
    limits: GoLimits, deadline: AtDeadline, ready: bool
) -> None:
    sent: list[str] = []

    def log(way: str, line: str) -> None:
        if way == ">":
            sent.append(line)

    with EnginePlayer(EngineSpec(PLAIN, env=ENV), "congo", QUICK, log=log) as one:
        one.new_game()
        del sent[:]
        one.play(START["congo"], ["a2a3"], limits, 5.0, deadline)
    position = f"position fen {START['congo']} moves a2a3"
    go = limits.command()
    assert sent[:3] == ([position, "isready", go] if ready else [position, go, "quit"])
