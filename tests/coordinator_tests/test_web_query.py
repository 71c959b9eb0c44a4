"""Whole numbers read from requests (query values, form fields, headers): ASCII digits only, a
bounded number of them, else refused, never a traceback."""

from __future__ import annotations

import pytest
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException

from coordinator.web.query import MAX_DIGITS, Query, whole_number


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("42", 42), ("007", 7), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS))],
)
def test_ascii_digits_are_a_whole_number(text: str, number: int) -> None:
    assert whole_number(text) == number


#: Digits that are not ASCII: superscript two, Arabic-Indic one two, fullwidth one two.
OTHER_DIGITS = ["\u00b2", "\u0661\u0662", "\uff11\uff12"]


@pytest.mark.parametrize(
    "text", ["", "-1", "+1", " 1", "1.0", *OTHER_DIGITS, "9" * (MAX_DIGITS + 1), "9" * 5000]
)
def test_anything_else_is_none(text: str) -> None:
    assert whole_number(text) is None


@pytest.mark.parametrize("value", [*OTHER_DIGITS, "9" * 200])
def test_a_query_integer_refuses_other_digits_with_a_400(value: str) -> None:
    with pytest.raises(HTTPException) as info:
        Query(QueryParams({"page": value}), ["page"]).integer("page", 1, 10**6)
    assert info.value.status_code == 400 and "page: expected a whole number" in str(info.value.detail)
