"""worker.referee.process: an engine process on a leash, with small programs as engines."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from referee_testkit import ENV, group_gone, processes_named, require_sandbox, wait_gone

from wire.protocol import FaultKind
from worker.referee.faults import EngineConfigError, EngineFault
from worker.referee.process import (
    MAX_ANSWER_BYTES,
    MAX_LINE_BYTES,
    STDERR_LINE_CHARS,
    STDERR_LINES,
    EngineProcess,
    ResourceLimits,
)
from worker.referee.sandbox import this_machine


def python(code: str, limits: ResourceLimits | None = None) -> EngineProcess:
    """A process running ``code`` in Python."""
    return EngineProcess.start([sys.executable, "-c", code], env=ENV, limits=limits or ResourceLimits())


@pytest.fixture
def processes() -> Iterator[list[EngineProcess]]:
    """Processes killed at the end of the test, whatever happened."""
    started: list[EngineProcess] = []
    yield started
    for process in started:
        process.kill()


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


def test_lines_in_and_out(processes: list[EngineProcess]) -> None:
    seen: list[tuple[str, str]] = []
    echo = "import sys\nfor line in sys.stdin:\n    print('got', line.strip(), end='\\r\\n', flush=True)"
    process = EngineProcess.start(
        [sys.executable, "-c", echo], env=ENV, log=lambda way, line: seen.append((way, line))
    )
    processes.append(process)
    process.send("hello  world", 1.0)
    assert process.read_line(soon()) == "got hello  world"
    assert seen == [(">", "hello  world"), ("<", "got hello  world")]
    assert process.read_line(time.monotonic() + 0.05) is None  # nothing more: the deadline passes


@pytest.mark.parametrize(
    ("code", "how"),
    [
        ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "crashed: signal 11"),
        ("import sys; sys.exit(1)", "crashed: exit status 1"),
        ("print('bye')", "crashed: exit status 0"),
    ],
)
def test_how_an_engine_ended(code: str, how: str, processes: list[EngineProcess]) -> None:
    process = python(code)
    processes.append(process)
    started = time.monotonic()
    with pytest.raises(EngineFault) as caught:
        while process.read_line(soon()) is not None:
            pass
    assert (caught.value.kind, caught.value.reason) == (FaultKind.CRASH, how)
    assert time.monotonic() - started < 3
    process.kill()
    assert process.exit_how() == how.removeprefix("crashed: ")


def test_kill_ends_the_whole_group_and_reaps_it() -> None:
    # The engine starts a child of its own in a session of its own, which ignores SIGTERM: both
    # must go.
    marker = f"arbiter-test-child-{os.getpid()}-{time.monotonic_ns()}"
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', "
        f"{marker!r}], start_new_session=True)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    process = python(code)
    assert process.read_line(soon())
    assert processes_named(marker)
    started = time.monotonic()
    process.kill()
    assert time.monotonic() - started < 2
    assert process.killed
    assert group_gone(process.pid)
    assert wait_gone(marker)
    process.kill()  # twice is harmless


def test_a_stuck_reader_cannot_block_a_write(processes: list[EngineProcess]) -> None:
    process = python("import time; time.sleep(60)")  # never reads its input
    processes.append(process)
    started = time.monotonic()
    with pytest.raises(EngineFault) as caught:
        for _ in range(100):
            process.send("x" * 10_000, 0.3)
    assert caught.value.reason == "hang"
    assert time.monotonic() - started < 2


def test_a_flood_of_lines_is_a_violation_and_is_not_kept(processes: list[EngineProcess]) -> None:
    process = python("import sys\nwhile True:\n    sys.stdout.write('info string ' + 'x' * 80 + '\\n')")
    processes.append(process)
    process.begin_answer()
    lines = 0
    with pytest.raises(EngineFault) as caught:
        while process.read_line(soon()) is not None:
            lines += 1
            assert process.buffered_bytes <= 2 * 64 * 1024
    flood = f"protocol violation: more than {MAX_ANSWER_BYTES} bytes of output for one answer"
    assert caught.value.reason == flood
    assert lines < MAX_ANSWER_BYTES // 90


def test_an_endless_line_is_a_violation_with_a_bounded_buffer(processes: list[EngineProcess]) -> None:
    process = python("import sys\nwhile True:\n    sys.stdout.write('x' * 4096)")
    processes.append(process)
    with pytest.raises(EngineFault) as caught:
        process.read_line(soon())
    assert caught.value.reason == f"protocol violation: a line longer than {MAX_LINE_BYTES} bytes"
    assert process.buffered_bytes <= MAX_LINE_BYTES + 64 * 1024


def test_a_whole_over_long_line_is_a_violation(processes: list[EngineProcess]) -> None:
    process = python(f"print('x' * {MAX_LINE_BYTES + 1}, flush=True); import time; time.sleep(60)")
    processes.append(process)
    with pytest.raises(EngineFault) as caught:
        process.read_line(soon())
    assert caught.value.reason == f"protocol violation: a line longer than {MAX_LINE_BYTES} bytes"


def test_answers_are_counted_separately(processes: list[EngineProcess]) -> None:
    # 700 KiB per answer, twice: each answer is under the bound though the total is not.
    code = "import sys\nfor line in sys.stdin:\n    print(('x' * 999 + '\\n') * 700, end='', flush=True)"
    process = python(code)
    processes.append(process)
    for _ in range(2):
        process.send("go", 1.0)
        process.begin_answer()
        for _ in range(700):
            assert process.read_line(soon()) == "x" * 999


def test_stderr_keeps_the_last_lines_clean_and_short(processes: list[EngineProcess]) -> None:
    code = (
        "import sys\n"
        "for i in range(50):\n"
        "    sys.stderr.write(f'line {i} \\x1b[31mred\\x07\\n')\n"
        "sys.stderr.write('y' * 1000 + '\\n')\n"
        "sys.stderr.flush()\n"
        "print('done', flush=True)\n"
        "sys.stdin.read()\n"
    )
    process = python(code)
    processes.append(process)
    assert process.read_line(soon()) == "done"
    process.send("quit", 1.0)
    process.kill()
    tail = process.stderr_tail()
    assert len(tail) == STDERR_LINES
    assert tail[-1] == "y" * STDERR_LINE_CHARS
    assert tail[-2] == "line 49 [31mred"
    assert all(c.isprintable() for line in tail for c in line)


def test_limits_are_set_in_the_child(processes: list[EngineProcess]) -> None:
    limits = ResourceLimits(memory_bytes=512 << 20, cpu_seconds=30, file_size_bytes=0)
    process = python("import sys; sys.stdin.read()", limits)
    processes.append(process)
    with open(f"/proc/{process.program_pid}/limits") as f:
        table = {line[:26].strip(): line[26:].split() for line in f.readlines()[1:]}
    assert table["Max address space"][:2] == [str(512 << 20)] * 2
    assert table["Max cpu time"][:2] == ["30", "31"]
    assert table["Max file size"][:2] == ["0", "0"]
    assert table["Max core file size"][:2] == ["0", "0"]


@pytest.mark.skipif(not os.path.exists("/proc/self/autogroup"), reason="no autogroup scheduling here")
def test_a_nice_worker_starts_engines_as_nice_as_itself() -> None:
    # An engine's session is a scheduling group of its own; it must not escape `nice arbiter worker`.
    code = (
        "import os, sys\n"
        "from worker.referee.process import EngineProcess, ResourceLimits\n"
        "os.nice(19)\n"
        "argv = [sys.executable, '-c', 'input()']\n"
        "p = EngineProcess.start(argv, env=dict(os.environ), limits=ResourceLimits())\n"
        "print(open(f'/proc/{p.program_pid}/autogroup').read().split()[-1])\n"
        "p.kill()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["19"]


def test_an_engine_cannot_write_files(processes: list[EngineProcess]) -> None:
    # In its scratch folder (the one place it may create files) the file-size limit holds.
    code = (
        "import os\n"
        "with open(os.path.join(os.environ['TMPDIR'], 'f'), 'wb', buffering=0) as f:\n"
        "    try:\n"
        "        f.write(b'x')\n"
        "    except OSError as e:\n"
        "        print(e.errno, os.path.getsize(f.name), flush=True)\n"
    )
    process = python(code)
    processes.append(process)
    assert process.read_line(soon()) == f"{errno.EFBIG} 0"  # Python ignores SIGXFSZ


def test_programs_run_in_the_sandbox_with_its_own_network(processes: list[EngineProcess]) -> None:
    require_sandbox()
    box = this_machine()
    code = (
        "import os, socket\n"
        "print(' '.join(sorted(n for _, n in socket.if_nameindex())), flush=True)\n"
        "status = dict(line.split(':', 1) for line in open('/proc/self/status'))\n"
        "print(os.getpid(), os.getuid(), status['Seccomp'].strip(), status['CapEff'].strip(), flush=True)\n"
        "print(sorted(os.environ), os.getcwd(), flush=True)\n"
    )
    process = EngineProcess.start([sys.executable, "-c", code], env={**ENV, "ARBITER_SECRET": "x"})
    processes.append(process)
    assert process.sandboxed and process.program_pid != process.pid
    assert (process.read_line(soon()) or "").split() == ["lo"]
    # PID 2 (the sandbox's init is 1), user 65534, a seccomp filter (mode 2), no capabilities.
    seccomp = "2" if box.seccomp is not None else "0"
    assert (process.read_line(soon()) or "").split() == ["2", "65534", seccomp, "0000000000000000"]
    names, cwd = (process.read_line(soon()) or "").rsplit(" ", 1)
    assert "ARBITER_SECRET" not in names and "'HOME'" in names and cwd == "/tmp"


def test_a_missing_program_is_a_configuration_error() -> None:
    with pytest.raises(EngineConfigError, match="not an executable"):
        EngineProcess.start(["./no-such-engine"])
    with pytest.raises(EngineConfigError, match="not on the PATH"):
        EngineProcess.start(["no-such-engine-anywhere"])
    with pytest.raises(EngineConfigError, match="empty"):
        EngineProcess.start([])


def fixed_addresses_allowed() -> bool:
    """Whether a process here may turn its address randomization off (a container's seccomp
    profile, Docker's default among them, refuses it)."""
    code = "import ctypes; f = ctypes.CDLL(None).personality; print(f(f(0xFFFFFFFF) | 0x0040000))"
    argv = [sys.executable, "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return done.returncode == 0 and done.stdout.strip() not in ("", "-1")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="personality(2) is Linux's")
def test_engines_run_at_the_same_addresses(processes: list[EngineProcess]) -> None:
    """Address space randomization is off in an engine's process: two engines of one program
    map its code at the same addresses (so they train the branch predictor for each other)."""
    code = (
        "import sys\n"
        "persona = int(open('/proc/self/personality').read(), 16)\n"
        "first = open('/proc/self/maps').readline().split()[0]\n"
        "print(persona & 0x0040000, first, flush=True)\n"
        "sys.stdin.readline()"
    )
    if not fixed_addresses_allowed():
        pytest.skip("this machine refuses personality(ADDR_NO_RANDOMIZE) (a seccomp profile)")
    seen = []
    for _ in range(2):
        process = python(code)
        processes.append(process)
        seen.append(process.read_line(soon()))
    assert seen[0] is not None and seen[0].split()[0] == str(0x0040000)
    assert seen[0] == seen[1]
