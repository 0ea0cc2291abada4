"""A round's audit trail: every correction, when it was made and which counts it changed.

``score`` records its ``--card`` and ``--fix`` corrections (and those typed at its prompt) one
by one, from the counts the photos gave; ``round edit`` and ``round recount`` add one entry
each. The trail is kept in the round's evidence (``corrections``) and shown by ``round show``
and its ``--json``. A round typed in by hand gets evidence of its own (``source: hand``) the
first time it is corrected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from ..scoring.fixes import apply_fixes
from ..scoring.rounds import RoundEntry
from .evidence import CENTRE, HAND_SOURCE, LEFTOVER, Correction, CountChange, RoundEvidence
from .hand_cards import HandCard


def now_utc() -> str:
    """The time of a correction, as ISO 8601 UTC to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _changes(before: Mapping[str, Mapping[str, int]], after: Mapping[str, Mapping[str, int]]
             ) -> tuple[CountChange, ...]:
    return tuple(
        CountChange(player, label, before[label][player], after[label][player])
        for label in (CENTRE, LEFTOVER)
        for player in before[label]
        if before[label][player] != after[label][player]
    )


def entry_counts(entry: RoundEntry) -> dict[str, dict[str, int]]:
    """``{"centre": {player: n}, "leftover": {player: n}}`` of a round."""
    return {
        CENTRE: {c.player: c.center_cards for c in entry.counts},
        LEFTOVER: {c.player: c.pile_cards for c in entry.counts},
    }


def score_trail(
    players: Sequence[str],
    counted: Mapping[str, Mapping[str, int]],
    cards: Sequence[HandCard],
    fixes: Sequence[str],
    player_of: Mapping[str, str],
    at: str,
) -> list[Correction]:
    """The corrections ``score`` made, one entry each, in the order they apply: the
    ``cards`` (``counted`` already includes them) and then the ``--fix`` texts."""
    counts = {label: dict(counted[label]) for label in (CENTRE, LEFTOVER)}
    for card in cards:  # back to the counts the photos gave
        counts[card.label][card.player] -= 1
        if card.was_deck in player_of:
            counts[card.label][player_of[card.was_deck]] += 1
    trail = []
    for card in cards:
        before = {label: dict(values) for label, values in counts.items()}
        counts[card.label][card.player] += 1
        if card.was_deck in player_of:
            counts[card.label][player_of[card.was_deck]] -= 1
        trail.append(Correction(at, "score", f"--card {card.text}", _changes(before, counts)))
    for fix in fixes:
        before = {label: dict(values) for label, values in counts.items()}
        centre, pile = apply_fixes(counts[CENTRE], counts[LEFTOVER], [fix], players)
        counts = {CENTRE: centre, LEFTOVER: pile}
        trail.append(Correction(at, "score", f"--fix {fix}", _changes(before, counts)))
    return trail


def entry_change(command: str, text: str, before: RoundEntry, after: RoundEntry) -> Correction:
    """One entry for a command that changed a saved round from ``before`` to ``after``."""
    return Correction(now_utc(), command, text, _changes(entry_counts(before), entry_counts(after)))


def with_correction(evidence: RoundEvidence | None, correction: Correction) -> RoundEvidence:
    """The round's evidence with ``correction`` added to its trail (a round typed in by hand:
    evidence of its own)."""
    if evidence is None or not evidence.from_photos:
        evidence = RoundEvidence(HAND_SOURCE, corrections=evidence and evidence.corrections)
    return evidence.with_correction(correction)


def trail_lines(evidence: RoundEvidence | None) -> list[str]:
    """``round show``'s lines for the trail: time, command, what was typed, what changed."""
    lines = []
    for item in (evidence.corrections if evidence is not None else None) or ():
        changed = ", ".join(change.text for change in item.changes) or "no count changed"
        typed = " ".join(part for part in (item.command, item.text) if part)
        lines.append(f"  {item.at}  {typed}: {changed}")
    return ["Corrections:", *lines] if lines else []
