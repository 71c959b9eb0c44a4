"""The ``arbiter`` command: one click group whose commands are imported only when run.

Every usage error and every bad input becomes one line on stderr, ``arbiter COMMAND: message``,
and exit status 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from coordinator.console.lifetime import follow_supervisor
from wire.secrecy import hold_keys

USAGE_EXIT = 2
INTERRUPTED_EXIT = 130

#: Every command and where it lives (so `arbiter perft` does not load Optuna or Celery).
COMMANDS = {
    "perft": "coordinator.cli.rules:perft",
    "moves": "coordinator.cli.rules:moves",
    "show": "coordinator.cli.rules:show",
    "weights": "coordinator.cli.search:weights",
    "search": "coordinator.cli.search:search",
    "play": "coordinator.cli.search:play",
    "bench": "coordinator.cli.search:bench",
    "openings": "coordinator.cli.openings:openings",
    "stats": "coordinator.cli.stats:stats",
    "sprt": "coordinator.cli.sprt:sprt",
    "tune": "coordinator.cli.tune:tune",
    "tournament": "coordinator.cli.tournament:tournament",
    "match": "coordinator.cli.match:match",
    "presets": "coordinator.cli.presets:presets",
    "status": "coordinator.cli.runs:status",
    "resume": "coordinator.cli.runs:resume",
    "report": "coordinator.cli.report:report",
    "games": "coordinator.cli.games:games",
    "serve": "coordinator.cli.serve:serve",
    "server": "coordinator.cli.server:server",
    "watch": "coordinator.cli.remote:watch",
    "stop": "coordinator.cli.remote:stop",
    "rerun": "coordinator.cli.remote:rerun",
    "user": "coordinator.cli.users:user_group",
    "login": "coordinator.cli.users:login",
    "signup": "coordinator.cli.users:signup",
    "approve": "coordinator.cli.remote:approve",
    "logout": "coordinator.cli.users:logout",
    "worker": "coordinator.cli.worker:worker",
    "worker-key": "coordinator.cli.worker:worker_key",
    "workers": "coordinator.cli.workers:workers",
    "engine": "coordinator.cli.engines:engine_group",
}


def fail(where: str, message: str) -> None:
    """Print ``where: message`` on one line and exit with the usage-error status."""
    click.echo(f"{where}: {' '.join(message.split())}", err=True)
    sys.exit(USAGE_EXIT)


def usage_message(e: click.UsageError) -> str:
    """click's message, with a bad value as ``NAME: what is wrong``: the parameter as it is typed
    (``RUN``, ``--nodes``), without click's quotes, the brackets of an optional argument or the
    dots of a repeated one (``[MOVES]...``)."""
    if not isinstance(e, click.BadParameter) or isinstance(e, click.MissingParameter):
        return e.format_message()
    hint = e.param_hint if e.param_hint is not None else e.param.get_error_hint(e.ctx) if e.param else None
    if hint is None:
        return e.format_message()
    hints = [hint] if isinstance(hint, str) else list(hint)
    names = [part.strip("'").removesuffix("...").strip("[]") for h in hints for part in h.split(" / ")]
    return f"{' / '.join(names)}: {e.message}"


def command_path(args: list[str]) -> str:
    """``arbiter COMMAND`` for the command named in ``args``, else ``arbiter``."""
    name = next((a for a in args if not a.startswith("-")), None)
    return f"arbiter {name}" if name in COMMANDS else "arbiter"


class ArbiterGroup(click.Group):
    """A lazy click group that reports usage errors and bad input as a single line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        kwargs.setdefault("prog_name", "arbiter")
        argv = list(sys.argv[1:] if args is None else args)
        where = command_path(argv)
        try:
            result = super().main(argv, *rest, **kwargs)
        except click.UsageError as e:
            fail(e.ctx.command_path if e.ctx is not None else where, usage_message(e))
        except click.Abort:
            click.echo(f"{where}: interrupted", err=True)
            sys.exit(INTERRUPTED_EXIT)
        except click.ClickException as e:
            fail(where, e.format_message())
        except ValueError as e:
            fail(where, str(e))
        except OSError as e:
            fail(where, f"{e.filename}: {e.strerror or e}" if e.filename else str(e))
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=ArbiterGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arbiter")
def main() -> None:
    """arbiter: test and tune engines for Congo and Congress Chess."""
    # Keys in memory only, before any command runs a program or starts a process
    # (wire.secrecy; docs/deploy.md, Security).
    hold_keys()
    follow_supervisor()


if __name__ == "__main__":
    main()
