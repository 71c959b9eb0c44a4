"""An engine program as a child process, held on a short leash.

It is started from an argv list (never a shell) in its own session, under resource limits set in
the child before exec, and without network where this machine can make a network namespace. Its
stdout is read line by line against deadlines, with bounded lines and a bounded amount of output
per answer; its stdin is written with a bounded wait (an engine that stops reading cannot block the
referee); its stderr is kept as a small ring of the last lines, for reports. Killing it kills its
whole process group. Nothing an engine prints or does raises anything but an EngineFault.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType

from worker.referee.faults import EngineConfigError, EngineFault, crashed, hang, protocol_violation

#: A line of engine output longer than this is a protocol violation.
MAX_LINE_BYTES = 64 * 1024
#: More output than this while the referee waits for one answer is a flood (a protocol violation).
MAX_ANSWER_BYTES = 1024 * 1024
#: The last lines of stderr kept, and the characters kept of each.
STDERR_LINES = 20
STDERR_LINE_CHARS = 300
#: How long a process that closed its output is given to exit before it is described.
GONE_WAIT_S = 1.0
#: SIGTERM grace before SIGKILL, and the bound on reaping after SIGKILL.
KILL_GRACE_S = 0.2
REAP_TIMEOUT_S = 5.0

_READ_CHUNK = 64 * 1024
_PROBE_TIMEOUT_S = 5.0
_POLL_S = 0.01

#: ``log(direction, line)``: ``">"`` for a line sent to the engine, ``"<"`` for a line read.
Log = Callable[[str, str], None]


@dataclass(frozen=True)
class ResourceLimits:
    """Limits set in the engine's process before it starts (None: not set).

    ``processes`` (RLIMIT_NPROC) counts every process and thread of the engine's user, not of the
    engine, so it is only sensible when engines run under a user of their own; it is off by
    default. ``cpu_seconds`` bounds a runaway engine over its whole life (an engine lives for a
    batch, whose time Celery bounds at ``ARBITER_BATCH_SECONDS``, 30 minutes by default: twice
    that, for an engine's threads).
    """

    memory_bytes: int | None = 1 << 30
    cpu_seconds: int | None = 3600
    file_size_bytes: int | None = 0
    processes: int | None = None
    isolate_network: bool = True


@dataclass(frozen=True)
class NetworkIsolation:
    """How engines are kept off the network on this machine: ``how`` is ``"os.unshare"``, the
    ``unshare`` command line used, or ``"none"`` when no network namespace can be made."""

    how: str
    prefix: tuple[str, ...] = ()
    unshare_flags: int = 0

    @property
    def isolated(self) -> bool:
        return self.how != "none"


def _probe(argv: Sequence[str], preexec: Callable[[], None] | None = None) -> bool:
    """True if ``argv`` runs and exits 0 within the probe timeout."""
    try:
        done = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=preexec,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.cache
def network_isolation() -> NetworkIsolation:
    """The way this machine can start a process in a new network namespace (found once): with
    ``os.unshare`` in the child (Python 3.12+), else with util-linux's ``unshare`` command (as
    root, or mapping the user to root in a user namespace), else none."""
    unshare = getattr(os, "unshare", None)
    flag = getattr(os, "CLONE_NEWNET", 0)
    if unshare is not None and flag and _probe([sys.executable, "-c", ""], lambda: unshare(flag)):
        return NetworkIsolation("os.unshare", unshare_flags=flag)
    command = shutil.which("unshare")
    if command is not None:
        for options in (("--net",), ("--net", "--map-root-user")):
            prefix = (command, *options, "--")
            if _probe([*prefix, sys.executable, "-c", ""]):
                return NetworkIsolation("unshare " + " ".join(options), prefix)
    return NetworkIsolation("none")


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
    for which, value in wanted:
        if value is None:
            continue
        _, hard = resource.getrlimit(which)
        soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # Past the CPU soft limit the engine gets SIGXCPU; a second later SIGKILL.
        top = soft + 1 if which == resource.RLIMIT_CPU else soft
        if hard != resource.RLIM_INFINITY:
            top = min(top, hard)
        out.append((which, soft, top))
    return out


def _child_setup(rlimits: list[tuple[int, int, int]], unshare_flags: int) -> Callable[[], None]:
    """What the child runs between fork and exec: its limits, and its network namespace."""
    unshare = getattr(os, "unshare", None)

    def setup() -> None:
        for which, soft, hard in rlimits:
            resource.setrlimit(which, (soft, hard))
        if unshare_flags and unshare is not None:
            unshare(unshare_flags)

    return setup


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


def _clean(text: str) -> str:
    """One stderr line for a report: control characters removed, bounded length."""
    line = "".join(c for c in text.replace("\t", " ") if c.isprintable())
    return line[:STDERR_LINE_CHARS]


class EngineProcess:
    """A running engine program: lines in and out with deadlines, stderr kept, group killed.

    Deadlines are ``time.monotonic()`` values. Any failure of the engine (it exits, closes its
    output, floods, prints an over-long line, stops reading its input) raises EngineFault; the
    caller then calls :meth:`kill`.
    """

    def __init__(self, popen: subprocess.Popen[bytes], name: str, network: NetworkIsolation, log: Log | None):
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self._popen = popen
        self.name = name
        self.pid = popen.pid
        self.network = network
        self._log = log
        self._in = popen.stdin.fileno()
        self._outfd = popen.stdout.fileno()
        self._errfd = popen.stderr.fileno()
        for fd in (self._in, self._outfd, self._errfd):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._outfd, selectors.EVENT_READ, "out")
        self._selector.register(self._errfd, selectors.EVENT_READ, "err")
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(self.pid)
            self._selector.register(self._pidfd, selectors.EVENT_READ, "exit")
        except (AttributeError, OSError):
            self._pidfd = None
        self._out = bytearray()
        self._pos = 0
        self._answer_bytes = 0
        self._out_closed = False
        self._leader_gone = False
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._err_partial = ""
        self._reaped = False

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
        """Starts ``argv`` (no shell) in ``cwd`` with ``env`` (None: this process's) in a new
        session under ``limits``. EngineConfigError if the program cannot be started at all.

        The limits are set by subprocess's ``preexec_fn``, the standard library's only hook
        between fork and exec; like any preexec_fn it is unsafe in a process whose other threads
        may hold locks at the fork, so engines are started from the referee's one thread.
        """
        argv = [str(a) for a in argv]
        _resolve_program(argv, cwd, env)
        network = network_isolation() if limits.isolate_network else NetworkIsolation("none")
        setup = _child_setup(_rlimits(limits), network.unshare_flags)
        try:
            popen = subprocess.Popen(
                [*network.prefix, *argv],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=None if env is None else dict(env),
                start_new_session=True,
                preexec_fn=setup,
                bufsize=0,
            )
        except (OSError, subprocess.SubprocessError) as e:
            raise EngineConfigError(f"cannot start engine {argv[0]!r}: {e}") from None
        return cls(popen, name or os.path.basename(argv[0]), network, log)

    # -- reading and writing -------------------------------------------------------------------

    @property
    def buffered_bytes(self) -> int:
        """Output read from the engine and not yet taken as lines (bounded by the line limit
        and one read)."""
        return len(self._out) - self._pos

    def begin_answer(self) -> None:
        """Starts counting output afresh: the flood bound applies to each answer waited for."""
        self._answer_bytes = 0

    def read_line(self, deadline: float) -> str | None:
        """The next line of output (without its line end), or None if ``deadline`` passes first."""
        while True:
            end = self._out.find(b"\n", self._pos)
            if end >= 0:
                if end - self._pos > MAX_LINE_BYTES:
                    raise protocol_violation(f"a line longer than {MAX_LINE_BYTES} bytes")
                raw = bytes(self._out[self._pos : end])
                self._pos = end + 1
                line = raw.removesuffix(b"\r").decode("utf-8", "replace")
                if self._log is not None:
                    self._log("<", line)
                return line
            if self._out_closed:
                raise self._gone()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._pump(left)

    def send(self, line: str, timeout_s: float) -> None:
        """Writes ``line`` and a line end; a fault if the engine is gone, or has not taken it
        within ``timeout_s`` (it stopped reading its input: a hang)."""
        self.send_lines((line,), timeout_s)

    def send_lines(self, lines: Sequence[str], timeout_s: float) -> None:
        """Writes ``lines``, each with a line end, in one write where the pipe takes them (a
        wake-up of the engine less per line), as :meth:`send` writes one."""
        if not lines:
            return
        if self._log is not None:
            for line in lines:
                self._log(">", line)
        data = memoryview("".join(line + "\n" for line in lines).encode())
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                data = data[os.write(self._in, data) :]
            except BlockingIOError:
                pass
            except OSError:
                raise self._gone() from None
            if not data:
                return
            left = deadline - time.monotonic()
            if left <= 0:
                raise hang()
            self._pump(left, want_write=True)

    def _pump(self, timeout: float, want_write: bool = False) -> None:
        """Waits up to ``timeout`` for output (kept), stderr (kept in the ring), the engine's
        exit, or room in its input (with ``want_write``), and takes what came."""
        if want_write:
            self._selector.register(self._in, selectors.EVENT_WRITE, "in")
        try:
            events = self._selector.select(max(0.0, timeout))
        finally:
            if want_write:
                self._selector.unregister(self._in)
        for key, _ in events:
            if key.data == "out":
                self._read_out()
            elif key.data == "err":
                self._read_err()
            elif key.data == "exit":
                self._leader_exited()

    def _forget(self, fd: int) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(fd)

    def _read_out(self) -> bool:
        """Reads one chunk of output; False when there was nothing to read (or it ended)."""
        try:
            chunk = os.read(self._outfd, _READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            self._out_closed = True
            self._forget(self._outfd)
            return False
        if self._pos:
            del self._out[: self._pos]
            self._pos = 0
        self._out += chunk
        self._answer_bytes += len(chunk)
        if self._answer_bytes > MAX_ANSWER_BYTES:
            raise protocol_violation(f"more than {MAX_ANSWER_BYTES} bytes of output for one answer")
        if len(self._out) - (self._out.rfind(b"\n") + 1) > MAX_LINE_BYTES:
            raise protocol_violation(f"a line longer than {MAX_LINE_BYTES} bytes")
        return True

    def _read_err(self) -> None:
        try:
            chunk = os.read(self._errfd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._forget(self._errfd)
            if self._err_partial:
                self._stderr.append(_clean(self._err_partial))
                self._err_partial = ""
            return
        *lines, rest = chunk.decode("utf-8", "replace").split("\n")
        for piece in lines:
            line = _clean(self._err_partial + piece)
            self._err_partial = ""
            if line.strip():
                self._stderr.append(line)
        self._err_partial = (self._err_partial + rest)[: STDERR_LINE_CHARS + 1]

    def _leader_exited(self) -> None:
        """The engine's process ended: its output is what it wrote until then (a child of it
        that keeps the pipe open must not keep the referee waiting)."""
        if self._pidfd is not None:
            self._forget(self._pidfd)
        self._leader_gone = True
        for _ in range(MAX_ANSWER_BYTES // _READ_CHUNK + 1):
            if not self._read_out():
                break
        for _ in range(STDERR_LINES):
            self._read_err()
        self._out_closed = True
        self._forget(self._outfd)

    # -- the end of the process ----------------------------------------------------------------

    def exit_how(self) -> str | None:
        """``"signal 11"`` or ``"exit status 1"`` once the engine's process has ended, else
        None (the process is not reaped by asking)."""
        if self._reaped:
            code = self._popen.returncode
            return f"signal {-code}" if code < 0 else f"exit status {code}"
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None or info.si_pid == 0:
            return None
        if info.si_code == os.CLD_EXITED:
            return f"exit status {info.si_status}"
        return f"signal {info.si_status}"

    def wait_exit(self, timeout_s: float) -> bool:
        """True if the engine's process ends within ``timeout_s``. Its output is read and dropped
        meanwhile, so that a full pipe cannot hold it up."""
        deadline = time.monotonic() + timeout_s
        while self.exit_how() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                self._pump(min(left, _POLL_S) if self._pidfd is None else left)
            except EngineFault:
                pass  # a flood or an over-long line: it is being waited for, not listened to
            finally:
                self._out.clear()
                self._pos = 0
                self.begin_answer()
        return True

    def _gone(self) -> EngineFault:
        """The fault of an engine whose output ended or whose input broke: how it exited."""
        self.wait_exit(GONE_WAIT_S)
        how = self.exit_how()
        return crashed(how) if how is not None else protocol_violation("closed its input or output")

    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote to stderr (control characters removed, bounded)."""
        lines = list(self._stderr)
        if self._err_partial.strip():
            lines.append(_clean(self._err_partial))
        return lines[-STDERR_LINES:]

    @property
    def killed(self) -> bool:
        """True once :meth:`kill` has reaped the process."""
        return self._reaped

    def kill(self, grace_s: float = KILL_GRACE_S) -> None:
        """Ends the engine and its whole process group: SIGTERM, up to ``grace_s`` to exit, then
        SIGKILL to the group, and the process reaped (bounded). Safe to call more than once."""
        if self._reaped:
            return
        if self.exit_how() is None:
            self._signal_group(signal.SIGTERM)
            self.wait_exit(grace_s)
        # The leader is a zombie or alive here: its id still names the group, nobody else's.
        self._signal_group(signal.SIGKILL)
        try:
            self._popen.wait(REAP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return
        self._reaped = True
        self._selector.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
            if stream is not None:
                stream.close()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.kill()
