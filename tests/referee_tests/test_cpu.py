"""A batch through the referee on one CPU: claimed by a lock of its own, inherited by the engines it
starts (and taken by the engines it keeps from an earlier batch), given back after; never two
batches on one CPU, and no pinning when it must not be."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from wire.protocol import BatchPayload
from worker.program_batch import on_one_cpu, sides
from worker.programs import ProgramCache
from worker.referee import AtDeadline, EnginePlayer, GoLimits
from worker.referee.cpu import PIN_ENV, one_cpu, wants_one_cpu
from worker.referee.kept import KeptEngines

ALLOWED = os.sched_getaffinity(0)
needs_two_cpus = pytest.mark.skipif(len(ALLOWED) < 2, reason="pinning needs at least 2 CPUs to choose from")


@pytest.fixture(autouse=True)
def own_lock_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's CPU locks, apart from any other process's on the machine."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    yield tmp_path
    assert os.sched_getaffinity(0) == ALLOWED


def test_engines_on_several_threads_or_the_variable_leave_a_batch_unpinned() -> None:
    assert wants_one_cpu({"Hash": 16}, {}, environ={})
    assert wants_one_cpu({"Threads": 1}, {"threads": "1"}, environ={})
    assert not wants_one_cpu({"Hash": 16}, {"Threads": 2}, environ={})
    assert not wants_one_cpu({"threads": "4"}, {}, environ={})
    assert wants_one_cpu({"Threads": "many"}, {"Threads": True}, environ={})  # not a count
    assert not wants_one_cpu({}, {}, environ={PIN_ENV: "0"})
    assert wants_one_cpu({}, {}, environ={PIN_ENV: "1"})


@needs_two_cpus
def test_the_block_and_the_processes_it_starts_run_on_one_cpu_taking_turns_given_back_after() -> None:
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    with one_cpu() as cpu:
        assert cpu in ALLOWED
        assert os.sched_getaffinity(0) == {cpu}
        assert os.sched_getscheduler(0) == os.SCHED_BATCH
        report = "import os; print(*sorted(os.sched_getaffinity(0)), os.sched_getscheduler(0))"
        child = subprocess.run(
            [sys.executable, "-c", report],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert child.stdout.split() == [str(cpu), str(os.SCHED_BATCH)]
    assert os.sched_getaffinity(0) == ALLOWED
    assert os.sched_getscheduler(0) == os.SCHED_OTHER


@needs_two_cpus
def test_a_cpu_another_batch_holds_is_not_taken(own_lock_folder: Path) -> None:
    folder = own_lock_folder / f"arbiter-cpus-{os.getuid()}"
    folder.mkdir()
    held = []
    for cpu in sorted(ALLOWED)[:-1]:  # every CPU but the last is another batch's
        fd = os.open(folder / f"cpu{cpu}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
    try:
        with one_cpu() as cpu:
            assert cpu == max(ALLOWED)
        last = os.open(folder / f"cpu{max(ALLOWED)}.lock", os.O_RDWR)
        held.append(last)
        fcntl.flock(last, fcntl.LOCK_EX | fcntl.LOCK_NB)  # given back: free again
        with one_cpu() as cpu:  # every CPU taken: the batch runs where the scheduler puts it
            assert cpu is None
            assert os.sched_getaffinity(0) == ALLOWED
    finally:
        for fd in held:
            os.close(fd)


def test_off_is_off() -> None:
    with one_cpu(enabled=False) as cpu:
        assert cpu is None
        assert os.sched_getaffinity(0) == ALLOWED


@needs_two_cpus
def test_an_error_inside_gives_the_cpus_back() -> None:
    with pytest.raises(RuntimeError), one_cpu() as cpu:
        assert cpu is not None
        raise RuntimeError("a batch that fails")
    assert os.sched_getaffinity(0) == ALLOWED


@needs_two_cpus
def test_a_batchs_engines_run_on_its_cpu_and_when_kept_follow_the_next_batchs(own_lock_folder: Path) -> None:
    """The engine processes a batch starts (here arbiter-engine on both sides) share its CPU; kept
    for the next batch, which another batch's lock sends to another CPU, every thread of theirs
    moves there."""
    sent = BatchPayload(
        run_id=1,
        batch_index=0,
        game="congo",
        candidate={"pawn": 140},
        baseline=None,
        openings=[engine.Position.start("congo").fen()],
        limits=engine.Limits(nodes=100),
        adjudication=None,
        seed=1,
        engine_version=engine.ENGINE_VERSION,
    )
    kept = KeptEngines()
    candidate, baseline = kept.players(*sides(sent, ProgramCache(), None))
    assert wants_one_cpu(candidate.spec.options, baseline.spec.options)
    try:
        with on_one_cpu(candidate, baseline) as cpu, kept.lent(candidate, baseline):
            assert cpu is not None
            for player in (candidate, baseline):
                player.new_game()
                player.play(sent.openings[0], [], GoLimits(nodes=100), 10.0, AtDeadline.HANG)
            assert {thread_cpus(p) for p in (candidate, baseline)} == {frozenset({cpu})}
        assert kept.idle == (candidate, baseline)
        held = os.open(own_lock_folder / f"arbiter-cpus-{os.getuid()}" / f"cpu{cpu}.lock", os.O_RDWR)
        try:
            fcntl.flock(held, fcntl.LOCK_EX)  # another batch's now
            again = kept.players(*sides(sent, ProgramCache(), None))
            assert again == [candidate, baseline]
            with on_one_cpu(*again) as other, kept.lent(*again):
                assert other is not None and other != cpu
                assert {thread_cpus(p) for p in again} == {frozenset({other})}
        finally:
            os.close(held)
    finally:
        kept.close()


def thread_cpus(player: EnginePlayer) -> frozenset[int]:
    """The CPUs every thread of ``player``'s engine may run on (one set, or an error); every
    thread is under SCHED_BATCH, as the batch's referee."""
    assert player.process is not None
    pid = player.process.program_pid
    threads = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    assert {os.sched_getscheduler(t) for t in threads} == {os.SCHED_BATCH}
    found = {frozenset(os.sched_getaffinity(t)) for t in threads}
    assert len(found) == 1, f"the engine's threads run on different CPUs: {found}"
    return found.pop()
