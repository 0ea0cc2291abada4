"""Corrections typed in the terminal before ``score`` saves a round.

Where there are cards to check, ``score`` asks for corrections in the forms of its options:
``centre:5=Cleo`` (``--card``: card 5 of the centre's review image is Cleo's) and
``Ben=centre:+1`` (``--fix``: a count the photo got wrong, e.g. two cards outlined as one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import typer

from ..errors import CardtallyError, Declined
from ..rounds.card_fixes import CardFixer, parse_card_fixes
from ..scoring.fixes import is_fix
from ..vision.count import PhotoCount
from ._confirm import DECLINED

PROMPT = (
    "Correct cards by number (centre:5=Cleo) or counts (Ben=centre:+1), n not to save, or "
    "press Enter to save"
)
_SETS = r"(?:centre|center|leftover|pile)"
#: Corrections are apart by commas or semicolons, or by spaces before the next correction
#: (a player's name may hold spaces).
_ANSWER_SPLIT = re.compile(
    rf"\s*[,;]\s*|\s+(?={_SETS}:)|\s+(?=[^\s=]+={_SETS}:[+-]\d)", re.IGNORECASE
)


@dataclass(frozen=True)
class TypedCorrections:
    """One answer: card corrections (applied first) and count corrections (``--fix`` texts)."""

    cards: CardFixer
    fixes: list[str]


def ask_corrections(
    fixer: CardFixer,
    players: Sequence[str],
    photos: Mapping[str, Sequence[Path]],
    results: Mapping[str, Sequence[PhotoCount]],
    check_fixes: Callable[[Mapping[str, Sequence[PhotoCount]], list[str]], None],
    why: str = "",
) -> TypedCorrections | None:
    """Ask (after the line ``why``) until the answer is empty (``None``: save the round as
    shown), ``n`` (not saved: an error) or every correction in it holds.

    ``check_fixes(photos by set, fixes)`` raises where the count corrections cannot apply to
    the photos once the answer's card corrections are made. A correction that does not hold
    is explained, nothing of that answer is kept, and the question comes again.
    """
    while True:
        question = f"{why}\n{PROMPT}" if why else PROMPT
        answer = typer.prompt(question, default="", show_default=False, err=True).strip()
        if not answer:
            return None
        if answer.casefold() in ("n", "no"):
            raise Declined(DECLINED)
        texts = [text for text in _ANSWER_SPLIT.split(answer) if text]
        count_fixes = [text for text in texts if is_fix(text)]
        try:
            cards = CardFixer(
                parse_card_fixes([t for t in texts if not is_fix(t)], players), fixer.deck_of
            )
            cards.check_photos(photos)
            corrected = {
                label: [cards.corrected(label, photo)[0] for photo in counted]
                for label, counted in results.items()
            }
            check_fixes(corrected, count_fixes)
            return TypedCorrections(cards, count_fixes)
        except CardtallyError as exc:
            typer.echo(f"{exc} Nothing changed; try again, or press Enter.", err=True)
