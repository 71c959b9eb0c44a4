"""Who hears that a run ended: the operator's webhooks (``ARBITER_WEBHOOKS`` or ``arbiter server
--webhook``) and the run's own (its submitter's ``--webhook``), each posted to once."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from coordinator.notify.message import RunEnd, message_for
from coordinator.notify.urls import check_webhook

#: The environment variable with the operator's webhooks, separated by commas or whitespace.
WEBHOOKS_VARIABLE = "ARBITER_WEBHOOKS"
_SEPARATORS = re.compile(r"[\s,]+")


class Sender(Protocol):
    """What the notifier posts through (``coordinator.notify.delivery.Deliverer``)."""

    def send(self, url: str, body: Mapping[str, Any]) -> None: ...


def checked_webhooks(urls: Iterable[str]) -> list[str]:
    """``urls`` in order without repeats, each checked (a ValueError naming the first bad one)."""
    return list(dict.fromkeys(check_webhook(url) for url in urls))


def operator_webhooks(environ: Mapping[str, str]) -> list[str]:
    """The operator's webhooks from :data:`WEBHOOKS_VARIABLE` of ``environ`` (none if unset); a
    ValueError names the variable and the first bad URL (masked)."""
    text = environ.get(WEBHOOKS_VARIABLE, "")
    try:
        return checked_webhooks(url for url in _SEPARATORS.split(text) if url)
    except ValueError as error:
        raise ValueError(f"{WEBHOOKS_VARIABLE}: {error}") from None


class Notifier:
    """Posts each run's end to the operator's webhooks and to the run's own."""

    def __init__(self, operator_urls: Sequence[str], deliverer: Sender) -> None:
        """``operator_urls`` are checked here (a ValueError names a bad one)."""
        self._operator_urls = checked_webhooks(operator_urls)
        self._deliverer = deliverer

    def run_ended(self, end: RunEnd, run_urls: Sequence[str]) -> None:
        """Queue the message for ``end`` to every operator webhook and every one of ``run_urls``,
        each URL once. Returns at once and never raises: a bad run URL (checked at submission,
        so only from an altered store) is logged by the deliverer and skipped."""
        body = message_for(end)
        for url in dict.fromkeys([*self._operator_urls, *run_urls]):
            self._deliverer.send(url, body)
