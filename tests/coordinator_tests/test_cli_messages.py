"""The messages a user acts on: each says what to type or what went wrong, in words."""

from __future__ import annotations

import shlex

import pytest

from coordinator.cli.hints import resume_command


def test_resume_command_repeats_the_store_and_broker_the_environment_would_not_supply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARBITER_STORE", raising=False)
    monkeypatch.delenv("ARBITER_BROKER", raising=False)
    assert resume_command(3, "sqlite:///arbiter.db", "") == "arbiter resume 3"
    hint = resume_command(3, "sqlite:///int.db", "redis://:hunter2@host:6379/0")
    assert "hunter2" not in hint
    assert shlex.split(hint) == [
        "arbiter",
        "resume",
        "3",
        "--store",
        "sqlite:///int.db",
        "--broker",
        "redis://:***@host:6379/0",
    ]
    monkeypatch.setenv("ARBITER_STORE", "sqlite:///int.db")
    monkeypatch.setenv("ARBITER_BROKER", "redis://host:6379/0")
    assert resume_command(3, "sqlite:///int.db", "redis://host:6379/0") == "arbiter resume 3"
    assert resume_command(3, "sqlite:///arbiter.db", "") == "arbiter resume 3 --store sqlite:///arbiter.db"
