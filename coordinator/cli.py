"""The `arbiter` command: one click group; each command lives in its own module.

Every usage error and every bad input becomes one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

USAGE_EXIT = 2


def fail(message: str) -> None:
    """Print one error line and exit with the usage-error status."""
    click.echo(f"arbiter: error: {' '.join(message.split())}", err=True)
    sys.exit(USAGE_EXIT)


class ArbiterGroup(click.Group):
    """A click group that reports usage errors and bad input as a single line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except click.UsageError as e:
            where = f"{e.ctx.command_path}: " if e.ctx is not None else ""
            fail(where + e.format_message())
        except click.Abort:
            click.echo("arbiter: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            fail(e.format_message())
        except ValueError as e:
            fail(str(e))
        except OSError as e:
            fail(f"{e.filename or ''}: {e.strerror or e}" if e.filename else str(e))
        sys.exit(result if isinstance(result, int) else 0)


#: Every command, imported only when it is run (so `arbiter perft` does not load Optuna).
COMMANDS = {
    "perft": "coordinator.rules_commands:perft",
    "moves": "coordinator.rules_commands:moves",
    "show": "coordinator.rules_commands:show",
    "weights": "coordinator.engine_commands:weights",
    "search": "coordinator.engine_commands:search",
    "play": "coordinator.engine_commands:play",
    "bench": "coordinator.engine_commands:bench",
    "openings": "coordinator.openings_command:openings",
    "stats": "coordinator.stats_command:stats",
    "sprt": "coordinator.sprt_command:sprt",
    "status": "coordinator.sprt_command:status",
    "resume": "coordinator.sprt_command:resume",
    "tune": "coordinator.tune_command:tune",
    "worker": "coordinator.worker_command:worker",
}


class LazyArbiterGroup(ArbiterGroup):
    """Looks commands up in :data:`COMMANDS` and imports their module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command: click.Command = getattr(importlib.import_module(module_name), attribute)
        return command


@click.group(cls=LazyArbiterGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arbiter")
def main() -> None:
    """arbiter: test and tune engines for Congo and Congress Chess."""


if __name__ == "__main__":
    main()
