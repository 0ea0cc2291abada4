"""``score``'s options for the leftover piles: ``--leftover PHOTO``, ``--left NAME=N`` or
``--no-leftover``, exactly one of them (``rounds.leftovers`` says why and reads the typed
counts)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..errors import UsageError
from ..rounds.leftovers import NONE, PHOTOS, TYPED

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
