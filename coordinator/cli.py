"""The `arbiter` command: one click group; each command lives in its own module.

Every usage error and every bad input becomes one line on stderr and exit status 2, never a
traceback.
"""

from __future__ import annotations

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


@click.group(cls=ArbiterGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arbiter")
def main() -> None:
    """arbiter: test and tune engines for Congo and Congress Chess."""


def _register() -> None:
    from coordinator import engine_commands, openings_command, rules_commands

    for command in [*rules_commands.COMMANDS, *engine_commands.COMMANDS, *openings_command.COMMANDS]:
        main.add_command(command)
    from coordinator import sprt_command

    for command in sprt_command.COMMANDS:
        main.add_command(command)
    try:
        from coordinator.stats_command import stats
    except ImportError:  # pragma: no cover - the stats command lands separately
        return
    main.add_command(stats)


_register()


if __name__ == "__main__":
    main()
