"""worker.referee.kept: a batch's engines kept for the next batch of the same engines, and closed
when they are not fit to be (the batch failed, the engine died or used its CPU share, or the next
batch wants others); engines die with the referee's process."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from referee_testkit import ENV, START, group_gone, player

import engine
from wire.programs import EngineProgram, files_digest, pack
from wire.protocol import BatchPayload
from worker import program_batch
from worker.games import play_batch
from worker.programs import ProgramCache
from worker.referee import AtDeadline, EnginePlayer, EngineProcess, GoLimits
from worker.referee import kept as kept_module
from worker.referee.kept import KEPT, KeptEngines

pytestmark = pytest.mark.integration


def played(one: EnginePlayer) -> str:
    """A game's first move by ``one`` (started if it is not)."""
    one.new_game()
    return one.play(START["congo"], [], GoLimits(nodes=50), 10.0, AtDeadline.HANG).move


def test_a_batchs_engines_are_taken_again_by_the_next_batch_of_the_same_engines() -> None:
    kept = KeptEngines()
    first = player("congo")
    wanted = [(first.spec, "congo"), (dataclasses.replace(first.spec, name="other"), "congo")]
    try:
        one, two = kept.players(*wanted)
        with kept.lent(one, two):
            moves = [played(one), played(two)]
        assert kept.idle == (one, two)
        again = kept.players(*wanted)
        assert again == [one, two] and kept.idle == ()
        with kept.lent(*again):
            assert [played(p) for p in again] == moves
        assert one.starts == two.starts == 1
    finally:
        kept.close()
    assert all(p.process is not None and group_gone(p.process.pid) for p in (one, two))


def test_engines_the_next_batch_does_not_want_are_closed() -> None:
    kept = KeptEngines()
    one = player("congo")
    with kept.lent(one):
        played(one)
    assert one.process is not None
    (other,) = kept.players((one.spec, "congress"))  # the same program, another game
    assert other is not one and kept.idle == ()
    assert group_gone(one.process.pid)


def test_a_batch_that_fails_keeps_nothing() -> None:
    kept = KeptEngines()
    one = player("congo")
    with pytest.raises(RuntimeError), kept.lent(one):
        played(one)
        raise RuntimeError("a batch that fails")
    assert kept.idle == () and one.process is not None and group_gone(one.process.pid)


def test_an_engine_that_is_down_at_the_end_is_not_kept() -> None:
    kept = KeptEngines()
    one = player("congo")
    with kept.lent(one):
        played(one)
        one.kill()  # a fault in the batch's last game
    assert kept.idle == ()


def test_an_engine_that_died_idle_is_started_afresh() -> None:
    kept = KeptEngines()
    one = player("congo")
    with kept.lent(one):
        played(one)
    assert one.process is not None
    os.killpg(one.process.pid, signal.SIGKILL)
    assert one.process.wait_exit(10.0)
    (fresh,) = kept.players((one.spec, "congo"))
    assert fresh is not one and not fresh.running
    assert group_gone(one.process.pid)  # reaped
    with kept.lent(fresh):
        played(fresh)
    kept.close()


def test_an_engine_past_its_cpu_share_is_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = KeptEngines()
    one = player("congo")
    with kept.lent(one):
        played(one)
    monkeypatch.setattr(kept_module, "KEPT_CPU_SHARE", 0.0)  # any CPU used is too much
    (fresh,) = kept.players((one.spec, "congo"))
    assert fresh is not one
    assert one.process is not None and group_gone(one.process.pid)


def test_engines_die_with_the_referees_process() -> None:
    """An engine left running (idle, as a kept one is) by a referee that is killed is killed with
    it, even one that never reads its input, so never sees its end."""
    deaf = [sys.executable, "-c", "import time; time.sleep(120)"]
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = {sys.path!r}
        from worker.referee import EngineProcess
        engine = EngineProcess.start({deaf!r})
        print(engine.pid, flush=True)
        sys.stdin.readline()
        """
    )
    referee = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV
    )
    assert referee.stdout is not None
    pid = int(referee.stdout.readline())
    try:
        os.kill(pid, 0)  # the engine runs
        referee.kill()
        referee.wait(10)
        assert group_gone(pid), "the engine outlived the referee"
    finally:
        if not group_gone(pid, 0.0):
            os.killpg(pid, signal.SIGKILL)


def shipped_copy(tmp_path: Path, alone: bool = False, **flags: bool) -> tuple[ProgramCache, EngineProgram]:
    """A copy of arbiter-engine as a shipped program in a cache of its own, with ``flags``
    (deterministic, replayable) as a run's probe set them: ``alone``, the built-in engine's file
    only (``program_batch.is_builtin_copy``), else with a file of notes beside it, which makes it
    a program of its own."""
    cache = ProgramCache(tmp_path / "cache")
    source = tmp_path / "source"
    source.mkdir(parents=True)
    binary = source / "arbiter-engine"
    binary.write_bytes(Path(program_batch.builtin_program()).read_bytes())
    binary.chmod(0o755)
    files = [binary]
    if not alone:
        files.append(source / "NOTES")
        files[-1].write_text("a program that is not the worker's arbiter-engine\n")
    digest = files_digest(source, files)
    cache.install(digest, pack(source, files))
    return cache, EngineProgram("copy", digest, ("./arbiter-engine",), {"Hash": 1}, **flags)


def congress_batch(program: EngineProgram, limits: engine.Limits | None = None) -> BatchPayload:
    """Two pairs of Congress, the program against the built-in engine."""
    start = engine.Position.start("congress").fen()
    return BatchPayload(
        run_id=1,
        batch_index=0,
        game="congress",
        candidate=None,
        baseline={"pawn": 90},
        openings=[start, engine.Position.from_fen("congress", start).play("b2b3").fen()],
        limits=limits or engine.Limits(nodes=300),
        adjudication=None,
        seed=4,
        engine_version=engine.ENGINE_VERSION,
        candidate_program=program,
    )


@pytest.mark.parametrize("alone", [False, True], ids=["unverifiable-program", "builtin-copy"])
def test_kept_engines_play_the_same_games_as_fresh_ones(tmp_path: Path, alone: bool) -> None:
    """Two batches of one run on a worker: the second takes the first's engines (a program no
    check plays again, or a verifiable shipped copy of arbiter-engine alone, which is the
    built-in engine; against the built-in one) and plays what fresh engines play."""
    cache, program = shipped_copy(tmp_path, alone=alone, deterministic=alone)
    sent = congress_batch(program)
    try:
        referee = time.process_time()
        first = play_batch(sent, worker="w", cache=cache)
        referee = time.process_time() - referee
        engines = KEPT.idle
        assert len(engines) == 2 and all(p.running for p in engines)
        # The batch's CPU is the referee's and its engines' (started by it).
        engines_cpu = sum(p.cpu_seconds() for p in engines)
        assert engines_cpu > 0
        assert first.cpu_seconds == pytest.approx(referee + engines_cpu, abs=0.05)
        pids = {p.process.pid for p in engines if p.process is not None}
        second = play_batch(dataclasses.replace(sent, batch_index=1), worker="w", cache=cache)
        assert {p.process.pid for p in KEPT.idle if p.process is not None} == pids
    finally:
        KEPT.close()
    fresh = play_batch(dataclasses.replace(sent, batch_index=1), worker="w", cache=cache)
    KEPT.close()
    assert [g.moves for g in second.games] == [g.moves for g in first.games] == [g.moves for g in fresh.games]
    assert not second.faults


def test_a_program_a_check_plays_again_is_not_kept(tmp_path: Path) -> None:
    """A verifiable program's engine is closed after each batch (it might carry something into
    the next that its check's fresh engine would not have); the built-in engine is kept, until a
    batch without programs."""
    cache, program = shipped_copy(tmp_path)
    sent = congress_batch(program)
    try:
        play_batch(sent, worker="w", cache=cache)
        (kept,) = KEPT.idle
        assert kept.spec.argv[0] == program_batch.builtin_program()
        play_batch(dataclasses.replace(sent, candidate_program=None, candidate={"pawn": 80}), worker="w")
        assert KEPT.idle == ()
        assert kept.process is not None and group_gone(kept.process.pid)
    finally:
        KEPT.close()


def test_which_engines_may_be_kept(tmp_path: Path) -> None:
    _, program = shipped_copy(tmp_path)
    fixed, timed = engine.Limits(nodes=300), engine.Limits(time_control=engine.TimeControl(10_000, 100))
    assert program_batch.keepable(congress_batch(program, fixed)) == (False, True)
    unverifiable = dataclasses.replace(program, deterministic=False)
    assert program_batch.keepable(congress_batch(unverifiable, fixed)) == (True, True)
    # Timed games are checked by replaying their moves at the nodes reported: `replayable`.
    assert program_batch.keepable(congress_batch(unverifiable, timed)) == (False, True)
    assert program_batch.keepable(congress_batch(dataclasses.replace(program, replayable=False), timed)) == (
        True,
        True,
    )
    # A shipped copy of the built-in engine alone is the built-in engine: kept, checked or not.
    _, builtin_copy = shipped_copy(tmp_path / "alone", alone=True)
    assert program_batch.keepable(congress_batch(builtin_copy, fixed)) == (True, True)
    assert program_batch.keepable(congress_batch(builtin_copy, timed)) == (True, True)


def test_a_shipped_copy_of_the_builtin_engine_is_recognised(tmp_path: Path) -> None:
    _, copy = shipped_copy(tmp_path / "alone", alone=True)
    assert program_batch.is_builtin_copy(copy)
    assert not program_batch.is_builtin_copy(dataclasses.replace(copy, command=("x/../arbiter-engine",)))
    # Its command must run the file: a bare name is a program of the machine's PATH.
    assert not program_batch.is_builtin_copy(dataclasses.replace(copy, command=("arbiter-engine",)))
    assert not program_batch.is_builtin_copy(dataclasses.replace(copy, command=("./other",)))
    _, other = shipped_copy(tmp_path / "notes")
    assert not program_batch.is_builtin_copy(other)
    # One byte changed is another program.
    source = tmp_path / "changed"
    source.mkdir()
    binary = source / "arbiter-engine"
    data = bytearray(Path(program_batch.builtin_program()).read_bytes())
    data[-1] ^= 1
    binary.write_bytes(bytes(data))
    binary.chmod(0o755)
    changed = dataclasses.replace(copy, digest=files_digest(source, [binary]))
    assert not program_batch.is_builtin_copy(changed)


def test_a_kept_engines_stderr_tail_starts_afresh() -> None:
    """What an engine wrote to stderr in an earlier batch (maybe another run's) is not reported
    with a fault of the next."""
    script = "import sys, time; print('old', file=sys.stderr, flush=True); time.sleep(60)"
    talker = [sys.executable, "-c", script]
    with EngineProcess.start(talker) as process:
        deadline = time.monotonic() + 10.0
        while process.stderr_tail() != ["old"] and time.monotonic() < deadline:
            process.pipe.pump(0.1)
        assert process.stderr_tail() == ["old"]
        process.forget_stderr()
        assert process.stderr_tail() == []
