"""The sandbox every engine program runs in: bubblewrap (``bwrap``), as Flatpak uses it.

An engine program is code from someone else, run on machines that hold keys (a worker's
``ARBITER_WORKER_KEY``, the coordinator's ``ARBITER_SECRET``). bubblewrap starts it:

- in new user, PID, mount, IPC, UTS, network (and, where the kernel has them, cgroup) namespaces,
  as user 65534 with no capabilities, further user namespaces disabled (``--disable-userns``) and
  the seccomp filter of :mod:`worker.referee.seccomp` (no ``setns``, ``mount``, ``ptrace``, ...):
  no way back into the worker's namespaces, no network but its own loopback, and only its own
  processes in a fresh ``/proc``;
- as the one child of bwrap's PID 1: when it ends, PID 1 ends, and when bwrap's outer process
  dies (``--die-with-parent``, which the referee's kill and the worker's death both reach), PID 1
  is killed; either way the kernel kills every process of the namespace, ``setsid`` or not (the
  program is not PID 1 itself, whose signals follow other rules: a ``raise(SIGSEGV)`` would be
  ignored);
- in a new session (``--new-session``), with an environment of its own (nothing of the worker's:
  bwrap itself is started with the program's environment, so it has nothing else to pass on);
- on a read-only view of the system (``/usr`` and its links, a few files of ``/etc`` that the
  dynamic linker reads), its own folder read-only (its working directory), the file its command
  names when that is the worker's own ``arbiter-engine``, the read-only paths the operator adds
  (``$ARBITER_SANDBOX_PATHS``, e.g. a JVM under /opt), a fresh ``/dev`` and ``/proc``, and one
  writable folder, ``/tmp``, a tmpfs of :data:`SCRATCH_BYTES` that is its ``HOME`` and ``TMPDIR``
  and vanishes with it. No ``$HOME``, ``/root``, ``/home``, ``/run``, ``/var``, ``/sys``, the
  host's ``/tmp`` or the store.

The referee's resource limits (memory, CPU, file size) and its fixed-address persona are set on
bwrap before it starts and are inherited by the program. Where bwrap or user namespaces are
missing, :func:`this_machine` says why, and a worker refuses programs unless its operator allows
unsandboxed ones (``$ARBITER_UNSANDBOXED_PROGRAMS``, for a fleet whose programs are its own).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from worker.referee.seccomp import SeccompUnavailable, filter_program

#: Extra read-only paths programs see, separated by ``:`` (absolute; missing ones are skipped).
SANDBOX_PATHS_ENV = "ARBITER_SANDBOX_PATHS"
#: Set to 1 to let a worker run programs without a sandbox where none can be made.
UNSANDBOXED_ENV = "ARBITER_UNSANDBOXED_PROGRAMS"
#: The program's writable folder (a tmpfs), its HOME and TMPDIR.
SCRATCH = "/tmp"
#: The scratch tmpfs's size (the file-size limit bounds each file below that).
SCRATCH_BYTES = 64 << 20
#: The program's user and group inside the sandbox (nobody).
SANDBOX_ID = 65534
#: The system as programs see it: folders bound read-only, or links made again as they are.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files of /etc shown, for the dynamic linker and clocks (the rest of /etc is hidden).
ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
)
#: A program's environment when its spec gives none.
BASE_ENVIRONMENT = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
#: Variables never passed to a program, whatever its spec says.
WITHHELD_PREFIX = "ARBITER_"
#: How long bwrap may take to set the sandbox up and say its program's process id.
START_TIMEOUT_S = 5.0
#: How often the sandbox's PID 1 is looked at until it has started the program.
_CHILD_POLL_S = 0.0005

_TRUE_VALUES = ("1", "true", "yes")


@dataclass(frozen=True)
class Sandbox:
    """How this machine sandboxes programs: ``bwrap``'s path and the seccomp filter, or why it
    cannot (``reason``)."""

    bwrap: str | None
    reason: str | None = None
    seccomp: bytes | None = None
    #: Why there is no seccomp filter (None when there is one).
    seccomp_reason: str | None = None

    @property
    def ready(self) -> bool:
        return self.bwrap is not None and self.reason is None


def unsandboxed_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the operator lets programs run without a sandbox (``$ARBITER_UNSANDBOXED_PROGRAMS``)."""
    value = (os.environ if environ is None else environ).get(UNSANDBOXED_ENV, "")
    return value.strip().lower() in _TRUE_VALUES


def refusal(box: Sandbox) -> str:
    """Why a program is refused on a machine without a sandbox: one line."""
    return (
        f"engine programs run only in a sandbox, and none can be made on this machine: {box.reason} "
        f"(install bubblewrap and allow user namespaces, see docs/deploy.md; or set "
        f"{UNSANDBOXED_ENV}=1 on a fleet whose programs are its own)"
    )


def program_environment(env: Mapping[str, str] | None) -> dict[str, str]:
    """The program's environment: its spec's (else a bare PATH and LANG), never an ``ARBITER_*``
    variable, with HOME and TMPDIR its scratch folder."""
    chosen = dict(BASE_ENVIRONMENT if env is None else env)
    kept = {k: v for k, v in chosen.items() if not k.upper().startswith(WITHHELD_PREFIX)}
    return {**kept, "HOME": SCRATCH, "TMPDIR": SCRATCH}


def extra_paths(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The operator's read-only paths (``$ARBITER_SANDBOX_PATHS``): absolute ones that exist."""
    text = (os.environ if environ is None else environ).get(SANDBOX_PATHS_ENV, "")
    return tuple(p for p in text.split(":") if p.startswith("/") and os.path.exists(p))


def _within(path: str, folders: Sequence[str]) -> bool:
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _workers_own(program: str) -> bool:
    """Whether ``program`` is one of the worker's own programs, installed beside its Python (the
    built-in engine run as ``arbiter-engine``): the one file of the machine a command may name."""
    return os.path.dirname(program) == os.path.dirname(sys.executable)


def outside_view(program: str, cwd: str | None, paths: Sequence[str] | None = None) -> str | None:
    """Why ``program`` (a command's first word, resolved: an absolute path) cannot run in the
    sandbox, as a one-line error; None when the sandbox shows it."""
    if not program.startswith("/"):
        return None
    real = os.path.realpath(program)
    shown = [
        *SYSTEM_PATHS,
        *(extra_paths() if paths is None else paths),
        *([os.path.abspath(cwd)] if cwd else []),
    ]
    if _within(program, shown) or _within(real, shown) or _workers_own(program):
        return None
    return (
        f"engine program {program!r} lies outside what the sandbox shows a program (its folder, /usr, "
        f"{SANDBOX_PATHS_ENV}): add its folder to {SANDBOX_PATHS_ENV}"
    )


def view_options(argv: Sequence[str], cwd: str | None, paths: Sequence[str]) -> list[str]:
    """bwrap's options for the program's view of the files: the system, ``paths``, its folder
    ``cwd`` (its working directory; else the scratch folder), and its command's file when that is
    the worker's own (:func:`_workers_own`); no other file of the machine, whatever a command
    names."""
    options = ["--size", str(SCRATCH_BYTES), "--tmpfs", SCRATCH, "--dev", "/dev", "--proc", "/proc"]
    shown: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
            shown.append(path)
    for path in ETC_PATHS:
        options += ["--ro-bind-try", path, path]
    for path in [*paths, *([cwd] if cwd else [])]:
        options += ["--ro-bind", path, path]
        shown.append(path)
    program = argv[0]
    if _workers_own(program) and not _within(program, shown):
        options += ["--ro-bind", program, program]
    # bwrap's root is a tmpfs of its own: read-only once everything is mounted on it.
    options += ["--remount-ro", "/", "--chdir", cwd or SCRATCH]
    return options


def bwrap_argv(
    box: Sandbox,
    argv: Sequence[str],
    cwd: str | None,
    *,
    info_fd: int,
    seccomp_fd: int | None,
    paths: Sequence[str] | None = None,
) -> list[str]:
    """The command that runs ``argv`` in the sandbox (bwrap's own options, then ``--``, argv)."""
    assert box.bwrap is not None
    cwd = os.path.abspath(cwd) if cwd else None
    options = [
        box.bwrap,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--uid",
        str(SANDBOX_ID),
        "--gid",
        str(SANDBOX_ID),
        "--hostname",
        "sandbox",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--info-fd",
        str(info_fd),
    ]
    if seccomp_fd is not None:
        options += ["--seccomp", str(seccomp_fd)]
    options += view_options(argv, cwd, extra_paths() if paths is None else paths)
    return [*options, "--", *argv]


class Launch(contextlib.AbstractContextManager["Launch"]):
    """The descriptors one sandboxed start passes to bwrap: the seccomp filter to read, and the
    pipe on which bwrap says the program's process id. Used as a context manager around Popen."""

    def __init__(self, box: Sandbox) -> None:
        self._info_read, self.info_fd = os.pipe()
        self.seccomp_fd: int | None = None
        if box.seccomp is not None:
            read, write = os.pipe()
            os.write(write, box.seccomp)  # a few hundred bytes: within a pipe's buffer
            os.close(write)
            self.seccomp_fd = read

    @property
    def passed(self) -> tuple[int, ...]:
        """The descriptors bwrap inherits."""
        return (self.info_fd,) if self.seccomp_fd is None else (self.info_fd, self.seccomp_fd)

    def started(self) -> None:
        """After Popen: this process's copies of bwrap's ends closed."""
        for fd in self.passed:
            os.close(fd)
        self.seccomp_fd = None
        self.info_fd = -1

    def program_pid(self, timeout_s: float = START_TIMEOUT_S) -> int | None:
        """The program's process id (in this process's PID namespace): the child of the
        sandbox's PID 1, whose id bwrap writes once the sandbox is made. None if bwrap or the
        program ended first, or nothing came within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        init = self._init_pid(deadline)
        if init is None:
            return None
        children = f"/proc/{init}/task/{init}/children"
        while time.monotonic() < deadline:
            try:
                with open(children) as f:
                    found = f.read().split()
            except OSError:
                return None  # PID 1 ended: the program did
            if found:
                return int(found[0])
            time.sleep(_CHILD_POLL_S)  # PID 1 forks the program at once
        return None

    def _init_pid(self, deadline: float) -> int | None:
        """The sandbox's PID 1, from bwrap's ``--info-fd`` JSON."""
        data = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._info_read], [], [], left)[0]:
                return None
            chunk = os.read(self._info_read, 4096)
            with contextlib.suppress(ValueError, KeyError, TypeError):
                return int(json.loads(data + chunk)["child-pid"])
            if not chunk:
                return None
            data += chunk

    def close(self) -> None:
        for fd in (self._info_read, self.info_fd, self.seccomp_fd):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._info_read = -1
        self.info_fd = -1
        self.seccomp_fd = None

    def __exit__(self, *exc: object) -> None:
        self.close()


def _seccomp() -> tuple[bytes | None, str | None]:
    try:
        return filter_program(), None
    except SeccompUnavailable as e:
        return None, str(e)


@functools.cache
def this_machine() -> Sandbox:
    """This machine's sandbox, found once: bwrap on the PATH, and a program (``true``) run in the
    full sandbox to show that it can be made here (user namespaces allowed)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Sandbox(None, "bubblewrap (bwrap) is not installed")
    seccomp, seccomp_reason = _seccomp()
    box = Sandbox(bwrap, None, seccomp, seccomp_reason)
    true = shutil.which("true", path=BASE_ENVIRONMENT["PATH"]) or "/usr/bin/true"
    with Launch(box) as launch:
        argv = bwrap_argv(box, [true], None, info_fd=launch.info_fd, seccomp_fd=launch.seccomp_fd, paths=())
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=program_environment(None),
                pass_fds=launch.passed,
                timeout=START_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as e:
            return Sandbox(bwrap, f"bwrap could not be run: {e}")
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        why = said[-1] if said else f"exit status {done.returncode}"
        return Sandbox(bwrap, f"bwrap cannot make the sandbox here ({why})")
    return box
