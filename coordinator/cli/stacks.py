"""The option stacks the commands that play runs share, each defined once: who plays (the two sides
of an SPRT or a match), how the games are played (limits, book, batch size), and where (the
executor's options); and reading the two sides the options name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

import engine
from coordinator.cli.options import (
    F,
    Side,
    batch_pairs_option,
    batch_seconds_option,
    book_option,
    broker_option,
    check_programs_can_go,
    concurrency_option,
    create_or_resume,
    limit_options,
    open_executor_and_store,
    priority_option,
    probed,
    read_ref_side,
    read_side,
    settled_heap,
    verify_option,
)
from coordinator.cli.remote import remote, server_options, submit
from coordinator.executors.options import ExecutorOptions
from coordinator.sides.refs import DEFAULT_BASE

if TYPE_CHECKING:
    from coordinator.registry import RunConfig
    from coordinator.runs import RunKind


def stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` as if written one above the other, in that order
    (the first option first in the help)."""

    def apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


#: The two sides of an SPRT or a match: weights or engine files, or commits of a repository.
side_options = stack(
    click.option(
        "--candidate",
        metavar="FILE",
        help="The engine under test: weights (JSON) of the built-in engine, or an engine file (.toml).",
    ),
    click.option(
        "--baseline",
        default="default",
        show_default=True,
        metavar="FILE|default",
        help="The engine to beat: weights (JSON), default, or an engine file (.toml).",
    ),
    click.option(
        "--candidate-ref", metavar="REF", help="Test a commit of --repo (a branch, tag or SHA) instead."
    ),
    click.option(
        "--baseline-ref",
        metavar="REF",
        help=f"The commit to beat (with --candidate-ref: default {DEFAULT_BASE}).",
    ),
    click.option(
        "--repo", metavar="URL", help="The repository of the refs (default: arbiter's own checkout)."
    ),
)


def games_options(limits: engine.Limits, batch_pairs: int | None) -> Callable[[F], F]:
    """How every game is played and batched: the search limits (default ``limits``' nodes), the
    book, and the pairs per batch (default ``batch_pairs``, or None: sized from the limits and the
    SPRT) or the seconds a batch should take."""
    return stack(
        limit_options(f"{limits.nodes}"),
        book_option,
        batch_pairs_option(batch_pairs),
        batch_seconds_option,
    )


#: Where the games are played: the local pool's size or the broker, spot checks, priority; or the
#: server the run is submitted to.
fleet_options = stack(concurrency_option, broker_option, verify_option, priority_option, server_options)


def match_sides(
    game: str,
    candidate: str | None,
    baseline: str,
    candidate_ref: str | None,
    baseline_ref: str | None,
    repo: str | None,
) -> tuple[Side, Side]:
    """The two sides the options name: weights, engine files or commits of ``repo``. A commit
    under test plays its base (``--baseline-ref``, default main) unless ``--baseline`` is given."""
    ctx = click.get_current_context()
    baseline_given = ctx.get_parameter_source("baseline") is not click.core.ParameterSource.DEFAULT
    if (candidate is None) == (candidate_ref is None):
        raise click.UsageError("give the engine under test with --candidate or --candidate-ref (one of them)")
    if baseline_ref is not None and baseline_given:
        raise click.UsageError("give the engine to beat with --baseline or --baseline-ref (one of them)")
    if repo is not None and candidate_ref is None and baseline_ref is None:
        raise click.UsageError("--repo names the repository of --candidate-ref or --baseline-ref")
    if candidate_ref is not None:
        first = read_ref_side(game, repo, candidate_ref, "'--candidate-ref'")
    else:
        assert candidate is not None
        first = read_side(game, candidate, "'--candidate'")
    if baseline_ref is not None or (candidate_ref is not None and not baseline_given):
        second = read_ref_side(game, repo, baseline_ref or DEFAULT_BASE, "'--baseline-ref'")
    else:
        second = read_side(game, baseline, "'--baseline'")
    return first, second


def played_sides(
    game: str,
    options: tuple[str | None, str, str | None, str | None, str | None],
    limits: engine.Limits,
    broker: str | None,
) -> tuple[Side, Side]:
    """The two sides ``options`` name (``--candidate``, ``--baseline``, ``--candidate-ref``,
    ``--baseline-ref``, ``--repo``: :func:`match_sides`), checked to be playable where the games
    go, each program probed once."""
    sides = match_sides(game, *options)
    check_programs_can_go(sides, broker)
    return probed(game, sides[0], limits), probed(game, sides[1], limits)


def sides_fields(sides: tuple[Side, Side]) -> dict[str, Any]:
    """The fields of a two-sided run's configuration that its sides give: weights, sources,
    programs and commits of the candidate and the baseline."""
    candidate, baseline = sides
    return {
        "candidate": candidate.weights,
        "baseline": baseline.weights,
        "candidate_source": candidate.source,
        "baseline_source": baseline.source,
        "candidate_program": candidate.program,
        "baseline_program": baseline.program,
        "candidate_commit": candidate.commit,
        "baseline_commit": baseline.commit,
    }


def play_run(
    kind: RunKind, config: RunConfig, sides: Sequence[Side], options: ExecutorOptions, store_url: str | None
) -> None:
    """Open the executor and the store, keep the sides' programs, then play the unfinished run of
    ``kind`` with ``config`` (or show the finished one, or start a new one) to its end."""
    from coordinator.console.lease import holding_lease
    from coordinator.registry import kind_of

    where = remote()
    if where.server is not None:
        submit(kind, config, sides, where)
        return
    executor, store = open_executor_and_store(options, store_url)
    for side in sides:
        side.keep(store)
    run = create_or_resume(store, kind, config, finished_too=True)
    # a run found again keeps its programs' probe findings: it plays its stored configuration
    with holding_lease(store, run.id), settled_heap():
        kind_of(run.kind).play(store, run, executor)
