"""The rules of the house (docs/architecture.md), held against the code's own imports as
scripts/house.py reads them: no circle of rooms, the wire imports only the engine, a worker no
coordinator code, and the coordinator runs worker code in its own process only where the
architecture says it does."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "house.py"
#: The coordinator's modules that import ``worker`` (docs/architecture.md, "The wire is a package
#: of its own", says why each does).
RUNS_WORKER_CODE = {
    "coordinator.cli.options",
    "coordinator.cli.worker",
    "coordinator.executors.local",
    "coordinator.executors.select",
    "coordinator.sides.check",
    "coordinator.sides.options",
    "coordinator.sides.probe",
    "coordinator.sides.refs",
}


@pytest.fixture(scope="module")
def house() -> ModuleType:
    spec = importlib.util.spec_from_file_location("house", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["house"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def found(house: ModuleType) -> list[Any]:
    """Every import of the project, read once."""
    imports: list[Any] = house.imports()
    return imports


def test_relative_and_lazy_imports_are_read(house: ModuleType, tmp_path: Path) -> None:
    (tmp_path / "coordinator" / "sprt").mkdir(parents=True)
    (tmp_path / "worker").mkdir()
    (tmp_path / "wire").mkdir()
    (tmp_path / "engine").mkdir()
    (tmp_path / "coordinator" / "__init__.py").write_text("")
    (tmp_path / "coordinator" / "sprt" / "__init__.py").write_text("from .runner import x\n")
    (tmp_path / "coordinator" / "sprt" / "runner.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import worker\n"
        "def f():\n    from wire import protocol\n"
    )
    (tmp_path / "wire" / "__init__.py").write_text("")
    (tmp_path / "wire" / "protocol.py").write_text("import engine\n")
    (tmp_path / "worker" / "__init__.py").write_text("")
    (tmp_path / "engine" / "__init__.py").write_text("")
    found = {(i.importer, i.imported, i.lazy) for i in house.imports(tmp_path)}
    assert found == {
        ("coordinator.sprt", "coordinator.sprt.runner", False),
        ("coordinator.sprt.runner", "wire.protocol", True),
        ("wire.protocol", "engine", False),
    }
    assert house.circles({("a", "b"): [], ("b", "c"): [], ("c", "a"): [], ("c", "d"): []}) == [
        ["a", "b", "c"]
    ]


def test_no_circle_of_rooms(house: ModuleType, found: list[Any]) -> None:
    assert house.circles(house.room_arrows(found)) == []
    # the imports left out on purpose are there, each inside a function
    up = [i for i in found if (i.importer, i.imported) in house.UPWARD]
    assert {(i.importer, i.imported) for i in up} == house.UPWARD and all(i.lazy for i in up)


def test_the_wire_imports_only_the_engine_and_the_engine_nothing(house: ModuleType, found: list[Any]) -> None:
    assert {house.room(i.imported) for i in found if house.room(i.importer) == "wire"} <= {"wire", "engine"}
    assert {house.room(i.imported) for i in found if house.room(i.importer) == "engine"} == {"engine"}


def test_workers_import_no_coordinator_code_and_the_coordinator_worker_code_only_where_it_runs_it(
    house: ModuleType, found: list[Any]
) -> None:
    assert not [
        i for i in found if house.room(i.importer) == "worker" and i.imported.startswith("coordinator")
    ]
    importers = {
        i.importer
        for i in found
        if i.importer.startswith("coordinator") and house.room(i.imported) == "worker"
    }
    assert importers == RUNS_WORKER_CODE
