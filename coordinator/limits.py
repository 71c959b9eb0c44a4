"""The search limit of a command: at most one of --depth, --nodes, --movetime."""

from __future__ import annotations

import click


def search_limits(
    nodes: int | None, depth: int | None, movetime: int | None, default: dict[str, int]
) -> dict[str, int]:
    """The one limit given, as the engine takes it, or ``default`` when none is given."""
    given = {
        name: value
        for name, value in (("nodes", nodes), ("depth", depth), ("movetime_ms", movetime))
        if value is not None
    }
    if len(given) > 1:
        raise click.UsageError("give at most one of --nodes, --depth and --movetime")
    return given or dict(default)
