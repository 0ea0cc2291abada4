"""What ``round edit`` keeps beyond the new counts: the values typed by hand (so a re-count
keeps them), the command as typed (for the audit trail) and the review images to draw again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from ..rounds.audit import CENTRE, LEFTOVER, entry_counts
from ..rounds.evidence import EVIDENCE_KEYS
from ..rounds.review import redraw_saved_review, why_not_redrawn
from ..scoring.entry import CENTER_OPTION, LEFTOVER_OPTION, parse_counts
from ..scoring.rounds import RoundEntry


def edit_text(cards: Sequence[str] | None, center: Sequence[str] | None,
              leftover: Sequence[str] | None, caller: str | None, no_caller: bool) -> str:
    """The options of one ``round edit`` as typed (the audit trail's text)."""
    parts = [f"--card {text}" for text in cards or []]
    parts += [f"{CENTER_OPTION} {text}" for text in center or []]
    parts += [f"{LEFTOVER_OPTION} {text}" for text in leftover or []]
    if caller is not None:
        parts.append(f"--caller {caller}")
    if no_caller:
        parts.append("--no-caller")
    return " ".join(parts)


def with_typed_counts(evidence: Any, center: Sequence[str], leftover: Sequence[str],
                      entry: RoundEntry) -> Any:
    """A photo round's evidence with the counts typed by hand (``typed_counts``), as they now
    stand in ``entry`` (a later ``--card`` moves them too); ``round recount`` keeps them."""
    if not isinstance(evidence, dict) or evidence.get("source") != "photos":
        return evidence
    typed = {label: dict(values) for label, values in (evidence.get("typed_counts") or {}).items()}
    for label, option, texts in ((CENTRE, CENTER_OPTION, center), (LEFTOVER, LEFTOVER_OPTION,
                                                                     leftover)):
        for player in parse_counts(option, texts, entry.players):
            typed.setdefault(label, {})[player] = 0
    now = entry_counts(entry)
    return {**evidence, "typed_counts": {
        label: {player: now[label][player] for player in values} for label, values in typed.items()
    }}


@dataclass(frozen=True)
class Redraw:
    """A saved photo's review image to draw again: its set, its evidence, cards given by hand."""

    label: str
    photo: dict[str, Any]
    n_by_hand: int


def reviews_to_redraw(evidence: Any, cards: Sequence[str], players: Sequence[str]) -> list[Redraw]:
    """The review images ``round edit --card`` changed; those that cannot be drawn again are
    named on stderr (the correction is saved all the same)."""
    if not cards or not isinstance(evidence, dict):
        return []
    hand = [c for c in evidence.get("hand_cards") or [] if isinstance(c, dict)]
    touched = {(c.get("set"), c.get("photo")) for c in hand[len(hand) - len(cards):]}
    redraws = []
    for label, key in EVIDENCE_KEYS.items():
        for photo in evidence.get(key) or []:
            if (label, photo.get("path")) not in touched:
                continue
            if problem := why_not_redrawn(photo):
                typer.echo(
                    f"Warning: the review image of {Path(str(photo.get('path'))).name} is not "
                    f"drawn again: {problem}.", err=True,
                )
                continue
            numbers = {c.get("number") for c in hand if (c.get("set"), c.get("photo")) ==
                       (label, photo.get("path"))}
            redraws.append(Redraw(label, photo, len(numbers)))
    return redraws


def redraw_reviews(redraws: Sequence[Redraw]) -> None:
    """Draw the review images again (after the round is saved) and name them."""
    for redraw in redraws:
        redraw_saved_review(redraw.label, redraw.photo, redraw.n_by_hand)
        typer.echo(f"Review image drawn again: {redraw.photo['review_image']}", err=True)
