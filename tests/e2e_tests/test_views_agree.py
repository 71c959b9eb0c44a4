"""Four views of one stored run never disagree: the terminal's end (or progress) line and summary,
``arbiter status`` (text and ``--json``), ``arbiter report`` (text and ``--json``) and the
dashboard (its live line and the report below it, and its JSON API), for an SPRT, a tuning run
and a tournament, finished, and an SPRT caught running. Each view's figures (games, LLR, Elo,
decision, champion and the games of each reign, the trial tally, ratings) are read back from its
text and compared."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from report_testkit import FinishedRuns, copy_store, running_run, url
from sprt_testkit import run_cli, write_book
from starlette.testclient import TestClient

from coordinator.sprt.report import progress_line, stored_progress
from coordinator.store import Store
from coordinator.web.app import create_app

#: The SPRT headline's figures: decision, Elo, its half-width, games, LLR.
HEADLINE = re.compile(
    r"(H1 accepted|H0 accepted \(H1 rejected\)|undecided at its game cap|undecided): .* vs .*, "
    r"Elo ([+-]\d+\.\d) (?:\+-|±) (\d+\.\d) after (\d+) games \(LLR (-?\d+\.\d\d) \["
)
#: A tuning run's trial tally, as every view words it.
TALLY = re.compile(r"\d+ trials? \((?:\d+ [a-z ]+(?:, )?)+\)|\d+ trials \(none yet\)")
#: A champions table row: number, trial, then the games of its reign (the terminal's tables).
CHAMPION_ROW = re.compile(r"^\s+#(\d+)\s+(\d+|start)\s+([+-]\d+\.\d) \+- \d+\.\d\s.*?\s(\d+)(?:\s+\S+)?$")


def cli(*args: str) -> str:
    """``arbiter ARGS``'s stdout (it must succeed)."""
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def unwrapped(text: str) -> str:
    """``text`` with its HTML entities decoded and its lines wrapped to 80 columns joined again."""
    return re.sub(r"\n {4}", " ", unescape(text))


def headline_figures(text: str) -> tuple[str, ...]:
    """The first SPRT headline's figures in ``text``."""
    found = HEADLINE.search(unwrapped(text))
    assert found is not None, text[:2000]
    return found.groups()


def tally_of(text: str) -> str:
    """The first trial tally in ``text``."""
    found = TALLY.search(unwrapped(text))
    assert found is not None, text[:2000]
    return found.group(0)


def champion_rows(text: str) -> dict[int, tuple[str, int]]:
    """Each champion of a terminal champions table: (trial, games of its reign)."""
    rows = {}
    for line in text.splitlines():
        if (m := CHAMPION_ROW.match(line)) is not None:
            rows[int(m.group(1))] = (m.group(2), int(m.group(4)))
    return rows


def field(html: str, name: str) -> str:
    """A live line's ``data-field`` value."""
    found = re.search(rf'data-field="{name}">([^<]*)<', html)
    assert found is not None, html
    return unescape(found.group(1))


@pytest.fixture(scope="module")
def store_url(finished: FinishedRuns, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A copy of the finished runs' store, with a running SPRT and a finished tournament added."""
    folder = tmp_path_factory.mktemp("views")
    db = copy_store(finished.db, folder / "store.db")
    writer = Store(url(db))
    running_run(writer, "congo")
    writer.close()
    book = write_book(folder / "book.txt", "congo", count=3)
    cli(
        "tournament", "congo", "--book", str(book), "--engine", "default", "--engine",
        str(Path(__file__).resolve().parents[2] / "examples" / "congo-material.json"), "--pairs", "2",
        "--nodes", "200", "--batch-pairs", "1", "--seed", "3", "--store", url(db),
    )  # fmt: skip
    return url(db)


def run_ids(store_url: str) -> dict[str, int]:
    """The runs of the store by what they are."""
    store = Store(store_url, read_only=True)
    try:
        runs = store.list_runs()
        return {
            "running": next(r.id for r in runs if r.kind == "sprt" and r.state == "running"),
            "tournament": next(r.id for r in runs if r.kind == "tournament"),
        }
    finally:
        store.close()


def dashboard(store_url: str, run_id: int) -> tuple[str, str, dict[str, Any]]:
    """The run page's live line and body, and its JSON API answer."""
    store = Store(store_url, read_only=True)
    try:
        with TestClient(create_app(store)) as client:
            page = client.get(f"/runs/{run_id}")
            api = client.get(f"/api/runs/{run_id}?html=1")
    finally:
        store.close()
    assert page.status_code == 200 and api.status_code == 200
    live = re.search(r'<div id="live" class="live">(.*?)</div>', page.text, re.DOTALL)
    assert live is not None
    return live.group(1), page.text[live.end() :], api.json()


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_a_finished_sprt_shows_the_same_figures_everywhere(
    finished: FinishedRuns, store_url: str, game: str
) -> None:
    run_id = str(finished.ids[f"sprt-{game}"])
    end = cli("resume", run_id, "--store", store_url)  # a finished run shows its end summary again
    status = cli("status", run_id, "--store", store_url)
    status_json = json.loads(cli("status", run_id, "--json", "--store", store_url))
    report = cli(
        "report", run_id, "--store", store_url, "--output", str(Path(store_url[10:]).parent / "r.html")
    )
    report_json = json.loads(cli("report", run_id, "--json", "--store", store_url))
    live, body, api = dashboard(store_url, int(run_id))
    figures = headline_figures(end)
    decision, elo, _, games, llr = figures
    for view in (
        status,
        status_json["headline"],
        report,
        report_json["headline"],
        body,
        api["run"]["headline"],
    ):
        assert headline_figures(view) == figures
    assert status_json["games"] == report_json["totals"]["games"] == int(games)
    assert f"{status_json['llr']:.2f}" == f"{report_json['stats']['llr']:.2f}" == llr
    assert field(live, "games") == games and field(live, "llr").startswith(llr)
    assert field(live, "decision") == decision and f"Elo</span> {elo} ±" in live
    assert "Siegmund" not in end or "Siegmund" in report


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_a_finished_tuning_run_shows_the_same_champions_and_tally_everywhere(
    finished: FinishedRuns, store_url: str, game: str
) -> None:
    run_id = str(finished.ids[f"tune-{game}"])
    end = finished.tune_stdout[game]
    status = cli("status", run_id, "--store", store_url)
    report = cli(
        "report", run_id, "--store", store_url, "--output", str(Path(store_url[10:]).parent / "t.html")
    )
    data = json.loads(cli("report", run_id, "--json", "--store", store_url))
    status_json = json.loads(cli("status", run_id, "--json", "--store", store_url))
    live, body, api = dashboard(store_url, int(run_id))
    tally = tally_of(end)
    assert tally_of(status) == tally_of(report) == tally_of(body) == field(live, "trials") == tally
    assert api["run"]["tally"] == tally and status_json["outcomes"] == data["totals"]["outcomes"]
    chain = champion_rows(end)
    assert chain and champion_rows(status) == champion_rows(report) == chain, (end, report)
    reigns = {r["champion"]: r["games"] for r in data["reigns"]}
    assert {n: games for n, (_, games) in chain.items()} == reigns
    champion = max(chain)
    assert data["totals"]["champion"] == status_json["champions"][-1]["number"] == champion
    assert field(live, "champion") == f"#{champion}"
    games = data["totals"]["games"]
    assert status_json["games"] == games == int(field(live, "games"))
    assert f", {games} games " in end and f", {games} games" in status and f"{games} games in " in report
    # every acceptance SPRT's ending in words, the same on the report's text, JSON and page
    endings = [a["ending"] for a in data["acceptances"]]
    assert endings and all(unescape(ending) in unwrapped(report) for ending in set(endings))
    assert all(ending in unescape(body) for ending in endings) and "budget" not in report
    if champion:
        assert "H1 accepted: crowned" in endings


def test_a_running_sprt_shows_the_same_figures_everywhere(store_url: str) -> None:
    run_id = run_ids(store_url)["running"]
    store = Store(store_url, read_only=True)
    try:
        run = store.get_run(run_id)
        assert run is not None
        line = progress_line(stored_progress(store, run))
    finally:
        store.close()
    status_json = json.loads(cli("status", str(run_id), "--json", "--store", store_url))
    report_json = json.loads(cli("report", str(run_id), "--json", "--store", store_url))
    report = cli(
        "report", str(run_id), "--store", store_url, "--output", str(Path(store_url[10:]).parent / "x.html")
    )
    live, body, api = dashboard(store_url, run_id)
    figures = headline_figures(report)
    decision, elo, _, games, llr = figures
    assert decision == "undecided"
    assert headline_figures(cli("status", str(run_id), "--store", store_url)) == figures
    assert headline_figures(body) == headline_figures(status_json["headline"]) == figures
    assert headline_figures(report_json["headline"]) == headline_figures(api["run"]["headline"]) == figures
    assert line.startswith(f"run {run_id}: {games} games  LLR {float(llr):+.2f}") and f"Elo {elo}+-" in line
    assert field(live, "games") == games and field(live, "llr").startswith(llr)
    # batches stored beyond the counted prefix (one is missing before them) count in no view
    assert report_json["totals"]["stored_batches"] > report_json["totals"]["counted_batches"]


def test_a_tournament_shows_the_same_figures_everywhere(store_url: str) -> None:
    run_id = str(run_ids(store_url)["tournament"])
    status = cli("status", run_id, "--store", store_url)
    report = cli(
        "report", run_id, "--store", store_url, "--output", str(Path(store_url[10:]).parent / "y.html")
    )
    data = json.loads(cli("report", run_id, "--json", "--store", store_url))
    status_json = json.loads(cli("status", run_id, "--json", "--store", store_url))
    resumed = run_cli("resume", run_id, "--store", store_url)
    live, body, api = dashboard(store_url, int(run_id))
    first = f"tournament {run_id} (round-robin, congo): finished, 4/4 games counted, 2 engines"
    assert status.splitlines()[0] == report.splitlines()[0] == resumed.stdout.splitlines()[0] == first
    assert data["games"] == status_json["games"] == api["run"]["games"] == 4
    assert field(live, "games") == "4"
    elos = {r["name"]: f"{r['elo']:+.1f}" for r in data["ratings"]}
    for name, elo in elos.items():
        assert re.search(rf"{re.escape(name)}\s+{re.escape(elo)}\s", status), status
        assert re.search(rf"{re.escape(name)}\s+{re.escape(elo)}\s", report)
        assert name in body
    assert data["head_to_head"]  # the terminal shows the head-to-head table the page shows
    for h in data["head_to_head"]:
        names = rf"{re.escape(h['engine'][:20])}\s+{re.escape(h['opponent'][:20])}"
        row = rf"{names}\s+{h['wins']}\s+{h['draws']}\s+{h['losses']}\s"
        assert re.search(row, status) and re.search(row, report), status
