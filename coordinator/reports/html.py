"""The report as one self-contained HTML page: inline CSS, inline SVG plots, no script, nothing
loaded from anywhere (no CDN, no web font, no image file), so it opens offline and can be mailed.

The page keeps its parts (:class:`ReportPage`), so that the dashboard (``coordinator.web``) shows
the very same sections inside a page of its own."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from coordinator.escape import terminal
from coordinator.reports.data import RunInfo
from coordinator.reports.engines import FAULT_KINDS, FAULT_LABELS, Faults, SideTimes, WorkerEngines

#: The report's style sheet (the dashboard's pages use it too).
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem;color:#222;line-height:1.4}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.2rem;border-bottom:1px solid #ddd;
padding-bottom:.2rem;margin-top:2rem}h3{font-size:1rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right;vertical-align:top}
th{background:#f4f4f4}td.l,th.l{text-align:left}
figure{margin:.8rem 0}figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:.85rem;color:#555}
pre,code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.flag{background:#fdd}.yellow{background:#ffc}.ok{background:#dfd}
.muted{color:#666}.big{font-size:1.1rem;font-weight:600}
nav a{margin-right:.8rem}
"""


class Markup(str):
    """Text that is HTML already (a link, say): :func:`esc` leaves it as it is."""


class Section(str):
    """A section's HTML that also keeps its key and how the table of contents names it."""

    key: str
    label: str


class ReportPage(str):
    """A report's whole HTML document that also keeps its parts: its heading, its table of
    contents as (section key, title) pairs, and its sections' HTML in order."""

    heading: str
    contents: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]


def esc(value: Any) -> str:
    """Any value as escaped HTML text (None as a dash; :class:`Markup` as it is)."""
    if isinstance(value, Markup):
        return value
    return "-" if value is None else escape(str(value))


def fmt(value: float | None, spec: str = ".1f") -> str:
    """A number as text, or a dash."""
    return "-" if value is None else format(value, spec)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    left: Sequence[int] = (0,),
    cls: Sequence[str] | None = None,
) -> str:
    """An HTML table; columns in ``left`` are left-aligned; ``cls`` gives each row a class."""
    head = "".join(f'<th class="{"l" if i in left else ""}">{esc(h)}</th>' for i, h in enumerate(headers))
    body = []
    for n, row in enumerate(rows):
        cells = "".join(f'<td class="{"l" if i in left else ""}">{esc(v)}</td>' for i, v in enumerate(row))
        klass = f' class="{cls[n]}"' if cls is not None and cls[n] else ""
        body.append(f"<tr{klass}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def pairs_table(items: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of names and values."""
    rows = "".join(f'<tr><th class="l">{esc(k)}</th><td class="l">{esc(v)}</td></tr>' for k, v in items)
    return f"<table><tbody>{rows}</tbody></table>"


def figure(svg: str, caption: str) -> str:
    """A plot and its caption."""
    return f'<figure class="plot-figure">{svg}<figcaption>{escape(caption)}</figcaption></figure>'


def section(key: str, title: str, *parts: str, label: str | None = None) -> Section:
    """A titled section with an anchor; the table of contents names it ``label`` (default: its
    title)."""
    made = Section(f'<section id="{key}"><h2>{escape(title)}</h2>{"".join(parts)}</section>')
    made.key = key
    made.label = title if label is None else label
    return made


def contents_nav(nav: Sequence[tuple[str, str]]) -> str:
    """The table of contents: a link to each section."""
    return "<nav>" + "".join(f'<a href="#{k}">{escape(t)}</a>' for k, t in nav) + "</nav>"


def unverifiable_html(note: str | None) -> str:
    """The report's "unverifiable" line (coordinator.trust.verifiable), or nothing."""
    return f'<p class="big" id="unverifiable">{esc(note)}</p>' if note else ""


def page(title: str, *sections: Section, note: str = "") -> ReportPage:
    """The whole document (which keeps its parts): the table of contents names its sections in
    order; ``note`` goes under the title."""
    nav = tuple((s.key, s.label) for s in sections)
    document = ReportPage(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>{note}{contents_nav(nav)}{''.join(sections)}"
        '<p class="muted">Written by <code>arbiter report</code>; see docs/reports.md for how to '
        "read it.</p></body></html>\n"
    )
    document.heading = title
    document.contents = nav
    document.sections = sections
    return document


def interval(value: float, low: float, high: float) -> str:
    """``+1.0 [-2.0, +4.0]``."""
    return f"{value:+.1f} [{low:+.1f}, {high:+.1f}]"


def run_table(run: RunInfo) -> str:
    """Identity and state of the run."""
    items: list[tuple[str, Any]] = [
        ("run", f"{run.id} ({run.kind}, {run.game})"),
        ("state", run.state),
        ("decision", run.decision_label or run.decision),
        ("started", run.created_at),
        ("last update", run.updated_at),
        ("finished", run.finished_at),
        ("engine version", run.engine_version),
    ]
    if run.parent:
        items.append(("tuning run", run.parent))
    if run.error:
        items.append(("error", run.error))
    return pairs_table(items)


def command_html(command: str, notes: Sequence[str]) -> str:
    """The command that reproduces the run, and what it cannot say."""
    listed = "".join(f"<li>{esc(n)}</li>" for n in notes)
    return f'<pre>{esc(command)}</pre><ul class="muted">{listed}</ul>'


def config_html(config: dict[str, Any]) -> str:
    """Every stored setting of the run (the openings only counted)."""
    items = []
    for key, value in config.items():
        text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else value
        items.append((key, text))
    return pairs_table(items)


def reproduction(command: str, notes: Sequence[str], config: dict[str, Any]) -> Section:
    """The section of the command that reproduces the run and its stored configuration."""
    return section(
        "config",
        "Configuration and reproduction",
        "<h3>Command</h3>",
        command_html(command, notes),
        "<h3>Stored configuration</h3>",
        config_html(config),
        label="Configuration",
    )


def _fault_cells(f: Faults) -> list[Any]:
    return [f.total, *(f.counts[k] for k in FAULT_KINDS)]


def move_times_table(heads: list[str], rows: list[tuple[list[Any], SideTimes]]) -> str:
    """The time per move of each side or engine: ``rows`` are its first cells (under ``heads``)
    and its times."""
    return table(
        [*heads, "moves timed", "mean ms per move", "total s"],
        [[*cells, t.moves, fmt(t.mean_ms), f"{t.total_ms / 1000:.1f}"] for cells, t in rows],
        left=tuple(range(len(heads))),
    )


def faults_table(heads: list[str], rows: list[tuple[list[Any], Faults]]) -> str:
    """The faults of each side or engine by kind, and the last one's reason: ``rows`` are its
    first cells (under ``heads``) and its faults."""
    return table(
        [*heads, "faults", *(FAULT_LABELS[k] for k in FAULT_KINDS), "last reason"],
        [
            [*cells, *_fault_cells(f), terminal(f.last.reason if f.last is not None else "")]
            for cells, f in rows
        ],
        left=(*range(len(heads)), len(heads) + 1 + len(FAULT_KINDS)),
    )


def by_worker_table(workers: Sequence[WorkerEngines]) -> str:
    """Each worker's time factor (mean, least, most) and the faults in its games."""
    return table(
        ["worker", "time factor", "min", "max", "faults", *(FAULT_LABELS[k] for k in FAULT_KINDS)],
        [
            [
                w.worker,
                fmt(w.time_factor, ".2f"),
                fmt(w.time_factor_min, ".2f"),
                fmt(w.time_factor_max, ".2f"),
                *_fault_cells(w.faults),
            ]
            for w in workers
        ],
    )


def last_fault(who: str, faults: Faults) -> str:
    """The last fault of ``who`` (a side, an engine): its reason, where it happened, its stderr
    lines; empty without a fault."""
    f = faults.last
    if f is None:
        return ""
    return (
        f"<h3>Last fault of {esc(terminal(who))}</h3><p>{esc(terminal(f.reason))} "
        f"(worker {esc(f.worker)}, batch {esc(f.batch)}, game {esc(f.game)})</p>"
        + (
            f"<pre>{esc(chr(10).join(terminal(line) for line in f.stderr))}</pre>"
            if f.stderr
            else '<p class="muted">no stderr</p>'
        )
    )


def noted(document: str, unverifiable: str | None) -> ReportPage:
    """``document`` (made by ``page()``) with the report's "unverifiable" note, if it has one."""
    if not isinstance(document, ReportPage):
        raise TypeError("a report page must be made by html.page()")
    if unverifiable:
        return page(document.heading, *document.sections, note=unverifiable_html(unverifiable))
    return document
