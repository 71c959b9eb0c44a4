"""What the server says when a run it played ends: a log line, and the webhooks of the operator and
of the run's submitter (``coordinator.notify``)."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from coordinator.notify.delivery import Deliverer
from coordinator.notify.message import RunEnd
from coordinator.notify.notifier import Notifier, operator_webhooks
from coordinator.notify.urls import check_webhook
from coordinator.registry import kind_of
from coordinator.server.supervisor import Ended

log = logging.getLogger("arbiter.server")


class Notices:
    """Announces ended runs (callable as the supervisor's ``on_end``)."""

    def __init__(self, notifier: Notifier, deliverer: Deliverer, page_root: str | None = None) -> None:
        self.notifier = notifier
        self.deliverer = deliverer
        self.page_root = page_root

    def __call__(self, ended: Ended) -> None:
        run = ended.run
        headline = ended.headline
        log.info("run %d %s: %s", run.id, run.state, headline)
        end = RunEnd(
            run_id=run.id,
            kind=str(run.kind),
            noun=kind_of(run.kind).noun,
            state=str(run.state),
            headline=headline,
            game=run.game,
            owner=ended.service.owner if ended.service else None,
            page_url=f"{self.page_root}/runs/{run.id}" if self.page_root else None,
        )
        self.notifier.run_ended(end, ended.service.webhooks if ended.service else ())

    def close(self) -> None:
        """Wait a little for deliveries under way."""
        self.deliverer.close(timeout=5.0)


def notifier_of(urls: Sequence[str], page_root: str | None = None) -> Notices:
    """The notices of a server with the operator's webhooks ``urls`` and ``$ARBITER_WEBHOOKS``
    (a ValueError naming a bad URL)."""
    checked = [check_webhook(u) for u in urls] + operator_webhooks(os.environ)
    deliverer = Deliverer()
    return Notices(Notifier(checked, deliverer), deliverer, page_root)
