"""A command refuses a bad flag before it loads the store's and the tuners' libraries (SQLAlchemy,
Optuna, Celery): a typo answers at once, and the suite's hundreds of bad-input cases stay cheap."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("sqlalchemy", "optuna", "celery")
PROBE = """
import sys
from coordinator.cli.main import main
try:
    main({args!r})
except SystemExit as e:
    print(e.code, [m for m in {heavy!r} if m in sys.modules])
"""


@pytest.mark.parametrize("command", ["sprt", "tune", "tournament"])
def test_a_bad_flag_is_refused_before_the_heavy_imports(command: str) -> None:
    probe = PROBE.format(args=[command, "congo", "--nodes", "x"], heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["2", "[]"], (done.stdout, done.stderr)
    assert done.stderr.startswith(f"arbiter {command}: --nodes:"), done.stderr
