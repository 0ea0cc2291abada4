"""What is left in the Ligretto piles, given one way or another, never assumed.

A round scored without its leftover piles would count every pile as empty and quietly give
the players their penalty back; so a round needs one of: photos of the piles, typed counts
(the caller's pile is empty by calling out) or "every pile is empty". The choice is kept in
the round's evidence, so a re-count counts the same way again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import CardtallyError
from ..scoring.entry import parse_counts

PHOTOS, TYPED, NONE = "photos", "typed", "none"
#: The option (``score --left NAME=N``) the typed counts' messages name, on any front end.
LEFT_OPTION = "--left"


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
        """The leftovers a saved round's evidence JSON names (older rounds: photos, maybe
        none)."""
        typed = evidence.get("typed_leftover")
        try:
            counts = {str(p): int(n) for p, n in typed.items()} if isinstance(typed, dict) else {}
        except (TypeError, ValueError):
            counts = {}
        return cls(str(evidence.get("leftover_source", PHOTOS)), counts)


#: Leftovers counted from photos only (every round scored before typed leftovers existed).
FROM_PHOTOS = Leftovers(PHOTOS)


def typed_leftovers(
    source: str, texts: Sequence[str], players: Sequence[str], caller: str | None
) -> Leftovers:
    """The leftovers for ``source``; with typed counts (``NAME=N`` texts), every player's (the
    caller's pile is empty when not given)."""
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
