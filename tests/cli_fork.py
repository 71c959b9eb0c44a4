"""``arbiter`` commands run in processes forked from a server that has already imported arbiter.

A command started as its own interpreter spends about 0.5 s of CPU importing SQLAlchemy, click,
Optuna, matplotlib and arbiter before it does anything; the suite runs some hundreds. Here the
standard library's fork server (``multiprocessing``, start method ``forkserver``) imports them
once per pytest process, and each command runs in a fresh process forked from it: its own pid,
working directory, environment, stdout and stderr (files), and exit status, as
``coordinator.cli.main`` gives it. Only what the modules do when imported is shared, and none of
them reads the environment then (see ``wire.celeryconfig``: settings are read when asked for).

Not a test module. Tests that send signals to a command or read its output as it runs start it
with ``sprt_testkit.cli_command`` instead; so do the tests of the entry point itself.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: What the server imports once (never ``worker.celery_app``: its app reads the environment).
PRELOAD = [
    "click",
    "sqlalchemy",
    "coordinator.cli.main",
    "coordinator.store",
    "coordinator.sprt.runner",
    "coordinator.sprt.report",
    "coordinator.reports.plots",
    "coordinator.tuning.tuner",
    "worker.games",
]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(PRELOAD)


def _command(args: list[str], cwd: str | None, env: dict[str, str], out: str, err: str) -> None:
    """The forked process: ``arbiter ARGS`` with this working directory, environment and output
    files; its exit status is the command's."""
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY)
        os.dup2(target, fd)
        os.close(target)
    if cwd is not None:
        os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["arbiter", *args]
    from coordinator.cli.main import main

    main()


def run(
    args: list[str], cwd: Path | None, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``arbiter ARGS`` to completion, as ``subprocess.run(..., capture_output=True, text=True,
    timeout=timeout)`` would give it (TimeoutExpired after ``timeout`` seconds, the process
    killed)."""
    with tempfile.TemporaryDirectory(prefix="arbiter-cli-") as folder:
        out, err = Path(folder, "stdout"), Path(folder, "stderr")
        out.touch()
        err.touch()
        process = _context.Process(
            target=_command, args=(args, None if cwd is None else str(cwd), env, str(out), str(err))
        )
        process.start()
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired(["arbiter", *args], timeout, out.read_bytes(), err.read_bytes())
        code = process.exitcode
        process.close()
        return subprocess.CompletedProcess(["arbiter", *args], code, out.read_text(), err.read_text())
