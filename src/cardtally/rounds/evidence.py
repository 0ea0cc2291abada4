"""What a round keeps in the ledger about how it was counted and corrected (its evidence),
as typed records: each photo with its SHA-256, review image, cards file and counts; the
corrections and their trail; the leftovers; the re-counts. So a round can be shown, corrected
and counted again.

The ledger stores the JSON of :meth:`RoundEvidence.to_json`. :meth:`RoundEvidence.from_json`
reads it back without trusting it: rounds saved by older versions lack some of it, and a
hand-edited ledger may hold anything; what cannot be read is left out (and a photo that
cannot be read makes the evidence incomplete).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scoring.ledger import Game
from ..vision.count import CountResult, PhotoCount
from ..vision.label_layout import card_numbers
from .hand_cards import HandCard
from .leftovers import FROM_PHOTOS, Leftovers

if TYPE_CHECKING:
    from .review import ReviewCounter

#: Labels of a round's two photo sets (messages, review file names, corrections) ...
CENTRE, LEFTOVER = "centre", "leftover"
#: ... and their keys in its saved evidence.
EVIDENCE_KEYS = {CENTRE: "center", LEFTOVER: "leftover"}
#: Where a round's counts came from.
PHOTOS_SOURCE, HAND_SOURCE = "photos", "hand"


def _counts(value: Any) -> dict[str, int] | None:
    """``{player or deck: n}``, or None where ``value`` is not such a mapping."""
    if not isinstance(value, dict):
        return None
    try:
        return {str(key): int(n) for key, n in value.items()}
    except (TypeError, ValueError):
        return None


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(text) for text in value) if isinstance(value, list) else ()


@dataclass(frozen=True)
class PhotoEvidence:
    """One counted photo: where it is, its SHA-256, its review image and cards file (``None``
    where not kept), its counts per deck, and ``card_decks``, every card's deck by its number
    in the review image (card 1 first; ``None``: counted for nobody; the whole list ``None``
    where the round keeps no record of its cards)."""

    path: str
    sha256: str
    review_image: str | None = None
    cards_file: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    unknown: int = 0
    face_up: int = 0
    cards: int | None = None
    card_decks: tuple[str | None, ...] | None = None

    @classmethod
    def of(cls, photo: PhotoCount, review: Path | None, cards_file: Path | None = None
           ) -> PhotoEvidence:
        """What the ledger keeps about ``photo``, counted, with its review image and cards."""
        by_number = np.argsort(card_numbers(photo.detections), kind="stable")
        return cls(
            path=str(photo.path.resolve()),
            sha256=photo.sha256,
            review_image=None if review is None else str(review),
            cards_file=None if cards_file is None else str(cards_file),
            counts=photo.identities.counts(),
            unknown=photo.identities.unknown_count,
            face_up=photo.identities.face_up_count,
            cards=len(photo.detections),
            card_decks=tuple(photo.identities.deck_name(int(i)) for i in by_number),
        )

    @property
    def name(self) -> str:
        """The photo's file name."""
        return Path(self.path).name

    def to_json(self) -> dict[str, Any]:
        """The photo's entry in the evidence JSON."""
        return {
            "path": self.path,
            "sha256": self.sha256,
            "review_image": self.review_image,
            "cards_file": self.cards_file,
            "counts": dict(self.counts),
            "unknown": self.unknown,
            "face_up": self.face_up,
            "cards": self.cards,
            "card_decks": None if self.card_decks is None else list(self.card_decks),
        }

    @classmethod
    def from_json(cls, data: Any) -> PhotoEvidence | None:
        """The photo an evidence entry describes; None without a path and a SHA-256."""
        if not isinstance(data, dict) or not isinstance(data.get("path"), str) \
                or not isinstance(data.get("sha256"), str):
            return None
        decks = data.get("card_decks")
        cards = data.get("cards")

        def text(key: str) -> str | None:
            return str(data[key]) if data.get(key) else None

        return cls(
            path=data["path"],
            sha256=data["sha256"],
            review_image=text("review_image"),
            cards_file=text("cards_file"),
            counts=_counts(data.get("counts")) or {},
            unknown=int(data.get("unknown") or 0) if isinstance(data.get("unknown"), int) else 0,
            face_up=int(data.get("face_up") or 0) if isinstance(data.get("face_up"), int) else 0,
            cards=cards if isinstance(cards, int) and not isinstance(cards, bool) else None,
            card_decks=(tuple(None if d is None else str(d) for d in decks)
                        if isinstance(decks, list) else None),
        )


@dataclass(frozen=True)
class CountChange:
    """One count a correction changed: ``player``'s ``label`` count, ``before`` -> ``after``."""

    player: str
    label: str
    before: int
    after: int

    def to_json(self) -> dict[str, Any]:
        """The change's entry in the evidence JSON."""
        return {"player": self.player, "set": self.label, "before": self.before,
                "after": self.after}

    @classmethod
    def from_json(cls, data: Any) -> CountChange | None:
        """The change read back from the evidence JSON; None when it is damaged."""
        try:
            return cls(str(data["player"]), str(data["set"]), int(data["before"]),
                       int(data["after"]))
        except (KeyError, TypeError, ValueError):
            return None

    @property
    def text(self) -> str:
        """``PLAYER LABEL BEFORE -> AFTER``, as a round's list of corrections shows it."""
        return f"{self.player} {self.label} {self.before} -> {self.after}"


@dataclass(frozen=True)
class Correction:
    """One correction: ``command`` (score, round edit, round recount), when, what was typed
    (``text``: the options as given) and the counts it changed."""

    at: str
    command: str
    text: str
    changes: tuple[CountChange, ...]

    def to_json(self) -> dict[str, Any]:
        """The correction's entry in the evidence JSON."""
        return {"at": self.at, "command": self.command, "text": self.text,
                "changes": [change.to_json() for change in self.changes]}

    @classmethod
    def from_json(cls, data: Any) -> Correction | None:
        """The correction read back from the evidence JSON; None when it is not
        an object (damaged changes are left out)."""
        if not isinstance(data, dict):
            return None
        changes = data.get("changes")
        read = [CountChange.from_json(c) for c in changes] if isinstance(changes, list) else []
        return cls(str(data.get("at") or ""), str(data.get("command") or ""),
                   str(data.get("text") or ""), tuple(c for c in read if c is not None))


@dataclass(frozen=True)
class Recount:
    """A re-count of the round: when, and the counts it replaced (by player)."""

    at: str
    previous_center: Mapping[str, int]
    previous_leftover: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        """The re-count's entry in the evidence JSON."""
        return {"at": self.at, "previous_center": dict(self.previous_center),
                "previous_leftover": dict(self.previous_leftover)}

    @classmethod
    def from_json(cls, data: Any) -> Recount | None:
        """The re-count read back from the evidence JSON; None when it is not an
        object."""
        if not isinstance(data, dict):
            return None
        return cls(str(data.get("at")), _counts(data.get("previous_center")) or {},
                   _counts(data.get("previous_leftover")) or {})


@dataclass(frozen=True)
class RoundEvidence:
    """A round's evidence. A round scored from photos (``source`` photos) has its photos,
    the corrections as typed (``fixes``: ``--fix``; ``card_fixes``: ``--card``), the counts
    the photos gave by player (``counted_*``, after the card corrections), the leftovers, the
    cards given by hand with their places, and the counts typed with ``round edit``
    (``typed_counts``, by set label and player). ``corrections`` is the audit trail (None:
    saved before cardtally kept one); ``recounts`` the re-counts. A round typed in by hand has
    evidence only once it is corrected (``source`` hand: the trail alone). ``complete`` is
    False where a saved photo entry could not be read."""

    source: str
    center: tuple[PhotoEvidence, ...] = ()
    leftover: tuple[PhotoEvidence, ...] = ()
    fixes: tuple[str, ...] = ()
    card_fixes: tuple[str, ...] = ()
    counted_center: Mapping[str, int] | None = None
    counted_leftover: Mapping[str, int] | None = None
    leftovers: Leftovers = FROM_PHOTOS
    hand_cards: tuple[HandCard, ...] = ()
    corrections: tuple[Correction, ...] | None = None
    typed_counts: Mapping[str, Mapping[str, int]] | None = None
    recounts: tuple[Recount, ...] | None = None
    complete: bool = True

    @property
    def from_photos(self) -> bool:
        """Whether the round was scored from photos."""
        return self.source == PHOTOS_SOURCE

    def photos(self, label: str) -> tuple[PhotoEvidence, ...]:
        """The photos of set ``label`` (``centre`` or ``leftover``)."""
        return self.center if label == CENTRE else self.leftover

    @property
    def all_photos(self) -> tuple[PhotoEvidence, ...]:
        """The centre photos, then the leftover photos."""
        return (*self.center, *self.leftover)

    def with_correction(self, correction: Correction) -> RoundEvidence:
        """This evidence with ``correction`` added to its trail."""
        return replace(self, corrections=(*(self.corrections or ()), correction))

    def to_json(self) -> dict[str, Any]:
        """The JSON the ledger keeps (the keys each version of cardtally wrote)."""
        data: dict[str, Any] = {"source": self.source}
        if self.from_photos:
            data.update({
                EVIDENCE_KEYS[CENTRE]: [photo.to_json() for photo in self.center],
                EVIDENCE_KEYS[LEFTOVER]: [photo.to_json() for photo in self.leftover],
                "fixes": list(self.fixes),
                "card_fixes": list(self.card_fixes),
            })
            for key, counts in (("counted_center", self.counted_center),
                                ("counted_leftover", self.counted_leftover)):
                if counts is not None:
                    data[key] = dict(counts)
            data.update(self.leftovers.to_json())
            data["hand_cards"] = [card.to_json() for card in self.hand_cards]
        if self.corrections is not None:
            data["corrections"] = [correction.to_json() for correction in self.corrections]
        if self.typed_counts is not None:
            data["typed_counts"] = {label: dict(values)
                                    for label, values in self.typed_counts.items()}
        if self.recounts is not None:
            data["recounts"] = [recount.to_json() for recount in self.recounts]
        return data

    @classmethod
    def from_json(cls, data: Any) -> RoundEvidence | None:
        """The evidence a ledger row holds (None: none, a round typed in and never corrected);
        whatever cannot be read is left out."""
        if data is None:
            return None
        if not isinstance(data, dict):
            return cls(source="", complete=False)
        complete = True
        photos: dict[str, tuple[PhotoEvidence, ...]] = {}
        for label, key in EVIDENCE_KEYS.items():
            entries = data.get(key)
            if not isinstance(entries, list):
                complete = complete and data.get("source") != PHOTOS_SOURCE
                entries = []
            read = [PhotoEvidence.from_json(entry) for entry in entries]
            complete = complete and None not in read
            photos[label] = tuple(photo for photo in read if photo is not None)
        hand_cards = []
        for card in data.get("hand_cards") or []:
            try:
                hand_cards.append(HandCard.from_json(card))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
        corrections = data.get("corrections")
        trail = ([Correction.from_json(c) for c in corrections]
                 if isinstance(corrections, list) else None)
        typed = data.get("typed_counts")
        recounts = data.get("recounts")
        return cls(
            source=str(data.get("source") or ""),
            center=photos[CENTRE],
            leftover=photos[LEFTOVER],
            fixes=_texts(data.get("fixes")),
            card_fixes=_texts(data.get("card_fixes")),
            counted_center=_counts(data.get("counted_center")),
            counted_leftover=_counts(data.get("counted_leftover")),
            leftovers=Leftovers.from_evidence(data),
            hand_cards=tuple(hand_cards),
            corrections=None if trail is None else tuple(c for c in trail if c is not None),
            typed_counts=({str(label): counts for label, values in typed.items()
                           if (counts := _counts(values)) is not None}
                          if isinstance(typed, dict) else None),
            recounts=(tuple(r for r in map(Recount.from_json, recounts) if r is not None)
                      if isinstance(recounts, list) else None),
            complete=complete,
        )


def counts_by_player(game: Game, result: CountResult) -> dict[str, int]:
    """The cards of ``result`` per player of ``game`` (by their decks)."""
    counts = result.counts
    return {seat.player: counts[seat.deck] for seat in game.seats}


def photo_round_evidence(
    game: Game,
    counter: ReviewCounter,
    center: CountResult,
    leftover: CountResult,
    fixes: Sequence[str],
    card_fixes: Sequence[str] = (),
    leftovers: Leftovers = FROM_PHOTOS,
) -> RoundEvidence:
    """The evidence of a round counted from photos (``round recount`` reads it back).

    The photos' counts are those after the ``--card`` corrections (``card_fixes``), which
    the review images show; ``fixes`` (``--fix``) apply on top of them. Typed ``leftovers``
    count with the leftover photos (there are none then).
    """
    typed = leftovers.counts(game.players)
    piles = counts_by_player(game, leftover)
    return RoundEvidence(
        source=PHOTOS_SOURCE,
        center=counter.evidence(center),
        leftover=counter.evidence(leftover),
        fixes=tuple(fixes),
        card_fixes=tuple(card_fixes),
        counted_center=counts_by_player(game, center),
        counted_leftover={player: n + typed[player] for player, n in piles.items()},
        leftovers=leftovers,
    )
