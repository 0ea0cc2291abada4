"""The typer application object and the single error boundary."""

from typing import Any

import typer
from typer.core import TyperGroup

from ..errors import CardtallyError, Declined

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


class _ErrorBoundaryGroup(TyperGroup):
    """Root command group: turns a :class:`CardtallyError` into ``Error: ...`` and exit 1
    (2 for a :class:`~cardtally.errors.UsageError`); a :class:`~cardtally.errors.Declined`
    prints its message alone and exits 0.

    Sub-groups run inside the root's ``invoke``, so this one boundary covers every command,
    including under ``typer.testing.CliRunner``.
    """

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CardtallyError as exc:
            typer.echo(str(exc) if isinstance(exc, Declined) else f"Error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    name="cardtally",
    cls=_ErrorBoundaryGroup,
    context_settings=CONTEXT_SETTINGS,
    no_args_is_help=True,
    # typer's --install-completion / --show-completion for bash, zsh, fish and PowerShell.
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def sub_app(name: str, help_text: str, *, runs_alone: bool = False) -> typer.Typer:
    """A command group (``cardtally game ...``) registered on the root app.

    Without a subcommand a group shows its help; with ``runs_alone`` its callback runs instead
    (``cardtally decks`` lists the decks).
    """
    group = typer.Typer(
        context_settings=CONTEXT_SETTINGS,
        no_args_is_help=not runs_alone,
        invoke_without_command=runs_alone,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        help=help_text,
    )
    app.add_typer(group, name=name)
    return group


def run_app() -> None:
    """Run ``app`` (console script and ``python -m cardtally``)."""
    app()
