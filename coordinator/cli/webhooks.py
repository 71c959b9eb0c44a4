"""The ``--webhook URL`` option of the commands that set notifications (``arbiter server`` for the
operator's webhooks; ``arbiter sprt|tune|tournament --server`` for a run's own): each URL checked
as it is read, a bad one a usage error that shows it masked (coordinator.notify)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from coordinator.notify.urls import check_webhook

F = TypeVar("F", bound=Callable[..., Any])


class WebhookType(click.ParamType[str, Any]):
    """A webhook URL: http or https, with a host and no whitespace."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return check_webhook(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


def webhook_option(help: str) -> Callable[[F], F]:
    """``--webhook URL``, any number of times, as the parameter ``webhooks`` (a tuple of URLs)."""
    return click.option("--webhook", "webhooks", type=WebhookType(), multiple=True, metavar="URL", help=help)
