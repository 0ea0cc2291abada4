"""``round show N``: one saved round with what it was scored from, for checking and correcting.

A photo-scored round names its photos, their review images (whose card numbers ``round edit
--card`` takes), the corrections made before and after saving, and its re-counts. The
evidence is read defensively: rounds saved by older versions lack some of it.
"""

from __future__ import annotations

from typing import Any

from ..rounds.audit import trail_lines
from ..rounds.evidence import EVIDENCE_KEYS
from ..scoring.ledger import Game
from ._game_view import render_round


def _photo_lines(evidence: dict[str, Any]) -> list[str]:
    lines = []
    for label, key in EVIDENCE_KEYS.items():
        photos = evidence.get(key)
        for photo in photos if isinstance(photos, list) else []:
            if not isinstance(photo, dict):
                continue
            cards = photo.get("cards")
            found = f" ({cards} cards found)" if isinstance(cards, int) else ""
            lines.append(f"  {label} photo: {photo.get('path')}{found}")
            if photo.get("review_image"):
                lines.append(f"    review image: {photo['review_image']}")
    return lines


def _evidence_lines(evidence: Any) -> list[str]:
    """What a photo round was scored from; one line for a round typed in by hand."""
    if not isinstance(evidence, dict) or evidence.get("source") != "photos":
        return ["Typed in by hand.", *trail_lines(evidence)]
    lines = ["Scored from photos:", *_photo_lines(evidence)]
    source = evidence.get("leftover_source")
    if source in ("typed", "none"):
        typed = evidence.get("typed_leftover") or {}
        lines.append("  leftover piles: " + (", ".join(f"{p}={n}" for p, n in typed.items())
                                             + " (typed)" if source == "typed" else "all empty"))
    if "corrections" in evidence:
        return [*lines, *trail_lines(evidence)]
    # Rounds saved before the audit trail: the corrections as typed.
    fixes = [f"--fix {text}" for text in evidence.get("fixes") or []]
    fixes += [f"--card {text}" for text in evidence.get("card_fixes") or []]
    if fixes:
        lines.append(f"Corrections: {', '.join(fixes)}.")
    recounts = [r.get("at") for r in evidence.get("recounts") or [] if isinstance(r, dict)]
    if recounts:
        lines.append(f"Re-counted: {', '.join(str(at) for at in recounts)}.")
    return lines


def render_round_detail(game: Game, number: int) -> str:
    """The round's table (as after ``round edit``), its warnings and its evidence."""
    stored = game.round(number)
    lines = [render_round(game, number, with_result=False)]
    lines += [f"Warning: {warning}" for warning in stored.warnings]
    lines += _evidence_lines(stored.evidence)
    return "\n".join(lines)
