"""The dashboard in a real headless browser (Debian's Chromium driven by Playwright, as in
test_report_browser.py) while runs go on: a real ``arbiter serve`` process and, writing the same
SQLite store at the same time, an ``arbiter sprt`` and an ``arbiter tune`` process.

The runs list and the SPRT's page show the game count rise without a reload; the SPRT's page, kept
open, shows its decision when the run ends; a link leads to a game, stepped through move by move;
the tuning run's page shows its trials and champions as they come. No console error, and no
request leaves the dashboard (every request is intercepted; only 127.0.0.1:PORT is let through).

``ARBITER_SCREENSHOT=1`` writes the SPRT page's screenshot to docs/images/dashboard.png (the one
in the README); otherwise it goes to the test's folder only.

The runs move on only when the test lets them: their worker processes are paused (SIGSTOP,
``process_testkit``) while the browser reads a count; to see it rise, the SPRT's workers go on only
until the store has counted more (stop, check, act), and the page must then show the store's new
count. On an idle machine the SPRT would otherwise end before the browser looks at it; held back,
it needs only a small budget.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from celery_testkit import free_port, wait_until
from process_testkit import WorkerPause, pause_when
from report_testkit import FLAT, url
from sprt_testkit import cli_command

from coordinator.store import Store
from coordinator.web.replay import replay

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "docs" / "images" / "dashboard.png"
#: Bound on every wait of these tests (seconds): the machine has 2 cores, shared.
WAIT = 120.0
#: Bound on a wait for the browser to see a change (milliseconds).
SEE = 60_000


def start(*args: str, log: Path) -> subprocess.Popen[bytes]:
    """``arbiter ARGS`` in the background, its output in ``log``."""
    env = {k: v for k, v in os.environ.items() if k != "ARBITER_STORE"}
    with log.open("wb") as out:
        return subprocess.Popen(
            cli_command(*args), stdout=out, stderr=subprocess.STDOUT, env=env, cwd=log.parent
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    """Interrupt a background command and wait for it (bounded)."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(WAIT)


def counted_run(db: Path, kind: str) -> int | None:
    """The first run of ``kind`` in the store that counted a batch (its games are being played by
    its worker processes by then), if there is one."""
    if not db.exists():
        return None
    try:
        store = Store(url(db), read_only=True)
    except ValueError:  # the tables are being created
        return None
    try:
        runs = store.list_runs()
    finally:
        store.close()
    return next((r.id for r in runs if str(r.kind) == kind and r.counted_batches), None)


def counted_games(db: Path, run_id: int) -> int:
    """The games run ``run_id`` of the store has counted."""
    store = Store(url(db), read_only=True)
    try:
        return store.totals(run_id).games
    finally:
        store.close()


def run_state(db: Path, run_id: int) -> str:
    """Where run ``run_id`` of the store stands."""
    store = Store(url(db), read_only=True)
    try:
        run = store.get_run(run_id)
    finally:
        store.close()
    assert run is not None
    return str(run.state)


def tune_run(db: Path) -> int:
    """The store's tuning run."""
    store = Store(url(db), read_only=True)
    try:
        return next(r.id for r in store.list_runs() if str(r.kind) == "tune")
    finally:
        store.close()


@dataclass
class Watch:
    """The dashboard's address, the store, the runs going on, and what the browser did."""

    base: str
    db: Path
    sprt: subprocess.Popen[bytes]
    tune: subprocess.Popen[bytes]
    sprt_run: int
    tune_run: int
    folder: Path
    sprt_workers: WorkerPause
    tune_workers: WorkerPause
    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def watch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Watch]:
    """An SPRT and a tuning run going on in one store, and ``arbiter serve`` on it."""
    folder = tmp_path_factory.mktemp("dashboard-browser")
    db = folder / "store.db"
    # The engine against itself: no SPRT decides in 48 games, so the run ends at its budget, never
    # before the test has let it go on (held back, it counts a batch or two at each step before the
    # last, and only the last lets it go on to its end).
    sprt = start(
        "sprt", "congo", "--candidate", "default", "--baseline", "default", "--nodes", "1000",
        "--max-games", "48", "--batch-pairs", "2", "--concurrency", "1", "--store", url(db),
        log=folder / "sprt.log",
    )  # fmt: skip
    tune = start(
        "tune", "congress", "--method", "optuna", "--start", str(FLAT["congress"]), "--max-trials", "40",
        "--nodes", "300",
        "--trial-pairs", "8", "--batch-pairs", "2", "--accept-max-games", "200", "--accept-elo1", "30",
        "--prune-los", "0.25", "--concurrency", "1", "--seed", "1", "--store", url(db),
        log=folder / "tune.log",
    )  # fmt: skip
    port = free_port()
    serve: subprocess.Popen[bytes] | None = None
    sprt_workers, tune_workers = WorkerPause(sprt.pid), WorkerPause(tune.pid)
    try:
        # Both runs stop where they are once they play: from here on, they move only when the
        # test lets their workers go on.
        pause_when(sprt_workers, lambda: counted_run(db, "sprt"), WAIT, "an SPRT that counted a batch")
        sprt_run = counted_run(db, "sprt")
        assert sprt_run is not None, (folder / "sprt.log").read_text()
        assert run_state(db, sprt_run) == "running", (folder / "sprt.log").read_text()
        pause_when(tune_workers, lambda: counted_run(db, "trial"), WAIT, "a trial that counted a batch")
        serve = start("serve", "--store", url(db), "--port", str(port), log=folder / "serve.log")
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as answer:
                    return bool(json.load(answer)["ok"])
            except OSError:
                return False

        wait_until(healthy, WAIT, "arbiter serve to answer")
        yield Watch(base, db, sprt, tune, sprt_run, tune_run(db), folder, sprt_workers, tune_workers)
    finally:
        for workers, process in ((sprt_workers, sprt), (tune_workers, tune)):
            workers.resume()
            stop(process)
        if serve is not None:
            serve.send_signal(signal.SIGTERM)  # a graceful stop, then uvicorn ends by the signal
            assert serve.wait(WAIT) == -signal.SIGTERM, (folder / "serve.log").read_text()
            assert "Traceback" not in (folder / "serve.log").read_text()


@pytest.fixture(scope="module")
def browser(watch: Watch, chromium: Any) -> Iterator[Any]:
    """One browser context for the whole visit: requests outside the dashboard are refused and
    recorded, and so are console errors."""
    context = chromium.new_context(viewport={"width": 1280, "height": 1000})
    # A run page draws the whole report of a run that changes all the time: on a machine as
    # busy as CI's, loading one can take longer than Playwright's default 30 s.
    context.set_default_timeout(SEE)

    def route(route: Any) -> None:
        if route.request.url.startswith(f"{watch.base}/"):
            route.continue_()
        else:
            watch.outside.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    context.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
    context.on("weberror", lambda e: watch.errors.append(str(e.error)))
    try:
        yield context
    finally:
        context.close()


def number(page: Any, selector: str) -> int:
    """The whole number shown by ``selector``."""
    return int(re.sub(r"\D", "", page.text_content(selector) or "") or 0)


def mark(page: Any) -> None:
    """Mark the loaded document: a reload would lose the mark."""
    page.evaluate("() => { window.arbiterMark = 'not reloaded'; }")


def assert_not_reloaded(page: Any) -> None:
    assert page.evaluate("() => window.arbiterMark") == "not reloaded"


def test_sprt_tune_and_a_game_live(watch: Watch, browser: Any) -> None:
    sprt, tune = watch.sprt_run, watch.tune_run
    tuning = browser.new_page()
    tuning.goto(f"{watch.base}/runs/{tune}")  # the tuning run's page stays open throughout
    mark(tuning)
    trials_seen = int((tuning.text_content("[data-field=trials]") or "0").split()[0])  # the tally's total

    runs = browser.new_page()
    runs.goto(f"{watch.base}/")
    mark(runs)
    cell = f"tr:has(a[href='/runs/{sprt}']) td:nth-child(6)"
    assert runs.text_content(f"tr:has(a[href='/runs/{sprt}']) td:nth-child(4)") == "running"
    first = number(runs, cell)

    # The SPRT goes on only now that the page has shown its count, and only until the store has
    # counted more: the page must show that, and the run is still running when its page opens.
    def counted_more() -> bool:
        return counted_games(watch.db, sprt) > first

    watch.sprt_workers.resume()
    pause_when(watch.sprt_workers, counted_more, WAIT, "the SPRT to count more games")
    assert run_state(watch.db, sprt) == "running"
    runs.wait_for_function(
        "([sel, n]) => Number(document.querySelector(sel).textContent) > n", arg=[cell, first], timeout=SEE
    )
    assert_not_reloaded(runs)

    runs.click(f"a[href='/runs/{sprt}']")
    runs.wait_for_selector("#live [data-field=games]")
    page = runs
    mark(page)
    games = number(page, "#live [data-field=games]")
    watch.sprt_workers.resume()  # and on to its end, with its page open
    page.wait_for_function(
        "(n) => Number(document.querySelector('#live [data-field=games]').textContent) > n",
        arg=games,
        timeout=SEE,
    )
    assert_not_reloaded(page)
    assert page.locator("svg.plot").count() == 8
    shot = watch.folder / "dashboard.png"
    page.set_viewport_size({"width": 1280, "height": 1700})  # the live line, summary and LLR plot
    page.screenshot(path=str(shot))
    page.set_viewport_size({"width": 1280, "height": 1000})
    assert shot.read_bytes().startswith(b"\x89PNG")
    if os.environ.get("ARBITER_SCREENSHOT") == "1":
        SCREENSHOT.write_bytes(shot.read_bytes())

    # A game of the SPRT, stepped through on its board.
    game = browser.new_page()
    game.goto(f"{watch.base}/runs/{sprt}/games")
    game.click("table tbody tr:first-child td:first-child a")
    game.wait_for_selector("svg.board")
    mark(game)
    record = json.loads(urllib.request.urlopen(f"{watch.base}/api/runs/{sprt}/games", timeout=30).read())[
        "games"
    ][0]["record"]
    played = replay("congo", record["opening"], record["moves"].split(" "))
    assert number(game, "#ply") == 0 and game.text_content("#fen") == played.positions[0]
    for _ in range(3):
        game.click("a[data-step=next]")
    assert number(game, "#ply") == 3 and game.text_content("#fen") == played.positions[3]
    assert game.get_attribute("g.ply[data-ply='3']", "display") == "inline"
    assert game.locator("g.ply[display=inline]").count() == 1
    game.keyboard.press("ArrowLeft")
    assert number(game, "#ply") == 2 and game.text_content("#fen") == played.positions[2]
    game.click("a[data-step=last]")
    assert number(game, "#ply") == played.plies
    game.click("table.moves a[data-ply='1']")
    assert game.text_content("#fen") == played.positions[1]
    assert game.get_attribute("table.moves a[data-ply='1']", "class") == "cur"
    assert_not_reloaded(game)

    # The tuning run's page: trials come in, and a champion is crowned, without a reload.
    watch.tune_workers.resume()
    tuning.wait_for_function(
        "(n) => parseInt(document.querySelector('[data-field=trials]').textContent) > n",
        arg=trials_seen,
        timeout=SEE,
    )
    tuning.wait_for_function(
        "() => document.querySelector('[data-field=champion]').textContent !== '#0'", timeout=SEE
    )
    tuning.wait_for_function(
        "() => document.querySelectorAll('#champions tbody tr').length >= 2", timeout=SEE
    )  # the report's champion table, refreshed in place
    assert_not_reloaded(tuning)
    watch.tune_workers.pause()  # seen: the tuning run plays no more (teardown stops it)

    # The SPRT ends while its page is open: the page shows the decision.
    assert watch.sprt.wait(WAIT) == 0, (watch.folder / "sprt.log").read_text()
    page.wait_for_function(
        "() => document.querySelector('[data-field=state]').textContent === 'finished'", timeout=SEE
    )
    page.wait_for_function(
        "() => document.querySelector('#summary .big').textContent.startsWith('undecided at its game cap')"
        " || document.querySelector('#summary .big').textContent.startsWith('H')",
        timeout=SEE,
    )
    decision = page.text_content("[data-field=decision]")
    assert decision in ("undecided at its game cap", "H1 accepted", "H0 accepted (H1 rejected)")
    assert page.evaluate("() => 'final' in document.querySelector('main').dataset")
    assert_not_reloaded(page)

    assert not watch.errors, watch.errors
    assert not watch.outside, watch.outside
