"""Asking before a round is saved (``score``, ``round recount``): never when nobody can
answer, and saying no is no error."""

from __future__ import annotations

import sys

import typer

from ..errors import CardtallyError, Declined

#: Saying no at the question (at "Save this round?" or at the corrections prompt).
DECLINED = "Not saved (you declined). Correct with --card or --fix and run score again."


def stdin_is_terminal() -> bool:
    """Whether someone can answer a question (tests replace this)."""
    return sys.stdin is not None and sys.stdin.isatty()


def check_can_confirm(yes: bool) -> None:
    """Fail (before any work) when the user cannot be asked and did not give --yes."""
    if not yes and not stdin_is_terminal():
        raise CardtallyError(
            "Not saved: confirm with --yes when cardtally is not run in a terminal."
        )


def confirm_or_fail(
    yes: bool,
    question: str = "Save this round?",
    declined: str = DECLINED,
) -> None:
    """Ask before saving; never block when nobody can answer."""
    if yes:
        return
    check_can_confirm(yes)
    if not typer.confirm(question, default=True, err=True):
        raise Declined(declined)
