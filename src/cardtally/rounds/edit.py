"""Correct a saved round (``round edit``): cards given to a player by their number in the
review image, counts and caller typed anew. Besides the new counts the round keeps the values
typed by hand (so a re-count keeps them) and the correction in its audit trail; the review
images of the cards given by hand are drawn again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..scoring.entry import CENTER_OPTION, LEFTOVER_OPTION, build_round, parse_counts
from ..scoring.ledger import Game
from ..scoring.rounds import RoundEntry
from .audit import CENTRE, LEFTOVER, entry_change, entry_counts, with_correction
from .card_fixes import edit_saved_cards, moved, parse_card_fixes
from .evidence import EVIDENCE_KEYS, PhotoEvidence, RoundEvidence
from .review import redraw_saved_review, why_not_redrawn


def with_typed_counts(evidence: RoundEvidence | None, center: Sequence[str],
                      leftover: Sequence[str], entry: RoundEntry) -> RoundEvidence | None:
    """A photo round's evidence with the counts typed by hand (``typed_counts``), as they now
    stand in ``entry`` (a later ``--card`` moves them too); ``round recount`` keeps them."""
    if evidence is None or not evidence.from_photos:
        return evidence
    typed = {label: dict(values) for label, values in (evidence.typed_counts or {}).items()}
    for label, option, texts in ((CENTRE, CENTER_OPTION, center), (LEFTOVER, LEFTOVER_OPTION,
                                                                     leftover)):
        for player in parse_counts(option, texts, entry.players):
            typed.setdefault(label, {})[player] = 0
    now = entry_counts(entry)
    return replace(evidence, typed_counts={
        label: {player: now[label][player] for player in values} for label, values in typed.items()
    })


@dataclass(frozen=True)
class Redraw:
    """A saved photo's review image to draw again: its set, its evidence, cards given by hand."""

    label: str
    photo: PhotoEvidence
    n_by_hand: int


def reviews_to_redraw(evidence: RoundEvidence | None, cards: Sequence[str]
                      ) -> tuple[list[Redraw], list[str]]:
    """The review images ``round edit --card`` changed, and why any of them cannot be drawn
    again (the correction is saved all the same)."""
    if not cards or evidence is None:
        return [], []
    hand = evidence.hand_cards
    touched = {(c.label, c.photo) for c in hand[len(hand) - len(cards):]}
    redraws, problems = [], []
    for label in EVIDENCE_KEYS:
        for photo in evidence.photos(label):
            if (label, photo.path) not in touched:
                continue
            if problem := why_not_redrawn(photo):
                problems.append(f"the review image of {photo.name} is not drawn again: "
                                f"{problem}.")
                continue
            numbers = {c.number for c in hand if (c.label, c.photo) == (label, photo.path)}
            redraws.append(Redraw(label, photo, len(numbers)))
    return redraws, problems


def redraw_reviews(redraws: Sequence[Redraw]) -> list[Path]:
    """Draw the review images again (after the round is saved); their paths."""
    for redraw in redraws:
        redraw_saved_review(redraw.label, redraw.photo, redraw.n_by_hand)
    return [Path(redraw.photo.review_image or "") for redraw in redraws]


@dataclass(frozen=True)
class EditedRound:
    """A saved round as corrected: its new counts and evidence, and the review images to draw
    again once it is saved (``redraws``) or that cannot be (``problems``)."""

    entry: RoundEntry
    evidence: RoundEvidence | None
    redraws: list[Redraw]
    problems: list[str]


def edit_round(game: Game, number: int, text: str, *, cards: Sequence[str] = (),
               center: Sequence[str] = (), leftover: Sequence[str] = (),
               caller: str | None = None, no_caller: bool = False) -> EditedRound:
    """Round ``number`` of ``game`` with ``cards`` given by hand (``centre:N=PLAYER``), then
    the ``center``/``leftover`` counts (``NAME=N``) and the caller replaced; ``text`` is the
    correction as the user typed it (the audit trail)."""
    stored = game.round(number)
    base, evidence = stored.entry, RoundEvidence.from_json(stored.evidence)
    if cards:
        fixes = parse_card_fixes(cards, game.players)
        deck_of = {seat.player: seat.deck for seat in game.seats}
        change, evidence = edit_saved_cards(number, evidence, fixes, deck_of)
        base = moved(base, change, fixes)
    entry = build_round(game.players, center=center, leftover=leftover, caller=caller,
                        base=base, clear_caller=no_caller)
    evidence = with_typed_counts(evidence, center, leftover, entry)
    evidence = with_correction(evidence, entry_change("round edit", text, stored.entry, entry))
    redraws, problems = reviews_to_redraw(evidence, cards)
    return EditedRound(entry, evidence, redraws, problems)
