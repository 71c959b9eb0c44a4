"""A submitted configuration's values checked against its dataclass's annotations.

A configuration's ``from_json`` trusts the CLI that wrote it: it builds the dataclass from whatever
JSON it is given. A submission comes from anyone, so before it is stored each field must hold what
its annotation says (a game the engine plays, whole numbers a store's integer holds, finite floats,
strings without NUL), else the run is stored and every page that shows it fails.
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Any, Union, get_args, get_origin, get_type_hints

import engine

#: The largest whole number a store's integer column (and the core's i64) holds.
MAX_INTEGER = 2**63 - 1


class WrongType(ValueError):
    """A value that is not what its field's annotation says: ``where`` and what was expected."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def check_fields(value: Any, where: str) -> None:
    """Every field of dataclass instance ``value`` holds what its annotation says (recursively);
    a WrongType naming the first that does not (``where.field``)."""
    hints = get_type_hints(type(value))
    for f in fields(value):
        item = getattr(value, f.name)
        check_value(item, hints[f.name], f"{where}.{f.name}")
        if f.name == "game" and item not in engine.GAMES:
            raise WrongType(f"{where}.game", f"expected one of {', '.join(engine.GAMES)}, got {item!r:.60}")


def check_value(value: Any, hint: Any, where: str) -> None:
    """``value`` is of type ``hint``; a WrongType otherwise."""
    if not conforms(value, hint, where):
        raise WrongType(where, f"expected {describe(hint)}, got {value!r:.60}")


def conforms(value: Any, hint: Any, where: str) -> bool:
    """Whether ``value`` is of type ``hint`` (a container's items are checked with check_value, so
    that the error names the item)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(conforms(value, arg, where) for arg in args)
    if origin in (list, tuple):
        if not isinstance(value, list | tuple):
            return False
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(value) != len(args):
                return False
            for index, (item, arg) in enumerate(zip(value, args, strict=True)):
                check_value(item, arg, f"{where}[{index}]")
            return True
        for index, item in enumerate(value):
            check_value(item, args[0] if args else Any, f"{where}[{index}]")
        return True
    if origin in (dict, Mapping):
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            return False
        for key, item in value.items():
            check_value(item, args[1] if args else Any, f"{where}.{key}")
        return True
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool) and -MAX_INTEGER <= value <= MAX_INTEGER
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str) and "\x00" not in value
    if not isinstance(value, origin or hint):
        return False
    if is_dataclass(value):
        check_fields(value, where)
    return True


def describe(hint: Any) -> str:
    """How an error names the type ``hint``."""
    names = {
        int: "a whole number",
        float: "a finite number",
        str: "a string without NUL",
        bool: "true or false",
    }
    if hint in names:
        return names[hint]
    if hint is type(None):
        return "null"
    if get_origin(hint) in (Union, types.UnionType):
        return " or ".join(describe(arg) for arg in get_args(hint))
    return str(hint) if get_origin(hint) else getattr(hint, "__name__", str(hint))
