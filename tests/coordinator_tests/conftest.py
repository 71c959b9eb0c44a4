"""Shared fixtures: where the project's shared reference data lives."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

SPRT_VECTORS_NAME = "sprt-vectors.json"


def shared_dir() -> Path:
    """The project's ``shared`` folder: ``$ARBITER_SHARED`` or ``<repo>/../shared``."""
    override = os.environ.get("ARBITER_SHARED")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2].parent / "shared"


def load_sprt_vectors() -> dict[str, Any]:
    """The fishtest reference vectors (``shared/reference/sprt-vectors.json``)."""
    path = shared_dir() / "reference" / SPRT_VECTORS_NAME
    if not path.is_file():
        raise FileNotFoundError(
            f"SPRT reference vectors not found at {path}; set ARBITER_SHARED to the shared folder"
        )
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def sprt_vectors() -> dict[str, Any]:
    """The whole reference file (about, conventions, vectors)."""
    return load_sprt_vectors()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize any test taking ``sprt_vector`` over every reference vector, by id."""
    if "sprt_vector" in metafunc.fixturenames:
        vectors = load_sprt_vectors()["vectors"]
        metafunc.parametrize("sprt_vector", vectors, ids=[v["id"] for v in vectors])
