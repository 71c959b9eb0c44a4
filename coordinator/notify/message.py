"""The body posted to webhooks when a run ends: one JSON object that Discord and Slack both show.

Discord's "execute webhook" reads ``content`` (at most 2,000 characters), Slack's incoming webhooks
read ``text``; each ignores the other's key. Both carry the same short plain text, so that neither
needs a format of its own. ``allowed_mentions`` (Discord) turns off every ping, and the angle
brackets that Slack reads as mentions or links (``<!channel>``) are replaced in what users typed.
The ``arbiter`` object carries every field of :class:`RunEnd` for other consumers.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from coordinator.escape import terminal

#: The states a run can end in, as the message names them.
END_STATES = ("finished", "failed", "stopped")
#: Discord refuses a ``content`` longer than this.
MAX_TEXT = 2000
#: The most characters each part of the text shows (the sum, with line breaks, is below MAX_TEXT).
SHOWN = {"noun": 40, "game": 40, "owner": 80, "headline": 1000, "page_url": 600}
#: Angle brackets as single angle quotation marks, which look alike and mean nothing to Slack.
_NO_ANGLES = str.maketrans({"<": "\u2039", ">": "\u203a"})
#: What ``arbiter.event`` says, for consumers that get other events later.
EVENT = "run_ended"


@dataclass(frozen=True)
class RunEnd:
    """How a run ended, as the server tells it."""

    run_id: int
    #: The run's kind (``sprt``, ``tune``, ``tournament``...).
    kind: str
    #: What people call the kind ("SPRT", "tuning run").
    noun: str
    #: ``finished``, ``failed`` or ``stopped``.
    state: str
    #: One line: the result ("H1 accepted: Elo +12.3 ± 4.1 after 5,120 games") or why it failed.
    headline: str
    game: str
    owner: str | None = None
    #: The run's page on the server's dashboard, if it has a public address.
    page_url: str | None = None

    def __post_init__(self) -> None:
        if self.state not in END_STATES:
            raise ValueError(f"run end state {self.state!r}: expected one of {', '.join(END_STATES)}")


def _plain(end: RunEnd, field: str) -> str:
    """A field of ``end`` on one line, at most its :data:`SHOWN` length, without the angle brackets
    that Slack reads as mentions and links."""
    text = terminal(getattr(end, field) or "").translate(_NO_ANGLES)
    limit = SHOWN[field]
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_for(end: RunEnd) -> str:
    """The message's text: what ended and how, the result, and the run's page."""
    noun, owner = _plain(end, "noun"), _plain(end, "owner")
    title = f"{noun[:1].upper()}{noun[1:]} {end.run_id} {end.state} ({_plain(end, 'game')}"
    title += f", {owner})" if owner else ")"
    lines = [title, _plain(end, "headline"), _plain(end, "page_url")]
    return "\n".join(line for line in lines if line)


def message_for(end: RunEnd) -> dict[str, Any]:
    """The JSON body posted for ``end`` (see the module's docstring)."""
    text = text_for(end)
    return {
        "content": text,
        "text": text,
        "allowed_mentions": {"parse": []},
        "arbiter": {"event": EVENT, **dataclasses.asdict(end)},
    }
