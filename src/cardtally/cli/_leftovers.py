"""What is left in the Ligretto piles, given to ``score`` one way or another, never assumed.

A round scored without its leftover piles would count every pile as empty and quietly give
the players their penalty back; so ``score`` needs one of: photos of the piles
(``--leftover PHOTO``), typed counts (``--left Ben=3``; the caller's pile is empty by calling
out) or ``--no-leftover`` (every pile is empty). The choice is kept in the round's evidence,
so ``round recount`` counts the same way again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CardtallyError, UsageError
from ..scoring.entry import parse_counts

LEFT_OPTION = "--left"
PHOTOS, TYPED, NONE = "photos", "typed", "none"
HOW = (
    "--leftover PHOTO (photos of the piles), --left NAME=N (typed counts, e.g. --left Ben=3) "
    "or --no-leftover (every pile is empty)"
)


@dataclass(frozen=True)
class Leftovers:
    """How the cards left in the piles are given: ``source`` is photos, typed or none.

    ``typed`` holds the typed counts by player (every player; empty unless ``source`` is
    typed); the photos themselves travel with the centre photos.
    """

    source: str
    typed: Mapping[str, int] = field(default_factory=dict)

    def counts(self, players: Sequence[str]) -> dict[str, int]:
        """The cards each player has left before any photo is counted (typed counts or 0)."""
        return {player: self.typed.get(player, 0) for player in players}

    def to_json(self) -> dict[str, Any]:
        """The round's evidence keys for these leftovers."""
        return {"leftover_source": self.source, "typed_leftover": dict(self.typed)}

    @classmethod
    def from_evidence(cls, evidence: Mapping[str, Any]) -> Leftovers:
        """The leftovers a saved round was scored with (older rounds: photos, maybe none)."""
        typed = evidence.get("typed_leftover")
        return cls(
            str(evidence.get("leftover_source", PHOTOS)),
            {str(p): int(n) for p, n in typed.items()} if isinstance(typed, dict) else {},
        )


#: Leftovers counted from photos only (every round scored before typed leftovers existed).
FROM_PHOTOS = Leftovers(PHOTOS)


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
