"""Engine files for tests: arbiter-engine and the test engines (tests/engines) as programs, each in
a folder of its own, as an engine author would write them."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from worker.program_batch import builtin_program

ENGINES = Path(__file__).resolve().parent / "engines"
#: The checkout the tests run from.
REPO = ENGINES.parents[1]
#: The test engines' files, copied into every Python engine's folder.
ENGINE_FILES = ("plain_engine.py", "faulty_engine.py", "hostile_engine.py", "reach.py")
#: Where each file comes from: the test engines' folder, and the hostile engine's attempts.
SOURCES = {name: ENGINES / name for name in ENGINE_FILES} | {"reach.py": REPO / "worker" / "reach.py"}


def arbiter_engine_file(folder: Path, name: str = "arbiter-engine", options: str = "") -> Path:
    """An engine file for a copy of arbiter-engine in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(builtin_program(), folder / "arbiter-engine")
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\ncommand = ["./arbiter-engine"]\n[options]\nHash = 16\n{options}')
    return path


def python_engine_file(folder: Path, script: str, args: list[str], name: str) -> Path:
    """An engine file for one of the Python test engines (run by this interpreter, with this
    checkout's ``engine`` package, which the test engines search with), copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in ENGINE_FILES:
        shutil.copy2(SOURCES[source], folder / source)
    # The program's environment is its own (the sandbox's): env(1) gives it this checkout's
    # ``engine`` package, which the virtual environment may not point to.
    command = ["/usr/bin/env", f"PYTHONPATH={REPO}", sys.executable, script, *args]
    words = ", ".join(json.dumps(w) for w in command)
    files = ", ".join(f'"{f}"' for f in ENGINE_FILES)
    path = folder / f"{name}.toml"
    path.write_text(f'name = "{name}"\ncommand = [{words}]\nfiles = [{files}]\n')
    return path
