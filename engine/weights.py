"""Evaluation weights as users give them: a dict of named numbers or a JSON file of one.

The engine's weight table is the single source of names, defaults and ranges; this module only
reads files and hands dicts to the engine, which validates them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from engine import _engine

WeightsSource = Mapping[str, float] | str | Path | None


def read_weights_file(path: str | Path) -> dict[str, float]:
    """The JSON object in `path`; errors name the file and what was expected."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"cannot read weights file {str(path)!r}: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"weights file {str(path)!r} is not JSON (line {e.lineno}, column {e.colno}): "
            'expected an object like {"pawn": 100}'
        ) from None
    except RecursionError:  # nested deeper than Python's parser recurses
        raise ValueError(
            f'weights file {str(path)!r} is nested too deeply: expected an object like {{"pawn": 100}}'
        ) from None
    if not isinstance(data, dict):
        raise ValueError(f'weights file {str(path)!r} must hold a JSON object like {{"pawn": 100}}')
    return data


def resolve_weights(game: str, source: WeightsSource) -> dict[str, int]:
    """The full weight dict of `game` from a dict, a JSON file path or None (all defaults).

    Unknown names and out-of-range values raise ValueError naming them (and the file, if any).
    """
    if source is None:
        return dict(_engine.validate_weights(game, None))
    if isinstance(source, str | Path):
        try:
            return dict(_engine.validate_weights(game, read_weights_file(source)))
        except ValueError as e:
            if str(e).startswith(("weights file", "cannot read")):
                raise
            raise ValueError(f"weights file {str(source)!r}: {e}") from None
    return dict(_engine.validate_weights(game, dict(source)))
