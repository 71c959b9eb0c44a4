"""Run-end notifications, the pure parts: the message, webhook URLs and their masking, the retry
policy, the operator's webhooks and the notifier's fan-out (the deliveries themselves are tested
against a real HTTP server in tests/notify_tests)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import click
import pytest
from click.testing import CliRunner

from coordinator.cli.webhooks import webhook_option
from coordinator.notify.backoff import backoff_delay, next_delay, retry_after, retryable
from coordinator.notify.message import MAX_TEXT, RunEnd, message_for, text_for
from coordinator.notify.notifier import Notifier, operator_webhooks
from coordinator.notify.urls import check_webhook, mask_webhook, webhook_secrets

DISCORD = "https://discord.com/api/webhooks/1234567890/Sup3rSecretToken"
SLACK = "https://hooks.slack.com/services/T0001/B0002/XXXXsecretXXXX"


def run_end(**changes: Any) -> RunEnd:
    end = RunEnd(
        run_id=12,
        kind="sprt",
        noun="SPRT",
        state="finished",
        headline="H1 accepted: Elo +12.3 ± 4.1 after 5,120 games",
        game="congo",
        owner="alice",
        page_url="https://arbiter.example/runs/12",
    )
    return dataclasses.replace(end, **changes)


# --- the message -----------------------------------------------------------------------------


def test_message_is_one_text_for_discord_and_slack_and_every_field_for_others() -> None:
    end = run_end()
    body = message_for(end)
    assert (
        body["content"]
        == body["text"]
        == (
            "SPRT 12 finished (congo, alice)\n"
            "H1 accepted: Elo +12.3 ± 4.1 after 5,120 games\n"
            "https://arbiter.example/runs/12"
        )
    )
    assert body["allowed_mentions"] == {"parse": []}
    assert body["arbiter"] == {"event": "run_ended", **dataclasses.asdict(end)}
    assert json.loads(json.dumps(body)) == body


def test_message_without_owner_or_page_and_a_lower_case_noun() -> None:
    text = text_for(
        run_end(
            noun="tuning run",
            kind="tune",
            state="failed",
            owner=None,
            page_url=None,
            headline="engine 'dev' crashed in 3 games",
        )
    )
    assert text == "Tuning run 12 failed (congo)\nengine 'dev' crashed in 3 games"


def test_message_text_stays_short_plain_and_mention_free_whatever_users_typed() -> None:
    end = run_end(
        owner="<!channel> @everyone\nline two", headline="x" * 10_000, page_url="https://a/" + "p" * 5000
    )
    text = text_for(end)
    assert len(text) <= MAX_TEXT
    assert "<" not in text and ">" not in text
    assert len(text.splitlines()) == 3  # title, headline, page: the owner's newline is gone
    assert text.splitlines()[1].endswith("…")
    # The structured copy keeps what was given.
    assert message_for(end)["arbiter"]["owner"] == "<!channel> @everyone\nline two"


def test_run_end_refuses_an_unknown_state() -> None:
    with pytest.raises(
        ValueError, match=r"run end state 'running': expected one of finished, failed, stopped"
    ):
        run_end(state="running")


# --- webhook URLs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (DISCORD, "https://discord.com/…"),
        (SLACK, "https://hooks.slack.com/…"),
        ("http://user:pa@ss@hooks.example:8080/x?token=t", "http://hooks.example:8080/…"),
        ("https://hooks.example?key=secret", "https://hooks.example/…"),
        ("https://hooks.example/", "https://hooks.example"),
        ("hooks.slack.com/services/T/B/X", "hooks.slack.com/…"),
        ("https://hooks.example/a\nb", "https://hooks.example/…"),
    ],
)
def test_mask_shows_scheme_and_host_only(url: str, shown: str) -> None:
    assert mask_webhook(url) == shown
    for secret in webhook_secrets(url):
        assert secret not in mask_webhook(url)


def test_secrets_are_the_userinfo_and_everything_after_the_host() -> None:
    assert webhook_secrets("http://u:p@h/a/b?c=d") == ["u:p", "a/b?c=d"]
    assert webhook_secrets("https://h") == []


@pytest.mark.parametrize("url", [DISCORD, SLACK, "http://127.0.0.1:9/hook", "https://[::1]:8443/x"])
def test_good_webhooks_pass(url: str) -> None:
    assert check_webhook(url) == url


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("", "'': empty"),
        ("https://discord.com/api/webhooks/1/Sup3r Secret", "'https://discord.com/…': holds whitespace"),
        ("discord.com/api/webhooks/1/Sup3rSecret", "'discord.com/…': no scheme"),
        ("ftp://files.example/Sup3rSecret", "'ftp://files.example/…': scheme 'ftp'"),
        ("https:///Sup3rSecret", "'https:///…': no host"),
        ("https://h:99999/Sup3rSecret", "'https://h:99999/…': its port or address does not parse"),
        ("https://h:0/Sup3rSecret", "'https://h:0/…': port 0"),
    ],
)
def test_bad_webhooks_are_named_masked_with_what_was_expected(url: str, problem: str) -> None:
    with pytest.raises(ValueError) as raised:
        check_webhook(url)
    message = str(raised.value)
    assert message == (
        f"webhook {problem}; expected an http:// or https:// URL with a host and no whitespace"
    )
    assert "Secret" not in message and "\n" not in message


# --- the retry policy --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "again"),
    [
        (None, True),
        (500, True),
        (502, True),
        (599, True),
        (429, True),
        (400, False),
        (401, False),
        (404, False),
        (410, False),
        (301, False),
        (200, False),
    ],
)
def test_which_failures_are_retried(status: int | None, again: bool) -> None:
    assert retryable(status) is again


def test_backoff_doubles_up_to_its_cap() -> None:
    assert [backoff_delay(n, 2.0, 60.0) for n in range(1, 8)] == [2, 4, 8, 16, 32, 60, 60]
    assert backoff_delay(10_000, 2.0, 60.0) == 60.0


def test_retry_after_in_seconds_or_as_a_date() -> None:
    now = datetime(2026, 12, 7, 1, 0, tzinfo=UTC)
    assert retry_after("120", now) == 120.0
    assert retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30.0
    assert retry_after(format_datetime(now - timedelta(seconds=30), usegmt=True), now) == 0.0
    assert retry_after(None, now) is None
    assert retry_after("soon", now) is None
    assert retry_after("²", now) is None  # a digit to str.isdigit, not to float()
    assert retry_after("-5", now) is None


def test_the_receivers_wish_wins_up_to_the_cap() -> None:
    assert next_delay(1, 2.0, 60.0, None) == 2.0
    assert next_delay(3, 2.0, 60.0, 5.0) == 5.0
    assert next_delay(1, 2.0, 60.0, 3600.0) == 60.0


# --- the operator's webhooks and the fan-out ---------------------------------------------------


def test_operator_webhooks_split_on_commas_and_whitespace_once_each() -> None:
    environ = {"ARBITER_WEBHOOKS": f" {DISCORD},{SLACK}\n {DISCORD} ,, "}
    assert operator_webhooks(environ) == [DISCORD, SLACK]
    assert operator_webhooks({}) == []
    assert operator_webhooks({"ARBITER_WEBHOOKS": "  "}) == []


def test_a_bad_operator_webhook_names_the_variable_and_the_url_masked() -> None:
    with pytest.raises(ValueError) as raised:
        operator_webhooks({"ARBITER_WEBHOOKS": f"{DISCORD} ftp://hooks.example/Sup3rSecretToken"})
    assert str(raised.value).startswith("ARBITER_WEBHOOKS: webhook 'ftp://hooks.example/…': scheme 'ftp'")
    assert "Secret" not in str(raised.value)


class Recording:
    """A sender that keeps what it was given (the fan-out is all this test is about)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Mapping[str, Any]]] = []

    def send(self, url: str, body: Mapping[str, Any]) -> None:
        self.sent.append((url, body))


def test_notifier_posts_to_operator_and_run_webhooks_each_once() -> None:
    sender = Recording()
    notifier = Notifier([DISCORD, SLACK, DISCORD], sender)
    end = run_end(state="stopped", headline="stopped by alice after 812 games")
    notifier.run_ended(end, ["https://hooks.example/mine", SLACK])
    assert [url for url, _ in sender.sent] == [DISCORD, SLACK, "https://hooks.example/mine"]
    assert all(body == message_for(end) for _, body in sender.sent)


def test_notifier_refuses_a_bad_operator_webhook() -> None:
    with pytest.raises(ValueError, match=r"webhook 'hooks.example/…': no scheme"):
        Notifier(["hooks.example/x"], Recording())


# --- the --webhook option ----------------------------------------------------------------------


@click.command()
@webhook_option("where to post when the run ends")
def notified(webhooks: tuple[str, ...]) -> None:
    click.echo(" ".join(webhooks))


def test_webhook_option_takes_several_urls() -> None:
    result = CliRunner().invoke(notified, ["--webhook", DISCORD, "--webhook", SLACK])
    assert result.exit_code == 0 and result.output == f"{DISCORD} {SLACK}\n"


def test_a_bad_webhook_option_is_a_usage_error_with_the_url_masked() -> None:
    result = CliRunner().invoke(notified, ["--webhook", "https://discord.com/api/webhooks/1/Sup3r Secret"])
    assert result.exit_code == 2
    assert "webhook 'https://discord.com/…': holds whitespace" in result.output
    assert "Secret" not in result.output
