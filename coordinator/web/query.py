"""Query parameters of the dashboard's pages, checked: anything unknown, repeated or out of range is
a 400 answer naming the parameter and what it expects, never a guess or a traceback."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException

#: Longest value any text parameter may have.
MAX_TEXT = 255
#: Most digits a whole number from a request may have (every number the store holds fits).
MAX_DIGITS = 18


def whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is ASCII digits only, at most :data:`MAX_DIGITS` of them;
    else None. (``str.isdigit`` alone also takes "²" and other digits that ``int`` refuses, and
    ``int`` refuses more than 4,300 digits: both were tracebacks.)"""
    if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS:
        return int(text)
    return None


class NumberConvertor(Convertor[int]):
    """A path's ``{name:number}``: a whole number of at most :data:`MAX_DIGITS` digits. Starlette's
    ``int`` matched any length and converted while routing: a run number of 5,000 digits was a 500
    (``int`` refuses more than 4,300 digits); longer than this, a path matches no route (a 404)."""

    regex = f"[0-9]{{1,{MAX_DIGITS}}}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("number", NumberConvertor())


def bad_request(message: str) -> HTTPException:
    """A 400 answer with ``message``."""
    return HTTPException(400, message)


class Query:
    """The query of one request, limited to the parameters ``allowed``."""

    def __init__(self, params: QueryParams, allowed: Iterable[str]) -> None:
        """Refuse parameters not ``allowed`` and parameters given twice."""
        self.allowed = tuple(allowed)
        for name in params:
            if name not in self.allowed:
                expected = ", ".join(self.allowed) if self.allowed else "none"
                raise bad_request(f"unknown query parameter {name!r} (expected: {expected})")
            if len(params.getlist(name)) > 1:
                raise bad_request(f"query parameter {name!r} given more than once")
        self.params = params

    def text(self, name: str) -> str | None:
        """A text value, or None when absent or empty."""
        value = self.params.get(name)
        if not value:
            return None
        if len(value) > MAX_TEXT:
            raise bad_request(f"{name}: expected at most {MAX_TEXT} characters")
        return value

    def choice(self, name: str, choices: Sequence[str]) -> str | None:
        """One of ``choices``, or None when absent or empty."""
        value = self.text(name)
        if value is not None and value not in choices:
            raise bad_request(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
        return value

    def integer(self, name: str, low: int, high: int) -> int | None:
        """A whole number in ``low .. high``, or None when absent or empty."""
        value = self.text(name)
        if value is None:
            return None
        number = whole_number(value)
        if number is None:
            raise bad_request(f"{name}: expected a whole number, got {value!r}")
        if not low <= number <= high:
            raise bad_request(f"{name}: expected a number from {low} to {high}, got {number}")
        return number

    def flag(self, name: str) -> bool:
        """``1`` or ``0`` (absent: 0)."""
        return self.choice(name, ("0", "1")) == "1"
