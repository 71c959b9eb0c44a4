"""Stored strings that try to break outputs: worker names, weights-file and book names, refusal and
quarantine reasons, a run's error, written into a real store (worker names come from workers, file
names from users). Every output that shows them must answer without a traceback or a 500, and
keep its shape: the HTML pages and report have the same tags as with plain strings, a PGN tag is
one line, a terminal line holds no control character, and matplotlib draws them as text (no
mathtext).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from report_testkit import InProcessExecutor, small_config
from sprt_testkit import run_cli
from starlette.testclient import TestClient

from coordinator.runs import RunKind, RunState
from coordinator.sprt.runner import SprtRunner
from coordinator.store import Store
from coordinator.web.app import create_app

HOSTILE = [
    "$x^{$",  # mathtext
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    'line one\n[Event "injected"]\nline three',
    "\x1b[31mred\x1b[0m\x07",
    "\u202eevil\u202c",
    'back\\slash "quoted" {{7*7}} ${x}',
    "tab\tand\rcarriage",
]
#: Plain names that sort as the hostile ones do (tables list workers by name).
PLAIN = [f"plain{sorted(HOSTILE).index(name)}" for name in HOSTILE]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


#: Plots of wall-clock times: their axes (so their ticks, and their tags) follow how fast the
#: machine played each run, not the strings shown.
TIMED_PLOTS = {"throughput", "move-times"}


class Tags(HTMLParser):
    """The sequence of start and end tags of a page (its shape, whatever its text); of a plot of
    wall-clock times, only its ``<svg>`` element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.timed_depth = 0  # > 0 inside a plot of wall-clock times

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.timed_depth:
            self.timed_depth += 1
            return
        self.tags.append(f"<{tag} {' '.join(sorted(name for name, _ in attrs))}>")
        if tag == "svg" and dict(attrs).get("data-plot") in TIMED_PLOTS:
            self.timed_depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.timed_depth:
            self.timed_depth -= 1
            if self.timed_depth:
                return
        self.tags.append(f"</{tag}>")


def shape(html: str) -> list[str]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


def make_store(path: Path, names: list[str]) -> tuple[Store, int]:
    """A finished run whose batches were played by workers named ``names``, whose weights files
    and book are named after them too, with a refusal and a quarantine carrying them."""
    store = Store(f"sqlite:///{path}")
    config = small_config(
        "congo", candidate_source=names[1], baseline_source=names[2], book=names[3], max_games=16
    )
    run_id = store.create_run(RunKind.SPRT, "congo", config.to_json(), config.fingerprint())
    executor = InProcessExecutor(workers=tuple(names[:4]), slots=8)
    SprtRunner(store, run_id, config, executor).run()
    store.refuse_batch(run_id, 99, f"{names[4]}: {names[5]}", worker=names[4])
    store.quarantine_worker(run_id, names[6], f"spot check: {names[7]}")
    store.update_run(run_id, state=RunState.FINISHED, error=names[7])
    return store, run_id


def outputs(store: Store, run_id: int, folder: Path) -> dict[str, Any]:
    """Every output of the run: terminal texts, the HTML report, JSON, PGN, and dashboard pages."""
    url = store.url
    found: dict[str, Any] = {}
    for name, args in {
        "status": ["status", "--all"],
        "status_run": ["status", str(run_id)],
        "report": ["report", str(run_id), "-o", str(folder / "report.html")],
        "report_json": ["report", str(run_id), "--json"],
        "pgn": ["games", str(run_id), "--format", "pgn"],
        "jsonl": ["games", str(run_id), "--format", "jsonl"],
    }.items():
        done = run_cli(*args, "--store", url, cwd=folder)
        assert done.returncode == 0, (name, done.stderr)
        assert "Traceback" not in done.stderr, (name, done.stderr)
        found[name] = done.stdout
    found["report_html"] = (folder / "report.html").read_text()
    client = TestClient(create_app(Store(url, read_only=True)))
    pages = {
        "runs": "/",
        "run": f"/runs/{run_id}",
        "games": f"/runs/{run_id}/games",
        "game": f"/runs/{run_id}/games/0/0",
        "game_pgn": f"/runs/{run_id}/games/0/1.pgn",
        "report_file": f"/runs/{run_id}/report.html",
        "workers": "/workers",
        "api_run": f"/api/runs/{run_id}",
        "api_games": f"/api/runs/{run_id}/games",
        "api_runs": "/api/runs",
    }
    for name, path in pages.items():
        answer = client.get(path)
        assert answer.status_code == 200, (name, answer.status_code, answer.text[:300])
        found[name] = answer.text
    return found


@dataclass
class Made:
    """The outputs of a run made with hostile strings and of the same run with plain ones, and the
    hostile store's URL and worker names."""

    hostile: dict[str, Any]
    plain: dict[str, Any]
    url: str
    workers: list[str]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    found = []
    for label, names in (("hostile", HOSTILE), ("plain", PLAIN)):
        folder = tmp_path_factory.mktemp(label)
        store, run_id = make_store(folder / "store.db", names)
        found.append((outputs(store, run_id, folder), store.url, sorted(w.worker for w in store.workers())))
        store.close()
    (hostile, url, workers), (plain, _, _) = found
    return Made(hostile, plain, url, workers)


def test_pages_and_the_report_keep_their_shape(made: Made) -> None:
    for name in ("report_html", "runs", "run", "games", "game", "workers"):
        assert shape(made.hostile[name]) == shape(made.plain[name]), name
        assert "<script>alert(1)" not in made.hostile[name]
        assert "<img src=x" not in made.hostile[name]


def test_worker_pages_answer_for_every_hostile_name(made: Made) -> None:
    client = TestClient(create_app(Store(made.url, read_only=True)))
    assert len(made.workers) >= 4
    for worker in made.workers:
        answer = client.get(f"/workers/{quote(worker, safe='')}")
        assert answer.status_code in (200, 404), (worker, answer.status_code)
        assert "<script>alert(1)" not in answer.text


def test_terminal_outputs_hold_no_control_characters(made: Made) -> None:
    hostile, plain = made.hostile, made.plain
    for name in ("status", "status_run", "report"):
        for line in hostile[name].splitlines():
            assert not CONTROL.search(line), (name, line)
            assert not line.lstrip().startswith(('[Event "injected"]', "line three")), (name, line)
    for name in ("status", "status_run"):  # no wrapped lines there: one line per row, as with plain names
        assert len(hostile[name].splitlines()) == len(plain[name].splitlines()), name


def test_pgn_tags_are_one_line_each(made: Made) -> None:
    hostile, plain = made.hostile, made.plain
    tag = re.compile(r'^\[[A-Za-z0-9_]+ "(?:[^"\\]|\\.)*"\]$')
    for line in hostile["pgn"].splitlines():
        if line.startswith("["):
            assert tag.match(line), line
            assert not CONTROL.search(line), line
    assert len(hostile["pgn"].splitlines()) == len(plain["pgn"].splitlines())
    assert '[Event "injected"]' not in hostile["pgn"]


def test_json_outputs_read_back(made: Made) -> None:
    hostile = made.hostile
    report = json.loads(hostile["report_json"])
    assert {w["worker"] for w in report["workers"]["workers"]} >= {HOSTILE[0], HOSTILE[1]}
    for line in hostile["jsonl"].splitlines():
        json.loads(line)
    for name in ("api_run", "api_games", "api_runs"):
        json.loads(hostile[name])
