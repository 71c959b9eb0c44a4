"""The dashboard over HTTP (Starlette's TestClient on the real application and a real store made by
``arbiter sprt`` and ``arbiter tune``): every page and JSON endpoint, the same sections and data as
``arbiter report`` and ``arbiter games``, 404 and 400 answers, nothing loaded from elsewhere, and the
store unchanged, byte for byte, after the whole suite of page loads. Also once on PostgreSQL.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from pg_testkit import PostgresServer
from report_testkit import (
    CANDIDATE,
    commit_run,
    empty_run,
    one_game_run,
    running_run,
    sprt_run,
    tune_run,
    url,
)
from sprt_testkit import run_cli
from sqlalchemy import text
from starlette.testclient import TestClient

from coordinator.reports import gather, json_safe
from coordinator.reports.games import GameFilter, iter_games, pgn
from coordinator.reports.sprt.gather import engines_of
from coordinator.runs import RunKind
from coordinator.store import Store
from coordinator.web.app import create_app
from coordinator.web.layout import SCRIPT
from coordinator.web.replay import replay

MATCH_SECTIONS = [
    "summary",
    "engines",
    "sprt",
    "outcomes",
    "endings",
    "openings",
    "workers",
    "throughput",
    "config",
]
TUNE_SECTIONS = ["summary", "champions", "trials", "acceptance", "weights", "optimizer", "effort", "config"]
SECTION = re.compile(r'<section id="[^"]*">.*?</section>', re.DOTALL)
#: Attribute values and CSS urls that point somewhere: only the dashboard itself, anchors, data.
REFERENCE = re.compile(r'\b(?:src|href|action)\s*=\s*"([^"]*)"|url\(([^)]*)\)')


@dataclass
class Site:
    """The application on a store of real runs, and how the store looked before any page load."""

    client: TestClient
    store: Store
    db: Path
    runs: dict[str, int]
    before: tuple[str, dict[str, int]]


def snapshot(store: Store, db: Path) -> tuple[str, dict[str, int]]:
    """The store file's bytes (with its WAL) and every table's row count."""
    digest = hashlib.sha256(db.read_bytes())
    wal = db.with_name(db.name + "-wal")
    if wal.exists():
        digest.update(wal.read_bytes())
    return digest.hexdigest(), store.row_counts()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("dashboard-http")
    db = folder / "store.db"
    runs = {"sprt": sprt_run(db, "congo", 40)}
    runs["tune"], _ = tune_run(db, "congress", folder, trials=4, report=False)
    writer = Store(url(db))
    runs["running"] = running_run(writer, "congo")
    runs["empty"] = empty_run(writer, "congress")
    runs["one"] = one_game_run(writer, "congress")
    runs["later"] = commit_run(writer, "congo", "e" * 40, depth=8)
    runs["earlier"] = commit_run(writer, "congo", "f" * 40, depth=3)
    kinds = {r.id: r.kind for r in writer.list_runs()}
    runs["trial"] = min(i for i, k in kinds.items() if k is RunKind.TRIAL)
    runs["acceptance"] = min(i for i, k in kinds.items() if k is RunKind.ACCEPTANCE)
    writer.close()
    store = Store(url(db), read_only=True)
    before = snapshot(store, db)
    with TestClient(create_app(store)) as client:
        yield Site(client, store, db, runs, before)
    store.close()


def get(site: Site, path: str, status: int = 200) -> Any:
    """GET ``path``, expecting ``status``."""
    answer = site.client.get(path)
    assert answer.status_code == status, (path, answer.status_code, answer.text[:300])
    return answer


def run_ids_in(html: str) -> list[int]:
    """Run ids of a runs table, in order."""
    return [int(i) for i in re.findall(r'<tr><td class="">\s*<a href="/runs/(\d+)">', html)]


def pages(site: Site) -> list[str]:
    """Every page and endpoint the tests load (the read-only check loads them all again)."""
    r = site.runs
    return [
        "/", "/?kind=all", "/?kind=trial&game=congress&state=finished", f"/?parent={r['tune']}",
        *(f"/runs/{r[k]}" for k in ("sprt", "tune", "running")),
        f"/runs/{r['sprt']}/report.html", f"/runs/{r['sprt']}/games", f"/runs/{r['tune']}/games?page=2",
        f"/runs/{r['sprt']}/games?result=win", f"/runs/{r['sprt']}/games/0/0",
        f"/runs/{r['sprt']}/games/0/0?ply=3", f"/runs/{r['sprt']}/games/0/0.pgn",
        f"/runs/{r['one']}/games/0/0",
        "/workers", f"/workers/{quote('alpha:1', safe='')}", "/regressions", f"/runs/{r['earlier']}",
        "/api/runs", "/api/runs?kind=all&html=1",
        f"/api/runs/{r['sprt']}", f"/api/runs/{r['tune']}?since=x&html=1", f"/api/runs/{r['sprt']}/games",
        "/healthz",
    ]  # fmt: skip


def test_runs_list_puts_running_runs_first_and_filters(site: Site) -> None:
    r = site.runs
    listed = run_ids_in(get(site, "/").text)
    running = sorted((r["running"], r["empty"], r["one"]), reverse=True)  # the kit leaves all three running
    assert listed == [*running, r["earlier"], r["later"], r["tune"], r["sprt"]]
    rows = get(site, "/api/runs?kind=all").json()["runs"]
    assert {row["id"] for row in rows} >= {r["trial"], r["acceptance"]}
    trials = get(site, "/api/runs?kind=trial&game=congress&state=finished").json()["runs"]
    assert trials and {(t["kind"], t["game"], t["state"], t["parent"]) for t in trials} == {
        ("trial", "congress", "finished", r["tune"])
    }
    children = {row["id"] for row in get(site, f"/api/runs?parent={r['tune']}").json()["runs"]}
    assert {r["trial"], r["acceptance"]} <= children and r["sprt"] not in children
    assert [row["id"] for row in get(site, "/api/runs?state=running").json()["runs"]] == running
    sprt = next(row for row in rows if row["id"] == r["sprt"])
    assert sprt["games"] == 40 and sprt["candidate"] == f"arbiter ({CANDIDATE['congo']})"
    assert sprt["decision"] is not None and sprt["lower_bound"] < 0 < sprt["upper_bound"]
    tune = next(row for row in rows if row["id"] == r["tune"])
    assert tune["trials"] == 4 and tune["games"] > 0


@pytest.mark.parametrize("kind", ["sprt", "tune", "running"])
def test_run_pages_show_the_whole_report(site: Site, kind: str) -> None:
    run_id = site.runs[kind]
    html = get(site, f"/runs/{run_id}").text
    keys = re.findall(r'<div class="part" data-key="([^"]+)" data-digest="[0-9a-f]+"><section id="\1">', html)
    assert keys == (TUNE_SECTIONS if kind == "tune" else MATCH_SECTIONS)
    assert html.count('class="plot"') == (7 if kind == "tune" else 8)
    assert f'data-live="/api/runs/{run_id}"' in html and '<div id="live" class="live">' in html
    assert ("data-final" in html) == (kind != "running")
    assert f'href="/runs/{run_id}/games"' in html


def test_a_finished_sprt_shows_what_its_report_file_shows(site: Site, tmp_path: Path) -> None:
    run_id = site.runs["sprt"]
    target = tmp_path / "report.html"
    done = run_cli("report", str(run_id), "-o", str(target), "--store", url(site.db))
    assert done.returncode == 0, done.stderr
    written = target.read_text()
    assert SECTION.findall(get(site, f"/runs/{run_id}").text) == SECTION.findall(written)
    assert get(site, f"/runs/{run_id}/report.html").text == written
    run = site.store.get_run(run_id)
    assert run is not None
    assert get(site, f"/api/runs/{run_id}").json()["report"] == json_safe(gather(site.store, run).to_json())


def test_live_answers_say_what_changed(site: Site) -> None:
    run_id = site.runs["running"]
    first = get(site, f"/api/runs/{run_id}").json()
    assert first["changed"] and not first["final"] and first["run"]["state"] == "running"
    assert first["report"]["totals"]["counted_batches"] == 3
    same = get(site, f"/api/runs/{run_id}?since={first['version']}&html=1").json()
    assert same["version"] == first["version"] and not same["changed"] and "report" not in same
    assert 'data-field="games"' in same["html"]["live"] and "parts" not in same["html"]
    fresh = get(site, f"/api/runs/{run_id}?since=old&html=1").json()
    assert [p[0] for p in fresh["html"]["parts"]] == MATCH_SECTIONS
    finished = get(site, f"/api/runs/{site.runs['sprt']}").json()
    assert finished["final"]
    listing = get(site, "/api/runs?state=finished&html=1").json()  # a running run's duration grows
    assert listing["html"]["parts"][0][0] == "runs"
    again = get(site, f"/api/runs?state=finished&html=1&since={listing['version']}").json()
    assert not again["changed"] and "html" not in again


def test_games_are_those_arbiter_games_exports(site: Site) -> None:
    run_id = site.runs["sprt"]
    done = run_cli("games", str(run_id), "--format", "jsonl", "--store", url(site.db))
    exported = [json.loads(line) for line in done.stdout.splitlines()]
    answer = get(site, f"/api/runs/{run_id}/games").json()
    assert answer["next_page"] is None and len(answer["games"]) == len(exported) == 40
    for game, line in zip(answer["games"], exported, strict=True):
        assert {k: game[k] for k in ("run", "batch", "game", "worker", "record", "fault")} == line
    page = get(site, f"/runs/{run_id}/games").text
    assert len(re.findall(rf'href="/runs/{run_id}/games/\d+/\d+"', page)) == 40
    outcome = answer["games"][0]["outcome"]  # the candidate's win, draw or loss
    chosen = get(site, f"/api/runs/{run_id}/games?result={outcome}").json()["games"]
    assert chosen and {g["outcome"] for g in chosen} == {outcome}
    assert len(chosen) == sum(g["outcome"] == outcome for g in answer["games"])
    tune = site.runs["tune"]
    first = get(site, f"/api/runs/{tune}/games").json()
    second = get(site, f"/api/runs/{tune}/games?page=2").json()
    assert len(first["games"]) == 50 and first["next_page"] == 2
    run = site.store.get_run(tune)
    assert run is not None
    expected = list(iter_games(site.store, run, GameFilter(limit=100)))[50:]
    assert [(g["run"], g["batch"], g["game"]) for g in second["games"]] == [
        (g.run.id, g.batch_index, g.game_number) for g in expected[: len(second["games"])]
    ]


def test_a_page_past_the_end_is_empty_and_reads_no_game(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = site.store.iter_batch_games

    def counting(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(site.store, "iter_batch_games", counting)
    for run in (site.runs["sprt"], site.runs["tune"]):
        answer = get(site, f"/api/runs/{run}/games?page=1000000000").json()
        assert answer["games"] == [] and answer["next_page"] is None
        assert "/games/" not in get(site, f"/runs/{run}/games?page=1000000000").text.split("<main")[-1]
    assert reads == []
    last = get(site, f"/api/runs/{site.runs['sprt']}/games?page=1").json()
    assert len(last["games"]) == 40 and reads


def test_expensive_pages_are_bounded(site: Site) -> None:
    app = create_app(site.store, expensive_at_once=1)
    sprt = site.runs["sprt"]
    with TestClient(app) as client:
        slots = app.state.dashboard.expensive
        assert slots.try_acquire()
        try:
            for path in (f"/runs/{sprt}", f"/runs/{sprt}/games", f"/api/runs/{sprt}/games"):
                busy = client.get(path)
                assert busy.status_code == 429 and busy.headers["retry-after"] == "1", path
            assert client.get("/").status_code == 200 and client.get("/healthz").status_code == 200
        finally:
            slots.release()
        assert client.get(f"/runs/{sprt}").status_code == 200
    with pytest.raises(ValueError, match="at least 1"):
        create_app(site.store, expensive_at_once=0)


def test_a_game_is_replayed_move_by_move(site: Site) -> None:
    run_id = site.runs["sprt"]
    run = site.store.get_run(run_id)
    assert run is not None
    game = next(iter_games(site.store, run, GameFilter(batch=0, limit=1)))
    moves = game.record["moves"].split(" ")
    played = replay("congo", game.record["opening"], moves)
    assert played.error is None
    html = get(site, f"/runs/{run_id}/games/0/0?ply=3").text
    layers = re.findall(r'<g class="ply" data-ply="(\d+)" data-fen="([^"]*)" display="(\w+)">', html)
    assert [int(p) for p, _, _ in layers] == list(range(len(moves) + 1))
    assert [fen for _, fen, _ in layers] == played.positions
    assert [p for p, _, shown in layers if shown == "inline"] == ["3"]
    assert f'<code class="fen" id="fen">{played.positions[3]}</code>' in html
    assert game.record["reason"].replace("_", " ") in html and game.record["opening"] in html
    assert len(re.findall(r'<a href="\?ply=(\d+)" data-ply="\1"', html)) == len(moves) + 1
    assert get(site, f"/runs/{run_id}/games/0/0.pgn").text == pgn(game, engines_of(site.store, run))
    one = get(site, f"/runs/{site.runs['one']}/games/0/0").text
    assert "<svg" in one and "board" in one


def test_regressions_list_tested_commits_in_history_order(site: Site) -> None:
    html = get(site, "/regressions").text
    earlier, later = html.index("arbiter@fffffff"), html.index("arbiter@eeeeeee")
    assert earlier < later and f'href="/runs/{site.runs["earlier"]}"' in html
    assert "<svg" in html and "s3cret" not in html and "https://user:***@git.example/arbiter.git" in html
    assert f">{site.runs['sprt']}<" not in html.split("<h1>Regressions</h1>")[1], "only runs of commits"
    run_page = get(site, f"/runs/{site.runs['earlier']}").text
    assert 'id="engines"' in run_page and "arbiter-engine 9.9" in run_page and "s3cret" not in run_page
    listed = get(site, "/").text
    assert "arbiter@fffffff vs arbiter@bbbbbbb" in listed
    worker = get(site, "/workers/alpha%3A1").text  # the commit runs' worker: factor 1.5, two faults
    assert f'<a href="/runs/{site.runs["earlier"]}">{site.runs["earlier"]}</a></td>' in worker
    assert '<th class="">time factor</th>' in worker and '<td class="">1.50</td><td class="">2</td>' in worker


def test_worker_pages(site: Site) -> None:
    listing = get(site, "/workers").text
    assert 'href="/workers/alpha%3A1"' in listing and 'href="/workers/beta%3A2"' in listing
    page = get(site, "/workers/alpha%3A1").text
    running = site.runs["running"]
    assert f'<a href="/runs/{running}">{running}</a>' in page
    assert "residual" in page and "quarantine" in page and "<h2>Refused answers</h2>" in page


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/runs/999999", "no run 999999 in this store"), ("/runs/0", "no run 0 in this store"),
        ("/runs/99999999999999999999999", "no run 99999999999999999999999: run numbers have at most 18"),
        ("/runs/" + "9" * 5000, "no run 9999999999"),
        ("/api/runs/" + "9" * 5000, "run numbers have at most 18"),
        ("/runs/{sprt}/games/" + "9" * 5000 + "/0", "no game '9999999999"),
        ("/runs/999999/games", "no run 999999"), ("/nothing", "no page /nothing: the dashboard has /, "),
        ("/runs/abc", "no run 'abc': runs are numbered"),
        ("/api/runs/abc", "no run 'abc': runs are numbered"),
        ("/runs/{sprt}/games/x/y", "no game 'x/y' of run {sprt}: a game is named by its batch"),
        ("/runs/{sprt}/games/0/999", "has no counted game 999 in batch 0"),
        ("/runs/{sprt}/games/99999/0", "has no counted game 0 in batch 99999"),
        ("/runs/{tune}/games/0/0", "is a tuning run: its games belong to its trials"),
        ("/runs/{running}/games/4/0", "has no counted game 0 in batch 4"),
        ("/workers/nobody", "no worker 'nobody'"), ("/api/runs/999999", "no run 999999"),
        ("/api/runs/999999/games", "no run 999999"),
        ("/api/nothing", "no endpoint /api/nothing: the API has"),
    ],
)  # fmt: skip
def test_missing_things_are_404_saying_what_is_missing(site: Site, path: str, says: str) -> None:
    answer = get(site, path.format(**site.runs), 404)
    if path.startswith("/api/"):
        assert answer.json()["status"] == 404
        assert says.format(**site.runs) in answer.json()["error"]
    else:
        assert "<h1>404 Not found</h1>" in answer.text and "Traceback" not in answer.text
        assert says.format(**site.runs) in unescape(answer.text)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/?kind=bogus", "kind: expected one of"), ("/?game=chess", "game: expected one of"),
        ("/?state=done", "state: expected one of"), ("/?parent=abc", "parent: expected a whole number"),
        ("/?parent=0", "parent: expected a number from 1"), ("/?kind=sprt&kind=tune", "given more than once"),
        ("/?colour=red", "unknown query parameter 'colour'"), ("/runs/{sprt}?x=1", "unknown query parameter"),
        ("/runs/{sprt}/games?page=0", "page: expected a number from 1"),
        ("/runs/{sprt}/games?page=two", "page: expected a whole number"),
        ("/runs/{sprt}/games?result=maybe", "result: expected one of"),
        ("/runs/{sprt}/games?reason=boredom", "reason: expected one of"),
        ("/runs/{sprt}/games?batch=-1", "batch: expected a whole number"),
        ("/runs/{sprt}/games/0/0?ply=100000", "ply: expected a number from 0"),
        ("/api/runs?html=yes", "html: expected one of 0, 1"), ("/api/runs/{sprt}?html=2", "html: expected"),
        ("/api/runs/{sprt}/games?worker=" + "w" * 300, "worker: expected at most 255 characters"),
    ],
)  # fmt: skip
def test_bad_query_parameters_are_400(site: Site, path: str, says: str) -> None:
    answer = get(site, path.format(**site.runs), 400)
    message = answer.json()["error"] if path.startswith("/api/") else unescape(answer.text)
    assert says in message


def test_only_a_read_only_store_is_served(tmp_path: Path) -> None:
    writable = Store(url(tmp_path / "writable.db"))
    with pytest.raises(ValueError, match="read-only"):
        create_app(writable)
    writable.close()


def test_only_reading_methods(site: Site) -> None:
    assert site.client.post("/").status_code == 405
    assert site.client.head(f"/runs/{site.runs['sprt']}").status_code == 200


def test_pages_load_nothing_from_elsewhere(site: Site) -> None:
    for path in pages(site):
        answer = get(site, path)
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "connect-src 'self'" in policy
        if not answer.headers["content-type"].startswith("text/html"):
            continue
        for match in REFERENCE.finditer(answer.text):
            target = (match.group(1) or match.group(2) or "").strip("'\"")
            assert target.startswith(("/", "#", "?", "data:")), (path, target)
        if path.endswith("report.html"):
            assert "<script" not in answer.text
        else:
            assert re.findall(r"<script>(.*?)</script>", answer.text, re.DOTALL) == [SCRIPT]


def test_store_unchanged_after_every_page_load(site: Site) -> None:
    for path in pages(site):
        get(site, path)
    assert snapshot(site.store, site.db) == site.before


def test_dashboard_on_postgresql(pg_server: PostgresServer) -> None:
    store_url = pg_server.url(pg_server.database("dashboard"))
    done = run_cli(
        "sprt", "congo", "--candidate", str(CANDIDATE["congo"]), "--nodes", "300", "--max-games", "16",
        "--batch-pairs", "4", "--concurrency", "2", "--store", store_url,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    store = Store(store_url, read_only=True)
    before = store.row_counts()
    with TestClient(create_app(store)) as client:
        for path in ("/", "/runs/1", "/api/runs/1", "/runs/1/games", "/runs/1/games/0/1", "/workers"):
            assert client.get(path).status_code == 200, path
        assert client.get("/runs/2").status_code == 404
    with store.engine.connect() as c:
        assert c.execute(text("SHOW default_transaction_read_only")).scalar() == "on"
    assert store.row_counts() == before
    store.close()
