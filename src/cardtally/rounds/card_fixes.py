"""``--card centre:5=Cleo``: give a card of the review image to a player.

The review image numbers every card; the "Check:" lines name the doubtful ones by number. A
user who looks at card 5 and sees Cleo's back says so with ``--card centre:5=Cleo`` instead of
working out a count to ``--fix``: the card then counts for Cleo's deck, whatever the photo
made of it (unknown, face up, another player's deck). ``score --card`` applies it to the
photos as they are counted (the review image shows it); ``round edit --card`` moves the card
in a saved round, whose evidence lists each card's deck by its number. Card numbers belong to
one count of one photo, so each corrected card is also kept with its place in the photo
(``hand_cards.HandCard``): a re-count gives the card in that place to the same player.
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
from ..scoring.rounds import RoundEntry
from ..vision.count import PhotoCount
from ..vision.label_layout import card_numbers
from .evidence import CENTRE, EVIDENCE_KEYS, LEFTOVER, RoundEvidence
from .hand_cards import HandCard, given_to, quad_of
from .review import saved_quad_xy

#: The photo set a correction names, as typed -> the set's label in messages and evidence.
SET_LABELS = {"centre": "centre", "center": "centre", "leftover": "leftover", "pile": "leftover"}

_CARD_RE = re.compile(
    r"^(?P<set>centre|center|leftover|pile)(?::(?P<photo>.+))?:(?P<number>[0-9]+)=(?P<name>.+)$",
    re.IGNORECASE,
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
        fix = CardFix(text, SET_LABELS[match["set"].lower()], photo_name, int(match["number"]), player)
        key = (fix.label, fix.photo_name, fix.number)
        if key in seen:
            raise CardtallyError(f"--card '{text}' names the same card as --card '{seen[key]}'.")
        seen[key] = text
        fixes.append(fix)
    return fixes


def photo_index(fix: CardFix, names: Sequence[str]) -> int:
    """Which of its set's photos (file ``names``, in order) ``fix`` names; else a clear error."""
    if not names:
        raise CardtallyError(f"--card '{fix.text}': there is no {fix.label} photo.")
    if fix.photo_name is None:
        if len(names) > 1:
            raise CardtallyError(
                f"--card '{fix.text}': there are {len(names)} {fix.label} photos; name "
                f"the photo, e.g. --card {fix.label}:{names[0]}:{fix.number}={fix.player}."
            )
        return 0
    if list(names).count(fix.photo_name) != 1:
        problem = "two of them have that name" if fix.photo_name in names else "no such photo"
        raise CardtallyError(
            f"--card '{fix.text}': {problem}; the {fix.label} photos are: {', '.join(names)}."
        )
    return list(names).index(fix.photo_name)


def _too_few(fix: CardFix, photo_name: str, n_cards: int) -> CardtallyError:
    found = f"has {n_cards} cards" if n_cards else "has no cards"
    return CardtallyError(f"--card '{fix.text}': the {fix.label} photo {photo_name} {found}.")


class CardFixer:
    """Applies the ``--card`` corrections to each photo as it is counted."""

    def __init__(self, fixes: Sequence[CardFix], deck_of: Mapping[str, str]) -> None:
        self.fixes = list(fixes)
        self.deck_of = dict(deck_of)
        #: The cards corrected so far, by (label, photo path, number).
        self.given: dict[tuple[str, str, int], HandCard] = {}

    def check_photos(self, photos: Mapping[str, Sequence[Path]]) -> None:
        """Each correction names one photo of its set (``photos``: label -> paths); before any
        photo is counted."""
        for fix in self.fixes:
            photo_index(fix, [Path(p).name for p in photos.get(fix.label, ())])

    def corrected(self, label: str, photo: PhotoCount) -> tuple[PhotoCount, int]:
        """``photo`` with the cards its corrections name given to their players' decks, and
        how many corrections it took (each is kept in ``given``, with the card's place)."""
        fixes = [
            fix for fix in self.fixes
            if fix.label == label and fix.photo_name in (None, photo.path.name)
        ]  # fmt: skip
        if not fixes:
            return photo, 0
        numbers = card_numbers(photo.detections)
        hits = []
        for fix in fixes:
            if fix.number > len(numbers):  # numbers run 1..n
                raise _too_few(fix, photo.path.name, len(numbers))
            hit = int(np.flatnonzero(numbers == fix.number)[0])
            hits.append((hit, fix.player))
            path = str(photo.path.resolve())
            self.given[(label, path, fix.number)] = HandCard(
                label, path, fix.number, fix.player, quad_of(photo, hit),
                photo.identities.deck_name(hit),
            )
        return given_to(photo, hits, self.deck_of), len(fixes)

    def texts(self) -> list[str]:
        """The corrections as typed (the round's evidence keeps them)."""
        return [fix.text for fix in self.fixes]


def edit_saved_cards(
    number: int, evidence: RoundEvidence | None, fixes: Sequence[CardFix],
    deck_of: Mapping[str, str],
) -> tuple[dict[str, dict[str, int]], RoundEvidence]:
    """``round edit --card``: what the corrections do to a saved round's counts, and its new
    evidence.

    Returns each set's change per player (``{"centre": {"Ben": -1, "Cleo": 1}, ...}``) and
    the evidence with every corrected card's deck replaced (so that a later correction of the
    same card starts from this one) and the corrections added to its ``card_fixes``. The
    counts as scored (``counted_center``, each photo's ``counts``) stay as they were: like
    ``--center``, these are corrections made by hand after scoring.
    """
    no_record = CardtallyError(
        f"Round {number} keeps no record of its cards (it was typed in by hand, or scored "
        "before cardtally kept one); correct its counts with --center NAME=N or --leftover NAME=N."
    )
    if evidence is None or not evidence.from_photos:
        raise no_record
    photos = {label: list(evidence.photos(label)) for label in EVIDENCE_KEYS}
    hand_cards = list(evidence.hand_cards)
    player_of = {deck: player for player, deck in deck_of.items()}
    change: dict[str, dict[str, int]] = {label: {} for label in EVIDENCE_KEYS}
    for fix in fixes:
        if not all(p.card_decks is not None for p in photos[fix.label]):
            raise no_record
        index = photo_index(fix, [p.name for p in photos[fix.label]])
        photo = photos[fix.label][index]
        card_decks = list(photo.card_decks or ())
        if fix.number > len(card_decks):
            raise _too_few(fix, photo.name, len(card_decks))
        old_deck = card_decks[fix.number - 1]
        old_player = player_of.get(old_deck) if old_deck is not None else None
        hand_cards.append(HandCard(fix.label, photo.path, fix.number, fix.player,
                                   saved_quad_xy(photo, fix.number), old_deck))
        if old_player is not None:
            change[fix.label][old_player] = change[fix.label].get(old_player, 0) - 1
        change[fix.label][fix.player] = change[fix.label].get(fix.player, 0) + 1
        card_decks[fix.number - 1] = deck_of[fix.player]
        photos[fix.label][index] = dataclasses.replace(photo, card_decks=tuple(card_decks))
    edited = dataclasses.replace(
        evidence, center=tuple(photos[CENTRE]), leftover=tuple(photos[LEFTOVER]),
        hand_cards=tuple(hand_cards), card_fixes=(*evidence.card_fixes, *(f.text for f in fixes)),
    )
    return change, edited


def moved(entry: RoundEntry, change: dict[str, dict[str, int]], fixes: Sequence[CardFix]
          ) -> RoundEntry:
    """``entry`` with each player's counts changed by ``change`` (``edit_saved_cards``)."""
    counts = []
    for c in entry.counts:
        center = c.center_cards + change["centre"].get(c.player, 0)
        pile = c.pile_cards + change["leftover"].get(c.player, 0)
        if min(center, pile) < 0:
            listed = " ".join(f"--card {fix.text}" for fix in fixes)
            raise CardtallyError(
                f"{listed} would leave {c.player} with {min(center, pile)} cards; the round's "
                "counts were changed by hand since it was scored. Correct them with --center "
                "NAME=N or --leftover NAME=N."
            )
        counts.append(dataclasses.replace(c, center_cards=center, pile_cards=pile))
    return dataclasses.replace(entry, counts=tuple(counts))
