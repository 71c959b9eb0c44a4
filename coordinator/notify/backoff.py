"""When a failed webhook delivery is tried again (pure: no clock, no I/O).

Connection errors, timeouts, 5xx and 429 (too many requests) are worth another attempt; any other
answer is the receiver's final word (a 404 for a deleted webhook will not heal). Attempts wait
``base * 2**(n-1)`` seconds after the n-th failure, capped, unless the receiver said how long with
``Retry-After`` (seconds or an HTTP date), which is honoured up to the same cap.
"""

from __future__ import annotations

from datetime import datetime
from email.utils import parsedate_to_datetime

#: Too many requests: the one 4xx answer that is retried.
TOO_MANY_REQUESTS = 429


def retryable(status: int | None) -> bool:
    """True if a delivery that got HTTP ``status`` (None: no answer at all) may succeed later."""
    return status is None or status == TOO_MANY_REQUESTS or 500 <= status <= 599


def backoff_delay(failures: int, base: float, cap: float) -> float:
    """Seconds to wait after the ``failures``-th failed attempt (1 for the first): doubling from
    ``base``, at most ``cap``."""
    return min(cap, base * 2.0 ** min(failures - 1, 64))


def retry_after(value: str | None, now: datetime) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (0 for a date already past), or None when
    there is no such header or it does not parse."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():  # not "²", a digit float() refuses
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


def next_delay(failures: int, base: float, cap: float, asked: float | None) -> float:
    """Seconds before the next attempt: what the receiver ``asked`` (Retry-After) if it did, else
    the backoff; never more than ``cap``."""
    return min(cap, asked) if asked is not None else backoff_delay(failures, base, cap)
