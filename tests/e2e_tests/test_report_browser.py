"""The HTML reports in a real headless browser: Debian's Chromium, driven by Playwright (which is
pointed at it; no browser is downloaded). Each report must load with no console error, make no
network request at all, and draw every plot at a size greater than zero.

Reports: a finished SPRT, an SPRT in progress, a finished tuning run, a run with no game and one with
a single game, for both games. In CI (``$CI`` set) a missing Chromium fails these tests, naming
``scripts/ensure-chromium.sh``; elsewhere they skip with the same hint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from report_testkit import GAMES, FinishedRuns, copy_store, empty_run, one_game_run, running_run, url
from sprt_testkit import run_cli

from coordinator.reports import build, html_page
from coordinator.store import Store

MATCH_SECTIONS = (
    "summary",
    "engines",
    "sprt",
    "outcomes",
    "endings",
    "openings",
    "workers",
    "throughput",
    "config",
)
TUNE_SECTIONS = ("summary", "champions", "trials", "acceptance", "weights", "optimizer", "effort", "config")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory, finished: FinishedRuns) -> dict[str, Path]:
    """HTML reports of every kind of run, written by ``arbiter report`` (a finished SPRT), by
    ``arbiter tune`` at its end (a finished tuning run) or by the same functions in-process (the
    rest, added to a copy of the finished runs' store)."""
    folder = tmp_path_factory.mktemp("report-browser")
    db = copy_store(finished.db, folder / "store.db")
    out: dict[str, Path] = {}
    store = Store(url(db))
    for game in GAMES:
        target = folder / f"sprt-{game}.html"
        done = run_cli("report", str(finished.ids[f"sprt-{game}"]), "-o", str(target), "--store", url(db))
        assert done.returncode == 0, done.stderr
        out[f"sprt-{game}"] = target
        out[f"tune-{game}"] = finished.folder / f"{finished.ids[f'tune-{game}']}-report.html"
        made = {
            "running": running_run(store, game),
            "empty": empty_run(store, game),
            "one": one_game_run(store, game),
        }
        for kind, run_id in made.items():
            run = store.get_run(run_id)
            assert run is not None
            target = folder / f"{kind}-{game}.html"
            target.write_text(html_page(build(store, run)))
            out[f"{kind}-{game}"] = target
    store.close()
    return out


@pytest.mark.parametrize("kind", ["sprt", "running", "tune", "empty", "one"])
@pytest.mark.parametrize("game", GAMES)
def test_report_opens_offline_without_errors(
    chromium: Any, reports: dict[str, Path], kind: str, game: str
) -> None:
    path = reports[f"{kind}-{game}"]
    page_url = path.resolve().as_uri()
    context = chromium.new_context(viewport={"width": 1200, "height": 900})
    requests: list[str] = []
    errors: list[str] = []

    def route(route: Any) -> None:
        if route.request.url == page_url:
            route.continue_()
        else:  # anything else would be a network (or file) load: record it and refuse it
            requests.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: requests.append(r.url) if r.url != page_url else None)
    try:
        response = page.goto(page_url, wait_until="load")
        assert response is None or response.ok
        sizes = page.evaluate(
            """() => [...document.querySelectorAll('svg.plot')].map(s => {
                const r = s.getBoundingClientRect();
                return {name: s.dataset.plot, width: r.width, height: r.height,
                        drawn: s.querySelectorAll('path, text, use').length};
            })"""
        )
        sections = page.evaluate("() => [...document.querySelectorAll('section')].map(s => s.id)")
    finally:
        context.close()
    assert not errors, errors
    assert not requests, requests
    expected = 7 if kind == "tune" else 8
    assert len(sizes) == expected, sizes
    for plot in sizes:
        assert plot["width"] > 0 and plot["height"] > 0 and plot["drawn"] > 0, plot
    assert tuple(sections) == (TUNE_SECTIONS if kind == "tune" else MATCH_SECTIONS)
