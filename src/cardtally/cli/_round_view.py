"""``round show N``: one saved round with what it was scored from, for checking and correcting.

A photo-scored round names its photos, their review images (whose card numbers ``round edit
--card`` takes), the corrections made before and after saving, and its re-counts. The
evidence is read defensively: rounds saved by older versions lack some of it.
"""

from __future__ import annotations

from ..rounds.audit import trail_lines
from ..rounds.evidence import EVIDENCE_KEYS, RoundEvidence
from ..rounds.leftovers import NONE, TYPED
from ..scoring.ledger import Game
from ._game_view import render_round


def _photo_lines(evidence: RoundEvidence) -> list[str]:
    lines = []
    for label in EVIDENCE_KEYS:
        for photo in evidence.photos(label):
            found = f" ({photo.cards} cards found)" if photo.cards is not None else ""
            lines.append(f"  {label} photo: {photo.path}{found}")
            if photo.review_image:
                lines.append(f"    review image: {photo.review_image}")
    return lines


def _evidence_lines(evidence: RoundEvidence | None) -> list[str]:
    """What a photo round was scored from; one line for a round typed in by hand."""
    if evidence is None or not evidence.from_photos:
        return ["Typed in by hand.", *trail_lines(evidence)]
    lines = ["Scored from photos:", *_photo_lines(evidence)]
    leftovers = evidence.leftovers
    if leftovers.source in (TYPED, NONE):
        lines.append("  leftover piles: " + (
            ", ".join(f"{p}={n}" for p, n in leftovers.typed.items()) + " (typed)"
            if leftovers.source == TYPED else "all empty"))
    if evidence.corrections is not None:
        return [*lines, *trail_lines(evidence)]
    # Rounds saved before the audit trail: the corrections as typed.
    fixes = [f"--fix {text}" for text in evidence.fixes]
    fixes += [f"--card {text}" for text in evidence.card_fixes]
    if fixes:
        lines.append(f"Corrections: {', '.join(fixes)}.")
    recounts = [recount.at for recount in evidence.recounts or ()]
    if recounts:
        lines.append(f"Re-counted: {', '.join(recounts)}.")
    return lines


def render_round_detail(game: Game, number: int) -> str:
    """The round's table (as after ``round edit``), its warnings and its evidence."""
    stored = game.round(number)
    lines = [render_round(game, number, with_result=False)]
    lines += [f"Warning: {warning}" for warning in stored.warnings]
    lines += _evidence_lines(RoundEvidence.from_json(stored.evidence))
    return "\n".join(lines)
