"""Hand corrections to photo counts before a round is saved: ``--fix Anna=centre:+1``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..errors import CardtallyError
from .entry import resolve_player

_FIX_RE = re.compile(r"^(?P<name>[^=]+)=(?P<what>centre|center|pile|leftover):(?P<delta>[+-][0-9]+)$")


def is_fix(text: str) -> bool:
    """Whether ``text`` has the form of a ``--fix`` correction (``NAME=centre:+N``)."""
    return _FIX_RE.match(text.strip()) is not None


def apply_fixes(
    center: Mapping[str, int],
    pile: Mapping[str, int],
    fixes: Sequence[str],
    players: Sequence[str],
) -> tuple[dict[str, int], dict[str, int]]:
    """Centre and pile counts after the ``NAME=centre:+N`` / ``NAME=pile:-N`` corrections."""
    new_center, new_pile = dict(center), dict(pile)
    for text in fixes:
        match = _FIX_RE.match(text.strip())
        if match is None:
            raise CardtallyError(
                f"Bad --fix {text!r}: write NAME=centre:+N or NAME=pile:-N, "
                "e.g. --fix Anna=centre:+1."
            )
        player = resolve_player(match["name"].strip(), players, "--fix")
        target = new_center if match["what"] in ("centre", "center") else new_pile
        value = target[player] + int(match["delta"])
        if value < 0:
            raise CardtallyError(
                f"--fix '{text}' would leave {player} with {value} cards; counts cannot be negative."
            )
        target[player] = value
    return new_center, new_pile
