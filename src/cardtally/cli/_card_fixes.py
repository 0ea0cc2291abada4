"""``score --card centre:5=Cleo``: give a card of the review image to a player before saving.

The review image numbers every card; the "Check:" lines name the doubtful ones by number. A
user who looks at card 5 and sees Cleo's back says so with ``--card centre:5=Cleo`` instead of
working out a count to ``--fix``: the card then counts for Cleo's deck, whatever the photo
made of it (unknown, face up, another player's deck). Card numbers belong to one count of one
photo, so these corrections are checked against the photos as they are counted and cannot be
carried over to a re-count.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import CardtallyError
from ..scoring.entry import resolve_player
from ..vision.count import PhotoCount
from ..vision.detections import CardIdentities
from ..vision.label_layout import card_numbers

#: The photo set a correction names, as typed -> the set's label in messages and evidence.
SET_LABELS = {"centre": "centre", "center": "centre", "leftover": "leftover", "pile": "leftover"}

_CARD_RE = re.compile(
    r"^(?P<set>centre|center|leftover|pile)(?::(?P<photo>.+))?:(?P<number>\d+)=(?P<name>.+)$"
)
_FORM = "write centre:N=PLAYER or leftover:N=PLAYER, e.g. --card centre:5=Anna"


@dataclass(frozen=True)
class CardFix:
    """Card ``number`` of the ``label`` photo named ``photo_name`` (or the set's only photo)
    belongs to ``player``."""

    text: str
    label: str
    photo_name: str | None
    number: int
    player: str


def parse_card_fixes(texts: Sequence[str], players: Sequence[str]) -> list[CardFix]:
    """The ``--card`` corrections, checked for their form, player and repeats (no photo yet)."""
    fixes: list[CardFix] = []
    seen: dict[tuple[str, str | None, int], str] = {}
    for text in texts:
        match = _CARD_RE.match(text.strip())
        if match is None or int(match["number"]) < 1:
            raise CardtallyError(f"Bad --card '{text}': {_FORM}.")
        player = resolve_player(match["name"].strip(), players, "--card")
        photo_name = match["photo"].strip() if match["photo"] else None
        fix = CardFix(text, SET_LABELS[match["set"]], photo_name, int(match["number"]), player)
        key = (fix.label, fix.photo_name, fix.number)
        if key in seen:
            raise CardtallyError(f"--card '{text}' names the same card as --card '{seen[key]}'.")
        seen[key] = text
        fixes.append(fix)
    return fixes


class CardFixer:
    """Applies the ``--card`` corrections to each photo as it is counted."""

    def __init__(self, fixes: Sequence[CardFix], deck_of: Mapping[str, str]) -> None:
        self.fixes = list(fixes)
        self.deck_of = dict(deck_of)

    def check_photos(self, photos: Mapping[str, Sequence[Path]]) -> None:
        """Each correction names one photo of its set (``photos``: label -> paths); before any
        photo is counted."""
        for fix in self.fixes:
            names = [Path(p).name for p in photos.get(fix.label, ())]
            if not names:
                raise CardtallyError(f"--card '{fix.text}': there is no {fix.label} photo.")
            if fix.photo_name is None:
                if len(names) > 1:
                    raise CardtallyError(
                        f"--card '{fix.text}': there are {len(names)} {fix.label} photos; name "
                        f"the photo, e.g. --card {fix.label}:{names[0]}:{fix.number}={fix.player}."
                    )
            elif names.count(fix.photo_name) != 1:
                listed = ", ".join(names)
                problem = "two of them have that name" if fix.photo_name in names else "no such photo"
                raise CardtallyError(
                    f"--card '{fix.text}': {problem}; the {fix.label} photos are: {listed}."
                )

    def corrected(self, label: str, photo: PhotoCount) -> PhotoCount:
        """``photo`` with the cards its corrections name given to their players' decks."""
        fixes = [
            fix for fix in self.fixes
            if fix.label == label and fix.photo_name in (None, photo.path.name)
        ]  # fmt: skip
        if not fixes:
            return photo
        ids = photo.identities
        numbers = card_numbers(photo.detections)
        deck_index, confidence = ids.deck_index.copy(), ids.confidence.copy()
        tied = None if ids.tied_decks is None else ids.tied_decks.copy()
        for fix in fixes:
            if fix.number > len(numbers):  # numbers run 1..n
                found = f"has {len(numbers)} cards" if len(numbers) else "has no cards"
                raise CardtallyError(
                    f"--card '{fix.text}': the {label} photo {photo.path.name} {found}."
                )
            hit = int(np.flatnonzero(numbers == fix.number)[0])
            deck_index[hit] = ids.deck_names.index(self.deck_of[fix.player])
            confidence[hit] = 1.0  # the user looked at it
            if tied is not None:
                tied[hit] = -1
        identities = CardIdentities(deck_index, confidence, ids.deck_names, tied)
        return dataclasses.replace(photo, identities=identities)

    def texts(self) -> list[str]:
        """The corrections as typed (the round's evidence keeps them)."""
        return [fix.text for fix in self.fixes]
