"""Where a worker keeps its programs and builds (worker/caches.py): the folder its variable names,
else arbiter's folder in the user's cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from worker.builds import BUILD_CACHE_ENV, default_build_root
from worker.programs import CACHE_ENV, default_cache_root


def test_each_cache_is_where_its_variable_says_else_in_the_users_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "programs"))
    monkeypatch.setenv(BUILD_CACHE_ENV, "")  # empty: as if unset
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_root() == tmp_path / "programs"
    assert default_build_root() == tmp_path / "xdg" / "arbiter" / "builds"
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_root() == tmp_path / "home" / ".cache" / "arbiter" / "programs"
