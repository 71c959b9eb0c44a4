"""The report as one self-contained HTML page: inline CSS, inline SVG plots, no script, nothing
loaded from anywhere (no CDN, no web font, no image file), so it opens offline and can be mailed.

The page keeps its parts (:class:`ReportPage`), so that the dashboard (``coordinator.web``) shows
the very same sections inside a page of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from coordinator.escape import terminal
from coordinator.reports.engines import FAULT_KINDS, FAULT_LABELS
from coordinator.sprt.report import duration
from coordinator.tuning.outcomes import tally_text

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


class ReportPage(str):
    """A report's whole HTML document that also keeps its parts: its heading, its table of
    contents as (section key, title) pairs, and its sections' HTML in order."""

    heading: str
    contents: tuple[tuple[str, str], ...]
    sections: tuple[str, ...]


_SECTION_KEY = re.compile(r'<section id="([^"]*)">')


def section_key(html: str) -> str | None:
    """The key of a section made by :func:`section`, or None for other HTML."""
    found = _SECTION_KEY.match(html)
    return found.group(1) if found else None


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


def section(key: str, title: str, *parts: str) -> str:
    """A titled section with an anchor."""
    return f'<section id="{key}"><h2>{escape(title)}</h2>{"".join(parts)}</section>'


def contents_nav(nav: Sequence[tuple[str, str]]) -> str:
    """The table of contents: a link to each section."""
    return "<nav>" + "".join(f'<a href="#{k}">{escape(t)}</a>' for k, t in nav) + "</nav>"


def unverifiable_html(data: dict[str, Any]) -> str:
    """The report's "unverifiable" line (coordinator.trust.verifiable), or nothing."""
    note = data.get("unverifiable")
    return f'<p class="big" id="unverifiable">{esc(note)}</p>' if note else ""


def page(title: str, nav: Sequence[tuple[str, str]], *sections: str, note: str = "") -> ReportPage:
    """The whole document (which keeps its parts); ``note`` goes under the title."""
    document = ReportPage(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>{note}{contents_nav(nav)}{''.join(sections)}"
        '<p class="muted">Written by <code>arbiter report</code>; see docs/reports.md for how to '
        "read it.</p></body></html>\n"
    )
    document.heading = title
    document.contents = tuple(nav)
    document.sections = sections
    return document


def _interval(value: float, low: float, high: float) -> str:
    """``+1.0 [-2.0, +4.0]``."""
    return f"{value:+.1f} [{low:+.1f}, {high:+.1f}]"


def _run_table(run: dict[str, Any]) -> str:
    """Identity and state of the run."""
    items = [
        ("run", f"{run['id']} ({run['kind']}, {run['game']})"),
        ("state", run["state"]),
        ("decision", run["decision_label"] or run["decision"]),
        ("started", run["created_at"]),
        ("last update", run["updated_at"]),
        ("finished", run["finished_at"]),
        ("engine version", run["engine_version"]),
    ]
    if run.get("parent"):
        items.append(("tuning run", run["parent"]))
    if run.get("error"):
        items.append(("error", run["error"]))
    return pairs_table(items)


def _command(data: dict[str, Any]) -> str:
    """The command that reproduces the run, and what it cannot say."""
    notes = "".join(f"<li>{esc(n)}</li>" for n in data["command_notes"])
    return f'<pre>{esc(data["command"])}</pre><ul class="muted">{notes}</ul>'


def _config(data: dict[str, Any]) -> str:
    """Every stored setting of the run (the openings only counted)."""
    items = []
    for key, value in data["config"].items():
        text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else value
        items.append((key, text))
    return pairs_table(items)


def _fault_cells(f: dict[str, Any]) -> list[Any]:
    return [f["total"], *(f[k] for k in FAULT_KINDS)]


def move_times_table(heads: list[str], rows: list[tuple[list[Any], dict[str, Any]]]) -> str:
    """The time per move of each side or engine: ``rows`` are its first cells (under ``heads``)
    and its times (``MoveTimes``)."""
    return table(
        [*heads, "moves timed", "mean ms per move", "total s"],
        [[*cells, t["moves"], fmt(t["mean_ms"]), f"{t['total_ms'] / 1000:.1f}"] for cells, t in rows],
        left=tuple(range(len(heads))),
    )


def faults_table(heads: list[str], rows: list[tuple[list[Any], dict[str, Any]]]) -> str:
    """The faults of each side or engine by kind, and the last one's reason: ``rows`` are its
    first cells (under ``heads``) and its faults."""
    return table(
        [*heads, "faults", *(FAULT_LABELS[k] for k in FAULT_KINDS), "last reason"],
        [[*cells, *_fault_cells(f), terminal((f["last"] or {}).get("reason", ""))] for cells, f in rows],
        left=(*range(len(heads)), len(heads) + 1 + len(FAULT_KINDS)),
    )


def last_fault(who: str, faults: dict[str, Any]) -> str:
    """The last fault of ``who`` (a side, an engine): its reason, where it happened, its stderr
    lines; empty without a fault."""
    f = faults["last"]
    if f is None:
        return ""
    return (
        f"<h3>Last fault of {esc(terminal(who))}</h3><p>{esc(terminal(f['reason']))} "
        f"(worker {esc(f['worker'])}, batch {esc(f['batch'])}, game {esc(f['game'])})</p>"
        + (
            f"<pre>{esc(chr(10).join(terminal(line) for line in f['stderr']))}</pre>"
            if f["stderr"]
            else '<p class="muted">no stderr</p>'
        )
    )


def engines_html(data: dict[str, Any], plots: dict[str, str]) -> str:
    """The engines section: each side's name, version, options and commit, the limits, the time
    per move, and the faults (per engine and per worker, the last with its stderr lines)."""
    e = data["engines"]
    sides = table(
        ["side", "name", "kind", "version (id name)", "options", "commit", "from"],
        [
            [
                side,
                s["name"],
                s["kind"],
                terminal(s["version"] or "not reported"),
                " ".join(f"{k}={v}" for k, v in s["options"].items()),
                ""
                if s["commit"] is None
                else terminal(f"{s['commit']['sha']} {s['commit']['subject'] or ''}"),
                s["source"],
            ]
            for side, s in e["sides"].items()
        ],
        left=(0, 1, 2, 3, 4, 5, 6),
    )
    others = [
        f"{side} also reported: "
        + "; ".join(f"{r['name']} by {r['author']} ({r['batches']} batches)" for r in s["reported"][1:])
        for side, s in e["sides"].items()
        if len(s["reported"]) > 1
    ]
    move_times = move_times_table(
        ["side", "name"], [([side, e["sides"][side]["name"]], t) for side, t in e["move_times"].items()]
    )
    faults = faults_table(
        ["side", "name"], [([side, s["name"]], s["faults"]) for side, s in e["sides"].items()]
    )
    by_worker = table(
        ["worker", "time factor", "min", "max", "faults", *(FAULT_LABELS[k] for k in FAULT_KINDS)],
        [
            [
                w["worker"],
                fmt(w["time_factor"], ".2f"),
                fmt(w["time_factor_min"], ".2f"),
                fmt(w["time_factor_max"], ".2f"),
                *_fault_cells(w["faults"]),
            ]
            for w in e["workers"]
        ],
    )
    last = [last_fault(f"the {side}", s["faults"]) for side, s in e["sides"].items()]
    plot = (
        [figure(plots["move_times"], "Mean time per move at each move number.")]
        if "move_times" in plots
        else []
    )
    return section(
        "engines",
        "Engines",
        sides,
        "".join(f'<p class="muted">{esc(line)}</p>' for line in others),
        f"<p>Limits: {esc(e['limits'])} (PGN TimeControl {esc(e['time_control'])}).</p>",
        "<h3>Time per move</h3>",
        *plot,
        move_times,
        "<h3>Faults</h3>",
        faults,
        *last,
        "<h3>Per worker</h3>",
        '<p class="muted">The factor each worker scaled time limits by (its speed against the reference '
        "machine; 1 for node and depth limits), and the faults in the games it played.</p>",
        by_worker,
    )


def match_html(data: dict[str, Any], plots: dict[str, str]) -> str:
    """The page of a match report."""
    r, h, t, s = data["run"], data["hypothesis"], data["totals"], data["stats"]
    headline = f'<p class="big">{esc(data["headline"])}</p>' + (
        f"<p>{esc(data['ending'])}</p>" if data["ending"] else ""
    )
    hypothesis = pairs_table(
        [
            ("H0 / H1", f"{h['elo0']:g} / {h['elo1']:g} Elo"),
            ("Elo model", h["elo_model"]),
            ("alpha / beta", f"{h['alpha']:g} / {h['beta']:g}"),
            ("bounds", f"{h['lower_bound']:.3f} / {h['upper_bound']:.3f}"),
            ("batch", f"{h['batch_pairs']} pairs"),
            ("game budget", h["max_games"] if h["max_games"] is not None else "none"),
        ]
    )
    if s is not None:
        lo, hi = s["sprt_elo_ci"]
        nlo, nhi = s["nelo_ci"]
        numbers = pairs_table(
            [
                ("LLR", f"{s['llr']:.3f}"),
                ("Elo (fixed sample)", f"{s['elo']:.2f} ± {s['elo95']:.2f} (95%)"),
                ("LOS", f"{100 * s['los']:.2f}%"),
                ("SPRT-aware Elo", f"{s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}] (95%)"),
                ("SPRT-aware LOS", f"{100 * s['sprt_los']:.2f}%"),
                ("nElo", f"{s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}] (95%)"),
            ]
        )
    else:
        numbers = '<p class="muted">No game pair counted yet: no Elo.</p>'
    counts = table(
        ["", "LL", "LD", "DD/WL", "WD", "WW", "pairs"], [["pentanomial", *t["pentanomial"], t["pairs"]]]
    ) + table(["", "W", "D", "L", "games"], [["candidate", *t["wdl"], t["games"]]])
    endings = table(
        [
            "reason",
            "decided by",
            "games",
            "cand. white W",
            "D",
            "L",
            "cand. black W",
            "D",
            "L",
            "1-0",
            "½-½",
            "0-1",
        ],
        [
            [
                e["reason"],
                e["kind"],
                e["games"],
                *(e["candidate_white"][k] for k in "WDL"),
                *(e["candidate_black"][k] for k in "WDL"),
                e["white_wins"],
                e["draws"],
                e["black_wins"],
            ]
            for e in data["endings"]
        ],
        left=(0, 1),
    )
    g = data["length"]
    length = pairs_table(
        [
            ("games", g["games"]),
            ("mean plies", fmt(g["mean"])),
            ("median", g["median"]),
            ("min", g["min"]),
            ("max", g["max"]),
        ]
    )
    o = data["openings"]
    share = o["most_decisive_share"]
    opening_rows = [
        [row["opening"], row["pairs"], fmt(row["points"], "g"), f"{row['net']:+.1f}"]
        for row in o["helped"] + o["hurt"]
    ]
    openings = (
        f"<p>{o['played']} openings played in {o['pairs']} pairs; candidate's net "
        f"{o['net']:+.1f} points; the most decisive opening holds "
        f"{'-' if share is None else f'{100 * share:.0f}%'} of the total swing.</p>"
        + table(["opening", "pairs", "points", "net"], opening_rows)
    )
    w = data["workers"]
    check = w["check"]
    workers = table(
        [
            "worker",
            "batches",
            "games",
            "games/s (cpu)",
            "knodes/s (cpu)",
            "refused answers",
            "time factor",
            "faults",
            "pentanomial",
            "residual",
            "flag",
            "quarantine",
        ],
        [
            [
                wk["worker"],
                wk["batches"],
                wk["games"],
                fmt(wk["games_per_second"]),
                fmt(None if wk["nodes_per_second"] is None else wk["nodes_per_second"] / 1000),
                wk["refused"],
                fmt(wk["time_factor"], ".2f"),
                wk["faults"],
                " ".join(map(str, wk["pentanomial"])),
                fmt(wk["residual"], ".2f"),
                "OUTLIER" if wk["flagged"] else wk["level"],
                wk["quarantined"] or "",
            ]
            for wk in w["workers"]
        ],
        left=(0, 11),
        cls=[
            "flag" if wk["flagged"] or wk["quarantined"] else "yellow" if wk["level"] == "yellow" else ""
            for wk in w["workers"]
        ],
    ) + (
        f'<p class="muted">chi² {fmt(check["chi2"], ".2f")} with {check["dof"]} degrees of freedom, '
        f"p {fmt(check['p'], '.3g')}; thresholds z95 {fmt(check['z_95'], '.2f')}, "
        f"z99 {fmt(check['z_99'], '.2f')}. {w['resent']} re-sends (batches sent again after no worker "
        f"answered in time) and {w['refused_batches']} batches with a refusal in all.</p>"
    )
    refusals = (
        table(
            ["batch", "attempts", "state", "last reason"],
            [[x["batch"], x["attempts"], x["state"], x["reason"]] for x in data["refusals"]],
            left=(3,),
        )
        if data["refusals"]
        else '<p class="muted">No result was refused.</p>'
    )
    batches = (
        f"<p>{t['counted_batches']} batches counted, {t['stored_batches']} stored, "
        f"{t['cpu_seconds']:.1f} s of worker CPU.</p>"
    )
    title = f"arbiter report: run {r['id']} ({r['kind']} {r['game']})"
    nav = [
        ("summary", "Summary"),
        ("engines", "Engines"),
        ("sprt", "LLR & Elo"),
        ("outcomes", "Outcomes"),
        ("endings", "Endings"),
        ("openings", "Openings"),
        ("workers", "Workers"),
        ("throughput", "Throughput"),
        ("config", "Configuration"),
    ]
    return page(
        title,
        nav,
        section(
            "summary",
            "Summary",
            headline,
            _run_table(r),
            "<h3>Hypothesis</h3>",
            hypothesis,
            "<h3>Statistics</h3>",
            numbers,
        ),
        engines_html(data, plots),
        section(
            "sprt",
            "LLR and Elo over games",
            figure(
                plots["llr"],
                "LLR after each counted batch; the run stops when it leaves the band between the bounds.",
            ),
            figure(
                plots["elo"],
                "Fixed-sample Elo and its 95% band after each batch; the diamond is the SPRT-aware "
                "estimate at the end.",
            ),
        ),
        section(
            "outcomes",
            "Pentanomial and W/D/L",
            figure(plots["outcomes"], "Game pairs and games, from the candidate's view."),
            counts,
        ),
        section(
            "endings",
            "How games ended",
            figure(plots["endings"], "Per reason (rules or adjudication) and the candidate's colour."),
            endings,
            "<h3>Game length</h3>",
            figure(plots["length"], "Plies per game."),
            length,
        ),
        section(
            "openings",
            "Openings",
            figure(plots["openings"], "Net pair points per opening: 0 is an even pair."),
            openings,
        ),
        section(
            "workers",
            "Workers",
            figure(
                plots["workers"], "fishtest's chi² residual per worker; beyond z99 the worker is flagged."
            ),
            workers,
            "<h3>Refusals</h3>",
            refusals,
        ),
        section(
            "throughput",
            "Throughput",
            figure(plots["throughput"], "Counted games per second of wall-clock time."),
            batches,
        ),
        section(
            "config",
            "Configuration and reproduction",
            "<h3>Command</h3>",
            _command(data),
            "<h3>Stored configuration</h3>",
            _config(data),
        ),
    )


def _tune_champions(data: dict[str, Any], plots: dict[str, str]) -> str:
    """The champion chain section (with each acceptance setting's view when there are several)."""
    reigns = {x["champion"]: x for x in data["reigns"]}
    what = "trial" if data.get("method", "optuna") == "optuna" else "after iteration"
    champions = table(
        [
            "champion",
            what,
            "Elo vs start",
            "± 95%",
            "SPRT Elo vs parent",
            "games before",
            "crowned",
            "games",
            "time",
            "games/s",
        ],
        [
            [
                f"#{c['number']}",
                c["trial"] if c["trial"] is not None else "start",
                f"{c['elo_vs_start']:+.1f}",
                fmt(c["elo_vs_start95"]),
                "-" if c["number"] == 0 else _interval(c["elo_vs_parent"], *c["elo_vs_parent_ci"]),
                c["games_before"],
                c["crowned_at"],
                reigns.get(c["number"], {}).get("games"),
                duration(reigns.get(c["number"], {}).get("seconds")),
                fmt(reigns.get(c["number"], {}).get("games_per_second")),
            ]
            for c in data["champions"]
        ],
    )
    stages = data.get("stages") or []
    by_stage = ""
    if len(stages) > 1:
        by_stage = "<h3>At each acceptance setting</h3>" + table(
            ["champion", *(v["setting"] for v in stages)],
            [
                [f"#{c['number']}"]
                + [
                    f"{v['champions'][n]['elo_vs_start']:+.1f} ± {v['champions'][n]['elo_vs_start95']:.1f}"
                    for v in stages
                ]
                for n, c in enumerate(data["champions"])
            ],
        )
    return section(
        "champions",
        "Champion chain",
        figure(
            plots["champions"],
            "Each champion's Elo against the start weights (95% bars), at the games played when "
            "it was crowned (the first acceptance setting's SPRTs).",
        ),
        champions,
        by_stage,
    )


def _tune_acceptances(data: dict[str, Any], plots: dict[str, str]) -> str:
    """The acceptance SPRTs section: one row per SPRT, with its setting."""
    what = "trial" if data.get("method", "optuna") == "optuna" else "iteration"
    accept = (
        table(
            [
                "run",
                what,
                "setting",
                "vs champion",
                "games",
                "LLR",
                "bounds",
                "ending",
                "SPRT Elo (95%)",
                "crowned",
            ],
            [
                [
                    a["run_id"],
                    a["trial"],
                    a["setting"],
                    f"#{a['champion']}",
                    a["games"],
                    f"{a['series']['llr'][-1]:.2f}" if a["series"]["llr"] else "0.00",
                    f"{a['lower_bound']:.2f} / {a['upper_bound']:.2f}",
                    a["ending"],
                    "-" if a["sprt_elo"] is None else _interval(a["sprt_elo"]["elo"], *a["sprt_elo"]["ci"]),
                    "yes" if a["crowned"] else "no",
                ]
                for a in data["acceptances"]
            ],
        )
        if data["acceptances"]
        else '<p class="muted">No candidate went to an acceptance SPRT.</p>'
    )
    return section(
        "acceptance",
        "Acceptance SPRTs",
        figure(plots["acceptance"], "LLR over games of each acceptance SPRT, with the bounds."),
        accept,
    )


def _tune_weights(data: dict[str, Any], plots: dict[str, str]) -> str:
    """The final weights section."""
    weights = table(
        ["weight", "meaning", "range", "default", "start", "final", "change", "tuned"],
        [
            [
                w["name"],
                w["description"],
                f"{w['min']}..{w['max']}",
                w["default"],
                w["start"],
                w["final"],
                f"{w['change']:+d}",
                "yes" if w["tuned"] else "no",
            ]
            for w in data["weights"]
        ],
        left=(0, 1),
    )
    return section(
        "weights",
        "Final weights",
        figure(
            plots["weights"],
            "Each weight's engine default, start value and final champion value within its range.",
        ),
        weights,
    )


def _tune_effort(data: dict[str, Any], plots: dict[str, str]) -> str:
    """Games and time per champion."""
    effort = table(
        ["champion", "games", "time", "games/s"],
        [
            [f"#{x['champion']}", x["games"], duration(x["seconds"]), fmt(x["games_per_second"])]
            for x in data["reigns"]
        ],
    )
    return section(
        "effort",
        "Games and time per champion",
        figure(plots["reigns"], "Games played while each champion reigned, and their speed."),
        effort,
    )


def _tune_config(data: dict[str, Any]) -> str:
    """Configuration and reproduction."""
    return section(
        "config",
        "Configuration and reproduction",
        "<h3>Command</h3>",
        _command(data),
        "<h3>Stored configuration</h3>",
        _config(data),
    )


def _tune_headline(t: dict[str, Any], work: str) -> str:
    """The champion's Elo against the start, after ``work``."""
    return (
        f'<p class="big">champion #{t["champion"]}: {t["champion_elo"]:+.1f} ± {t["champion_elo95"]:.1f} Elo '
        f"above the start weights after {work} and {t['games']} games</p>"
    )


def spsa_html(data: dict[str, Any], plots: dict[str, str]) -> ReportPage:
    """The page of an SPSA tuning report."""
    r, t, v = data["run"], data["totals"], data["spsa"]
    summary = pairs_table(
        [
            (
                "iterations",
                f"{v['applied']} applied of {v['iterations']} ({v['pairs_per_iteration']} pairs each)",
            ),
            ("theta+ results", f"{v['wins']} wins, {v['losses']} losses"),
            ("games", t["games"]),
            ("time", duration(t["seconds"])),
            ("games/s", fmt(t["games_per_second"])),
        ]
    )
    plan = pairs_table(
        [
            ("A / alpha / gamma", f"{v['A']:g} / {v['alpha']:g} / {v['gamma']:g}"),
            ("lag", f"iteration k plays theta after iterations 0..k-{v['lag'] + 1}"),
            (
                "acceptance",
                f"every {v['accept_every']} games and at the end" if v["accept_every"] else "at the end",
            ),
        ]
    )
    start = v["path"][0]["theta"]
    theta = table(
        ["weight", "range", "c_end", "r_end", "start", "theta", "change"],
        [
            [
                w["name"],
                f"{w['min']}..{w['max']}",
                f"{w['c_end']:.3g}",
                f"{w['r_end']:g}",
                f"{start[w['name']]:.0f}",
                f"{v['theta'][w['name']]:.2f}",
                f"{v['theta'][w['name']] - start[w['name']]:+.2f}",
            ]
            for w in v["weights"]
        ],
    )
    title = f"arbiter report: tuning run {r['id']} ({r['game']}, SPSA)"
    nav = [
        ("summary", "Summary"),
        ("theta", "Path of theta"),
        ("champions", "Champions"),
        ("acceptance", "Acceptance SPRTs"),
        ("weights", "Weights"),
        ("effort", "Effort"),
        ("config", "Configuration"),
    ]
    return page(
        title,
        nav,
        section(
            "summary",
            "Summary",
            _tune_headline(t, f"{v['applied']} SPSA iterations"),
            _run_table(r),
            summary,
            plan,
        ),
        section(
            "theta",
            "Path of theta",
            figure(
                plots["theta"],
                "Each tuned weight's theta after each applied iteration, as a position within its "
                "range; the band is theta +- c_k, the two engines each iteration played.",
            ),
            theta,
        ),
        _tune_champions(data, plots),
        _tune_acceptances(data, plots),
        _tune_weights(data, plots),
        _tune_effort(data, plots),
        _tune_config(data),
    )


def tune_html(data: dict[str, Any], plots: dict[str, str]) -> ReportPage:
    """The page of a tuning report."""
    if data.get("method") == "spsa":
        return spsa_html(data, plots)
    r, t = data["run"], data["totals"]
    summary = pairs_table(
        [
            ("trials", tally_text(t["outcomes"])),
            ("games", t["games"]),
            ("time", duration(t["seconds"])),
            ("games/s", fmt(t["games_per_second"])),
        ]
    )
    trials = table(
        ["trial", "run", "vs champion", "outcome", "games", "Elo vs start", "± 95%", "acceptance run"],
        [
            [
                x["number"],
                x["run_id"],
                f"#{x['champion']}",
                x["outcome"] + (f": {x['acceptance']}" if x["acceptance"] else ""),
                x["games"],
                fmt(x["elo"], "+.1f"),
                fmt(x["elo95"]),
                x["accept_run"],
            ]
            for x in data["trials"]
        ],
        left=(3,),
    )
    view = data["optuna"]
    best = view.get("best")
    optimizer = (
        f"<p>Study <code>{esc(view['study'])}</code>. "
        + (
            f"Optuna's best trial: {best['trial']} (objective {best['value']:+.1f}: its Elo against "
            "the start weights).</p>"
            + table(["weight", "best trial's value"], sorted(best["params"].items()))
            if best
            else "No complete trial yet.</p>"
        )
        + (f'<p class="muted">{esc(view["error"])}</p>' if view.get("error") else "")
    )
    title = f"arbiter report: tuning run {r['id']} ({r['game']})"
    nav = [
        ("summary", "Summary"),
        ("champions", "Champions"),
        ("trials", "Trials"),
        ("acceptance", "Acceptance SPRTs"),
        ("weights", "Weights"),
        ("optimizer", "Optimizer"),
        ("effort", "Effort"),
        ("config", "Configuration"),
    ]
    return page(
        title,
        nav,
        section("summary", "Summary", _tune_headline(t, f"{t['trials']} trials"), _run_table(r), summary),
        _tune_champions(data, plots),
        section(
            "trials",
            "Trials",
            figure(
                plots["trials"],
                "Every trial's Elo against the start weights, the study's objective (95% bars), "
                "coloured by outcome.",
            ),
            trials,
        ),
        _tune_acceptances(data, plots),
        _tune_weights(data, plots),
        section(
            "optimizer",
            "Parameter importance and the optimizer's view",
            figure(
                plots["importance"], "Optuna's parameter importance (PED-ANOVA) over the complete trials."
            ),
            figure(
                plots["slice"],
                "Optuna's slice plot: each complete trial's objective against its value of a weight.",
            ),
            optimizer,
        ),
        _tune_effort(data, plots),
        _tune_config(data),
    )


def noted(document: str, data: dict[str, Any]) -> ReportPage:
    """``document`` (made by ``page()``) with the report's "unverifiable" note, if it has one."""
    if not isinstance(document, ReportPage):
        raise TypeError("a report page must be made by html.page()")
    if data.get("unverifiable"):
        return page(document.heading, document.contents, *document.sections, note=unverifiable_html(data))
    return document
