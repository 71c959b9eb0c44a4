"""``arbiter report RUN``: a run's strength report, as a terminal summary and one HTML file.

Works for SPRTs, tuning runs, their trials and acceptance SPRTs, and tournaments, while they run or
after they end.
The HTML file is self-contained (inline CSS and SVG plots, no script, nothing fetched); ``--json``
prints the same content as data instead of the summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from coordinator.cli.options import load_run, open_existing_store, run_argument, store_option
from coordinator.registry import kind_of


def size_text(path: Path) -> str:
    """The size of a written file, for people."""
    size = path.stat().st_size
    return f"{size / 1024:.0f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


@click.command()
@run_argument()
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="HTML file to write (default: RUN-report.html; with --json, only when given).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report's content as one JSON object.")
@click.option(
    "--anchor",
    metavar="ENGINE",
    help="A tournament's ratings relative to this engine (rated 0) instead of to their mean.",
)
@store_option
def report(run_id: int, output: str | None, as_json: bool, anchor: str | None, store_url: str | None) -> None:
    """Summarize a run's strength and write its HTML report with plots."""
    from coordinator.files import write_atomically
    from coordinator.reports import (
        build,
        default_report_path,
        gather,
        html_page,
        json_safe,
        terminal_summary,
    )

    store = open_existing_store(store_url)
    run = load_run(store, run_id)
    if anchor is not None and not kind_of(run.kind).anchored:
        raise click.UsageError(f"--anchor is for tournaments; run {run.id} is a {run.kind} run")
    if as_json and output is None:
        click.echo(json.dumps(json_safe(gather(store, run, anchor).to_json()), sort_keys=True))
        return
    built = build(store, run, anchor)
    target = Path(output or default_report_path(run.id))
    write_atomically(target, html_page(built))
    if as_json:
        click.echo(json.dumps(json_safe(built.data.to_json()), sort_keys=True))
        click.echo(f"arbiter: report written to {target} ({size_text(target)})", err=True)
        return
    click.echo(terminal_summary(built))
    click.echo(f"\nreport: {target} ({size_text(target)})")
