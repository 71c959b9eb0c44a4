"""Engine files for tests: arbiter-engine and the test engines (tests/engines) as programs, each in
a folder of its own, as an engine author would write them."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from worker.program_batch import builtin_program

ENGINES = Path(__file__).resolve().parent / "engines"


def arbiter_engine_file(folder: Path, name: str = "arbiter-engine", options: str = "") -> Path:
    """An engine file for a copy of arbiter-engine in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(builtin_program(), folder / "arbiter-engine")
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\ncommand = ["./arbiter-engine"]\n[options]\nHash = 16\n{options}')
    return path


def python_engine_file(folder: Path, script: str, args: list[str], name: str) -> Path:
    """An engine file for one of the Python test engines (run by this interpreter, which has the
    ``engine`` package the test engines search with), copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in ("plain_engine.py", "faulty_engine.py"):
        shutil.copy2(ENGINES / source, folder / source)
    words = ", ".join(f'"{w}"' for w in [sys.executable, script, *args])
    path = folder / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ncommand = [{words}]\nfiles = ["plain_engine.py", "faulty_engine.py"]\n'
    )
    return path
