"""Which hand corrections of a saved round a re-count keeps, and which it cannot.

``round recount`` counts the photos again; the user's corrections must not silently vanish.
Cards given by hand (``--card``) are given again to the card lying in the same place
(:class:`~cardtally.rounds.hand_cards.HandCardKeeper`); counts typed with ``round edit
--center/--leftover`` stay as typed. Rounds saved before cardtally kept these records can have
corrections a re-count cannot keep: it then refuses unless told ``--drop-corrections``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from ..scoring.fixes import apply_fixes
from ..scoring.ledger import Game, StoredRound
from ..scoring.rounds import RoundEntry
from .evidence import CENTRE, LEFTOVER, RoundEvidence
from .hand_cards import HandCard

#: The ``round edit`` option that types each set's counts.
TYPED_OPTIONS = {CENTRE: "--center", LEFTOVER: "--leftover"}
DROP_HINT = (
    "Re-count with --drop-corrections to drop them, then correct the round again with round edit."
)


@dataclass(frozen=True)
class KeptCorrections:
    """A round's corrections a re-count keeps (``hand_cards``, ``typed_counts`` by set and
    player) and those it cannot (``lost``, described)."""

    hand_cards: tuple[HandCard, ...]
    typed_counts: Mapping[str, Mapping[str, int]]
    lost: tuple[str, ...]


def _edited_by_hand(game: Game, stored: StoredRound, evidence: RoundEvidence) -> bool:
    """Whether the stored counts differ from what the photos and saved fixes gave."""
    if evidence.counted_center is None or evidence.counted_leftover is None:
        return True
    try:
        center, pile = apply_fixes(evidence.counted_center, evidence.counted_leftover,
                                   evidence.fixes, game.players)
    except (KeyError, TypeError, ValueError):
        return True
    return any(
        (center.get(c.player), pile.get(c.player)) != (c.center_cards, c.pile_cards)
        for c in stored.entry.counts
    )


def corrections_to_keep(game: Game, stored: StoredRound, evidence: RoundEvidence
                        ) -> KeptCorrections:
    """The corrections of a saved round, as a re-count can keep them."""
    typed = {label: dict(values) for label, values in (evidence.typed_counts or {}).items()}
    lost: list[str] = []
    if evidence.corrections is None:  # saved before the audit trail
        if card_fixes := evidence.card_fixes:
            lost.append(f"--card {', '.join(card_fixes)} (saved without the cards' places)")
        elif _edited_by_hand(game, stored, evidence):
            lost.append("counts changed with round edit (saved without a record of which)")
    return KeptCorrections(evidence.hand_cards, typed, tuple(lost))


def with_typed_counts(entry: RoundEntry, typed: Mapping[str, Mapping[str, int]]) -> RoundEntry:
    """``entry`` with the counts typed by hand put back."""
    counts = tuple(
        dataclasses.replace(
            c,
            center_cards=typed.get(CENTRE, {}).get(c.player, c.center_cards),
            pile_cards=typed.get(LEFTOVER, {}).get(c.player, c.pile_cards),
        )
        for c in entry.counts
    )
    return dataclasses.replace(entry, counts=counts)
