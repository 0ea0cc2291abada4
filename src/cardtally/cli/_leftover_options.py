"""``score``'s options for the leftover piles: ``--leftover PHOTO``, ``--left NAME=N`` or
``--no-leftover``, exactly one of them (``rounds.leftovers`` says why)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import CardtallyError, UsageError
from ..rounds.leftovers import NONE, PHOTOS, TYPED, Leftovers
from ..scoring.entry import parse_counts

LEFT_OPTION = "--left"
HOW = (
    "--leftover PHOTO (photos of the piles), --left NAME=N (typed counts, e.g. --left Ben=3) "
    "or --no-leftover (every pile is empty)"
)


def leftover_choice(photos: Sequence[Path], typed: Sequence[str], none: bool, snap: bool) -> str:
    """Which way the leftovers are given; a usage error (exit 2) for none or several ways.

    With ``--snap`` the piles are photographed unless typed counts or ``--no-leftover`` say
    otherwise.
    """
    given = [name for name, on in ((PHOTOS, bool(photos)), (TYPED, bool(typed)), (NONE, none)) if on]
    if len(given) > 1:
        raise UsageError(f"Give the leftover piles one way only: {HOW}.")
    if not given and not snap:
        raise UsageError(f"Say what is left in the Ligretto piles: {HOW}.")
    return given[0] if given else PHOTOS


def typed_leftovers(
    source: str, texts: Sequence[str], players: Sequence[str], caller: str | None
) -> Leftovers:
    """The leftovers for ``source``; with typed counts, every player's (the caller's pile is
    empty when not given)."""
    if source != TYPED:
        return Leftovers(source)
    counts = parse_counts(LEFT_OPTION, texts, players)
    if caller is not None:
        counts.setdefault(caller, 0)
    missing = [player for player in players if player not in counts]
    if missing:
        raise CardtallyError(
            f"Missing {LEFT_OPTION} for {', '.join(missing)}: give every player's leftover "
            "count, 0 included (the caller's may be left out)."
        )
    return Leftovers(TYPED, {player: counts[player] for player in players})
