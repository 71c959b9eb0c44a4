"""An engine program as a child process, held on a short leash.

It is started from an argv list (never a shell) in its own session, under resource limits set in
the child before exec, inside the sandbox of :mod:`worker.referee.sandbox` (bubblewrap: its own
namespaces, files, environment; no network, no capabilities, no way out). Its
stdout is read line by line against deadlines, with bounded lines and a bounded amount of output
per answer; its stdin is written with a bounded wait (an engine that stops reading cannot block the
referee); its stderr is kept as a small ring of the last lines, for reports. Killing it kills its
whole process group; in the sandbox, that kills bwrap, and with it every process of the
program. Nothing an engine prints or does raises anything but an EngineFault.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from worker.referee import sandbox
from worker.referee.faults import (
    EngineConfigError,
    EngineFault,
    crashed,
    hang,
    protocol_violation,
    time_forfeit,
)

#: A line of engine output longer than this is a protocol violation.
MAX_LINE_BYTES: int = engine.EnginePipe.MAX_LINE_BYTES
#: More output than this while the referee waits for one answer is a flood (a protocol violation).
MAX_ANSWER_BYTES: int = engine.EnginePipe.MAX_ANSWER_BYTES
#: The last lines of stderr kept, and the characters kept of each.
STDERR_LINES: int = engine.EnginePipe.STDERR_LINES
STDERR_LINE_CHARS: int = engine.EnginePipe.STDERR_LINE_CHARS
#: How long a process that closed its output is given to exit before it is described.
GONE_WAIT_S = 1.0
#: SIGTERM grace before SIGKILL, and the bound on reaping after SIGKILL.
KILL_GRACE_S = 0.2
REAP_TIMEOUT_S = 5.0

_PR_SET_PDEATHSIG = 1
#: personality(2): read the persona; the flag that turns address space randomization off.
_PERSONALITY_QUERY = 0xFFFFFFFF
_ADDR_NO_RANDOMIZE = 0x0040000
_POLL_S = 0.01

#: ``log(direction, line)``: ``">"`` for a line sent to the engine, ``"<"`` for a line read.
Log = Callable[[str, str], None]


@dataclass(frozen=True)
class ResourceLimits:
    """Limits set in the engine's process before it starts (None: not set).

    ``processes`` (RLIMIT_NPROC) counts every process and thread of the engine's user, not of the
    engine, so it is only sensible when engines run under a user of their own; it is off by
    default. ``cpu_seconds`` bounds a runaway engine over its whole life (an engine plays a
    batch, whose time Celery bounds at ``ARBITER_BATCH_SECONDS``, 30 minutes by default: twice
    that, for an engine's threads; it is kept for later batches only while it has used a tenth
    of it, ``worker.referee.kept``).
    """

    memory_bytes: int | None = 1 << 30
    cpu_seconds: int | None = 3600
    file_size_bytes: int | None = 0
    processes: int | None = None
    #: False only for a program of the referee's own tests that must keep state across its
    #: restarts outside any sandbox (tests/engines/faulty_engine.py's FaultOnce); never for a
    #: program from an engine file or a payload.
    sandboxed: bool = True


#: The largest limit setrlimit takes (a larger one, such as the memory of a Hash of 10^20 MiB, failed
#: the engine's start with "Exception occurred in preexec_fn"); as good as no limit.
MAX_RLIMIT = 2**63 - 1


def _rlimits(limits: ResourceLimits) -> list[tuple[int, int, int]]:
    """(resource, soft, hard) for each limit set, never above this process's own hard limit."""
    wanted = [
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, limits.processes),
    ]
    out = []
    for which, wanted_value in wanted:
        if wanted_value is None:
            continue
        value = min(wanted_value, MAX_RLIMIT)
        _, hard = resource.getrlimit(which)
        soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # Past the CPU soft limit the engine gets SIGXCPU; a second later SIGKILL.
        top = min(soft + 1, MAX_RLIMIT) if which == resource.RLIMIT_CPU else soft
        if hard != resource.RLIM_INFINITY:
            top = min(top, hard)
        out.append((which, soft, top))
    return out


@functools.cache
def _linux_libc(name: str) -> Callable[..., int] | None:
    """libc's function ``name`` (Linux), looked up once before any fork; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), name)  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def _process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time, as Linux's clock_getcpuclockid(3) makes it
    (MAKE_PROCESS_CPUCLOCK with CPUCLOCK_SCHED): every thread's run time, in nanoseconds."""
    return ((~pid) << 3) | 2


def _child_setup(rlimits: list[tuple[int, int, int]]) -> Callable[[], None]:
    """What the child (bwrap, in the sandbox) runs between fork and exec, for the program to
    inherit: its limits, and (on Linux) SIGKILL when the referee's process dies, so that no
    engine outlives a killed worker, idle or searching; and its addresses not randomized, so
    that two engines of one program (a batch's two sides, often) run their code at the same
    addresses, as two searchers in one process do, and train the processor's branch predictor
    for each other (docs/performance.md: 3 to 4 points of the protocol's cost). The engine is
    the sandboxed party, not a victim: its only input is the referee's."""
    prctl, personality, parent = _linux_libc("prctl"), _linux_libc("personality"), os.getpid()

    def setup() -> None:
        for which, soft, hard in rlimits:
            resource.setrlimit(which, (soft, hard))
        if personality is not None:
            persona = personality(_PERSONALITY_QUERY)
            if persona != -1:
                personality(persona | _ADDR_NO_RANDOMIZE)
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the referee died before the signal was asked for
                os._exit(1)

    return setup


def _share_niceness(pid: int) -> None:
    """Give the engine ``pid`` this process's niceness where Linux schedules by session.

    An engine starts in a session of its own, and with autogroup scheduling (most desktop
    kernels) a new session is a group that gets a full share of the CPU against every other
    session, whatever the niceness of its processes: ``nice arbiter worker`` would leave its
    engines competing with the desktop as equals. The group of the engine's session is given
    the worker's niceness; where there is no autogroup, or it cannot be set, nothing changes."""
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness <= 0:
        return
    with contextlib.suppress(OSError), open(f"/proc/{pid}/autogroup", "w") as group:
        group.write(str(niceness))


def _program_path(program: str, cwd: str | None, env: Mapping[str, str]) -> str:
    """The absolute path ``program`` names (relative to ``cwd``, else found on the PATH)."""
    if "/" in program:
        return os.path.abspath(os.path.join(cwd or ".", program))
    return os.path.abspath(shutil.which(program, path=env.get("PATH", os.defpath)) or program)


def _resolve_program(argv: Sequence[str], cwd: str | None, env: Mapping[str, str] | None) -> None:
    """EngineConfigError unless argv[0] names an executable file (relative to ``cwd``, or on
    the PATH): a missing program is the configuration's fault, not the engine's."""
    if not argv:
        raise EngineConfigError("engine command is empty")
    program = argv[0]
    if "/" in program:
        path = os.path.join(cwd or ".", program)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise EngineConfigError(f"engine program {program!r} is not an executable file")
        return
    search = (env or os.environ).get("PATH", os.defpath)
    if shutil.which(program, path=search) is None:
        raise EngineConfigError(f"engine program {program!r} is not on the PATH")


class EngineProcess(contextlib.AbstractContextManager["EngineProcess"]):
    """A running engine program: lines in and out with deadlines, stderr kept, group killed.

    Deadlines are ``time.monotonic()`` values. The reading and writing run in Rust
    (``engine.EnginePipe``): each move's search is one call. Any failure of the engine (it
    exits, closes its output, floods, prints an over-long line, stops reading its input) raises
    EngineFault; the caller then calls :meth:`kill`.
    """

    def __init__(
        self, popen: subprocess.Popen[bytes], name: str, log: Log | None, program_pid: int | None = None
    ):
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self._popen = popen
        self.name = name
        #: The process started (bwrap, when sandboxed), whose group a kill signals.
        self.pid = popen.pid
        #: Whether the program runs in the sandbox.
        self.sandboxed = program_pid is not None
        #: The program's own process (in the sandbox, bwrap's child): its CPU and threads.
        self.program_pid = program_pid if program_pid is not None else popen.pid
        self._log = log
        fds = (popen.stdin.fileno(), popen.stdout.fileno(), popen.stderr.fileno())
        for fd in fds:
            os.set_blocking(fd, False)
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self._pidfd = os.pidfd_open(self.pid)
        self._pipe = engine.EnginePipe(*fds, self._pidfd)
        self._reaped = False
        self._final_cpu: float | None = None
        self._last_cpu: float | None = None

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        limits: ResourceLimits = ResourceLimits(),
        name: str | None = None,
        log: Log | None = None,
    ) -> EngineProcess:
        """Starts ``argv`` (no shell) in ``cwd`` in the sandbox, in a new session under
        ``limits``, with ``env`` (None: a bare one; ``ARBITER_*`` never,
        :func:`~worker.referee.sandbox.program_environment`). Where this machine cannot make the
        sandbox, EngineConfigError saying why, unless the operator allows unsandboxed programs
        (``$ARBITER_UNSANDBOXED_PROGRAMS``): then as a plain child. EngineConfigError too if the
        program cannot be started at all.

        The limits are set by subprocess's ``preexec_fn``, the standard library's only hook
        between fork and exec; like any preexec_fn it is unsafe in a process whose other threads
        may hold locks at the fork, so engines are started from the referee's one thread.
        """
        argv = [str(a) for a in argv]
        environment = sandbox.program_environment(env)
        _resolve_program(argv, cwd, environment)
        box = sandbox.this_machine() if limits.sandboxed else sandbox.Sandbox(None, "not asked for")
        if limits.sandboxed and not box.ready and not sandbox.unsandboxed_allowed():
            raise EngineConfigError(sandbox.refusal(box))
        if box.ready:
            where_not = sandbox.outside_view(_program_path(argv[0], cwd, environment), cwd)
            if where_not is not None:
                raise EngineConfigError(where_not)
        setup = _child_setup(_rlimits(limits))
        with sandbox.Launch(box) as launch:
            if box.ready:
                command = sandbox.bwrap_argv(
                    box, argv, cwd, info_fd=launch.info_fd, seccomp_fd=launch.seccomp_fd
                )
                passed, where = launch.passed, None
            else:
                command, passed, where = argv, (), cwd
            try:
                popen = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd=where,
                    env=environment,
                    start_new_session=True,
                    preexec_fn=setup,
                    pass_fds=passed,
                    bufsize=0,
                )
            except (OSError, subprocess.SubprocessError) as e:
                raise EngineConfigError(f"cannot start engine {argv[0]!r}: {e}") from None
            program_pid = None
            if box.ready:
                launch.started()
                program_pid = launch.program_pid()
                if program_pid is None:  # bwrap failed: its exit and stderr tell
                    program_pid = popen.pid
        _share_niceness(program_pid or popen.pid)
        return cls(popen, name or os.path.basename(argv[0]), log, program_pid)

    # -- reading and writing -------------------------------------------------------------------

    @property
    def pipe(self) -> engine.EnginePipe:
        """The process's pipes as the referee's Rust side reads and writes them."""
        return self._pipe

    @property
    def log(self) -> Log | None:
        """Where the lines written and read go (None: nowhere)."""
        return self._log

    def _fault(self, error: engine.EnginePipeFault) -> EngineFault:
        return self.fault(*error.args)

    def fault(self, kind: str, text: str) -> EngineFault:
        """The failure table's fault for what the pipe found (``engine.EnginePipeFault``'s kind
        and text)."""
        if kind == "gone":
            return self._gone()
        if kind == "hang":
            return hang()
        if kind == "time_forfeit":
            return time_forfeit()
        return protocol_violation(text)

    @property
    def buffered_bytes(self) -> int:
        """Output read from the engine and not yet taken as lines (bounded by the line limit
        and one read)."""
        return self._pipe.buffered_bytes

    def begin_answer(self) -> None:
        """Starts counting output afresh: the flood bound applies to each answer waited for."""
        self._pipe.begin_answer()

    def read_line(self, deadline: float) -> str | None:
        """The next line of output (without its line end), or None if ``deadline`` passes first."""
        try:
            line = self._pipe.read_line(deadline - time.monotonic())
        except engine.EnginePipeFault as e:
            raise self._fault(e) from None
        if line is not None and self._log is not None:
            self._log("<", line)
        return line

    def send(self, line: str, timeout_s: float) -> None:
        """Writes ``line`` and a line end; a fault if the engine is gone, or has not taken it
        within ``timeout_s`` (it stopped reading its input: a hang)."""
        self.send_lines((line,), timeout_s)

    def send_lines(self, lines: Sequence[str], timeout_s: float) -> None:
        """Writes ``lines``, each with a line end, in one write where the pipe takes them (a
        wake-up of the engine less per line), as :meth:`send` writes one."""
        if not lines:
            return
        self._logged(">", lines)
        try:
            self._pipe.send("".join(line + "\n" for line in lines), timeout_s)
        except engine.EnginePipeFault as e:
            raise self._fault(e) from None

    def search(
        self, lines: Sequence[str], deadline_s: float, at_deadline: str, stop_s: float, write_s: float
    ) -> tuple[str, str | None, tuple[Any, ...]]:
        """Writes ``lines`` (``go`` last) and reads up to ``bestmove``, judged after
        ``deadline_s`` by ``at_deadline`` (forfeit, stop or hang): (move, ponder, the info
        fields of :class:`~worker.referee.uci.SearchInfo`)."""
        self._logged(">", lines)
        try:
            best, ponder, info, read = self._pipe.search(
                "".join(line + "\n" for line in lines), deadline_s, at_deadline, stop_s, write_s
            )
        except engine.EnginePipeFault as e:
            raise self._fault(e) from None
        self._logged("<", read)
        return best, ponder, info

    def _logged(self, direction: str, lines: Sequence[str]) -> None:
        if self._log is not None:
            for line in lines:
                self._log(direction, line)

    # -- the end of the process ----------------------------------------------------------------

    def exit_how(self) -> str | None:
        """``"signal 11"`` or ``"exit status 1"`` once the engine's process has ended, else
        None (the process is not reaped by asking)."""
        if self._reaped:
            code = self._popen.returncode
            return f"signal {-code}" if code < 0 else self._exit_status(code)
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None or info.si_pid == 0:
            return None
        if info.si_code == os.CLD_EXITED:
            return self._exit_status(info.si_status)
        return f"signal {info.si_status}"

    def _exit_status(self, code: int) -> str:
        """How an exit status reads: bwrap exits with 128 + N when its program died of signal N."""
        if self.sandboxed and 128 < code < 128 + signal.NSIG:
            return f"signal {code - 128}"
        return f"exit status {code}"

    def wait_exit(self, timeout_s: float) -> bool:
        """True if the engine's process ends within ``timeout_s``. Its output is read and dropped
        meanwhile, so that a full pipe cannot hold it up."""
        deadline = time.monotonic() + timeout_s
        while self.exit_how() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(engine.EnginePipeFault):
                # A flood or an over-long line: it is being waited for, not listened to.
                self._pipe.pump(min(left, _POLL_S) if self._pidfd is None else left)
            self._pipe.discard_output()
        return True

    def _gone(self) -> EngineFault:
        """The fault of an engine whose output ended or whose input broke: how it exited."""
        self.wait_exit(GONE_WAIT_S)
        how = self.exit_how()
        return crashed(how) if how is not None else protocol_violation("closed its input or output")

    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to stderr (control characters removed, bounded)."""
        return self._pipe.stderr_tail()

    def forget_stderr(self) -> None:
        """Starts the stderr tail afresh: an engine kept for another batch reports that batch's
        lines with its faults, not an earlier one's (or another run's)."""
        self._pipe.forget_stderr()

    @property
    def alive(self) -> bool:
        """True while the engine's process runs (it has neither exited nor been killed)."""
        return not self._reaped and self.exit_how() is None

    def cpu_seconds(self) -> float | None:
        """The CPU time the engine's process has used so far, all its threads, ended ones too
        (what RLIMIT_CPU counts; to its end once killed): its CPU clock, to the nanosecond; None
        where the system cannot tell (off Linux)."""
        if self._reaped:
            return self._final_cpu
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, OverflowError):
                self._last_cpu = time.clock_gettime(_process_cpu_clock(self.program_pid))
        # A sandboxed program that ended is reaped by bwrap: its last reading stands.
        return self._last_cpu

    def follow(self) -> None:
        """Moves every thread of the engine onto the CPUs the calling thread may run on, under
        its scheduling policy: an engine kept for another batch runs as that batch's referee
        does (``worker.referee.cpu``), as an engine started by it would."""
        try:
            cpus = os.sched_getaffinity(0)
            policy = os.sched_getscheduler(0)
            threads = [int(t) for t in os.listdir(f"/proc/{self.program_pid}/task")]
        except (AttributeError, OSError, ValueError):  # no affinity or /proc here
            return
        for thread in threads:
            with contextlib.suppress(OSError):  # a thread that ended
                os.sched_setaffinity(thread, cpus)
            with contextlib.suppress(OSError):  # or a policy this user may not set
                os.sched_setscheduler(thread, policy, os.sched_param(0))

    @property
    def killed(self) -> bool:
        """True once :meth:`kill` has reaped the process."""
        return self._reaped

    def kill(self, grace_s: float = KILL_GRACE_S) -> None:
        """Ends the engine and its whole process group: SIGTERM, up to ``grace_s`` to exit, then
        SIGKILL to the group, and the process reaped (bounded). Safe to call more than once."""
        if self._reaped:
            return
        self.cpu_seconds()  # the program's clock, while it may still be read
        if self.exit_how() is None:
            self._signal_group(signal.SIGTERM)
            self.wait_exit(grace_s)
        # The leader is a zombie or alive here: its id still names the group, nobody else's.
        self._signal_group(signal.SIGKILL)
        self._final_cpu = self.cpu_seconds()
        try:
            self._popen.wait(REAP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return
        self._reaped = True
        self._pipe.forget()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
            if stream is not None:
                stream.close()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def __exit__(self, *exc: object) -> None:
        self.kill()
