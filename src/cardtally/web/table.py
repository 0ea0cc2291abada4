"""The round the table is scoring on ``cardtally serve``'s page: photos uploaded one by one,
counted, corrected card by card and saved, all through the round use case
(``rounds.photo_round.PhotoRound``) that ``score`` runs, so the ledger gets the same round.

One :class:`Table` serves every phone at the table: they see and change the same open round.
Its methods are blocking (counting takes seconds) and not thread-safe on their own; the web
app runs them off the event loop, one at a time (``Table.lock``), which also keeps a single
writer on the ledger.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CardtallyError
from ..home import decks_dir, ledger_path
from ..rounds.card_fixes import CardFixer, parse_card_fixes
from ..rounds.evidence import CENTRE, LEFTOVER
from ..rounds.games import game_json, open_for_changes, open_for_reading, start_game
from ..rounds.leftovers import NONE, PHOTOS, TYPED, typed_leftovers
from ..rounds.photo_round import PhotoRound
from ..rounds.review import discard_review_dir, in_photo_px, new_review_dir
from ..rounds.unsaved_review import UnsavedReview
from ..scoring.entry import resolve_player
from ..scoring.ledger import NEW_GAME_HINT, Game
from ..scoring.rounds import round_scores
from ..scoring.rules import RULE_SETS, get_rules, with_overrides
from ..vision.count import PhotoCount, check_distinct_photos
from ..vision.decks import profile_paths
from ..vision.label_layout import card_numbers
from .calibration_photos import CalibrationPhotos

#: The photo sets of a round, as the page names them.
SETS = (CENTRE, LEFTOVER)
#: The ways the leftover piles can be given (``rounds.leftovers``).
LEFTOVER_SOURCES = (PHOTOS, TYPED, NONE)
#: File name endings for the image types phones upload (the loader reads the bytes, not the
#: name; the ending only keeps the kept photo recognisable).
SUFFIXES = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp",
            "image/heic": ".heic", "image/heif": ".heif"}


@dataclass
class OpenRound:
    """A round being scored: its photo count and the marker of its review folder."""

    scoring: PhotoRound
    unsaved: UnsavedReview

    @property
    def photos(self) -> list[Path]:
        """Every photo of the round so far, centre first."""
        return [path for label in SETS for path in self.scoring.paths[label]]


class Table:
    """The open round of the table (at most one), and what the page can do with it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open: OpenRound | None = None
        #: Changes made through the page so far (part of :meth:`version`).
        self.changes = 0
        self.calibration = CalibrationPhotos()

    def version(self) -> str:
        """A tag of what the page shows, for the phones to poll: it changes with every change
        made on the page and whenever the ledger or the decks folder changes on disk (a round
        saved or a deck calibrated on the laptop). Cheap, and taken without the lock."""
        stamps = [str(self.changes)]
        for path in (ledger_path(), decks_dir()):
            try:
                stamps.append(str(path.stat().st_mtime_ns))
            except OSError:
                stamps.append("0")
        return "-".join(stamps)

    # -- reading -----------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What the page shows: the game (players, decks, rounds, totals), the open round,
        and what a new game can be started with (the calibrated decks, the rule sets)."""
        choices = {"decks": [path.stem for path in profile_paths()],
                   "rule_sets": list(RULE_SETS)}
        choices["version"] = self.version()
        choices["calibration"] = {"photos": [path.name for path in self.calibration.paths]}
        no_game = {"game": None, "round": None, **choices,
                   "hint": f"No game yet. Start one with: {NEW_GAME_HINT}"}
        ledger = open_for_reading()
        if ledger is None:
            return no_game
        with ledger:
            current = ledger.current_game_id()
            if current is None and self.open is None:
                return no_game
            game = ledger.game(self.open.scoring.game.id if self.open else None)
            shown = game_json(game, current)
        return {"game": shown, "round": None if self.open is None else round_view(self.open),
                **choices}

    def review_image(self, label: str, index: int) -> Path:
        """The review image of the open round's photo ``index`` (from 0) of set ``label``."""
        scoring = self._scoring()
        paths = scoring.paths.get(label, [])
        if not 0 <= index < len(paths) or paths[index] not in scoring.counter.reviews:
            raise CardtallyError(f"The round has no {label} photo {index + 1}.")
        return scoring.counter.reviews[paths[index]]

    # -- changing ----------------------------------------------------------------------------

    def new_game(self, seats: list[tuple[str, str]], rules_name: str,
                 overrides: dict[str, int | None]) -> int:
        """Start a game (``game new``'s use case) for the (player, deck) ``seats`` under the
        rule set ``rules_name`` with its house-rule ``overrides`` (``target``, ``rounds``,
        ``penalty``, ``bonus``, ``pile_size``, ``deck_size``; ``None`` keeps the rule set's);
        only calibrated decks, since the page scores its rounds from photos. Its number."""
        if self.open is not None:
            raise CardtallyError(
                f"Round {round_view_number(self.open)} is being scored: save it or start it "
                "over before starting a new game."
            )
        rules = with_overrides(get_rules(rules_name), **overrides)
        texts = [f"{player}={deck}" for player, deck in seats]
        return start_game(rules, texts, calibrated_only=True).id

    def add_photo(self, label: str, data: bytes, content_type: str) -> None:
        """Keep an uploaded photo in the round's review folder and count it into the round;
        a photo the loader refuses (damaged, not an image) is removed again."""
        if label not in SETS:
            raise CardtallyError(f"Unknown photo set {label!r}: give centre or leftover.")
        open_round = self._open_or_start()
        scoring = open_round.scoring
        if label == LEFTOVER and scoring.leftovers.source != PHOTOS:
            given = "typed in" if scoring.leftovers.source == TYPED else "all empty"
            raise CardtallyError(
                f"The round gives the leftover piles as {given}; choose photos for them first."
            )
        taken = scoring.paths[label]
        stem = label if not taken else f"{label}-{len(taken) + 1}"
        path = scoring.review_dir / f"{stem}{SUFFIXES.get(content_type, '.img')}"
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise CardtallyError(f"Cannot keep the photo in {path.parent}: {exc.strerror}.") from None
        try:
            check_distinct_photos([*open_round.photos, path])
            scoring.add_photos(label, [path])
        except BaseException:
            path.unlink(missing_ok=True)
            raise

    def give_card(self, label: str, photo_name: str, number: int, player: str) -> str:
        """Count card ``number`` of a photo's review image for ``player``: the correction
        ``score --card label:PHOTO:N=PLAYER`` makes. Returns the correction as typed."""
        scoring = self._scoring()
        text = f"{label}:{photo_name}:{number}={player}"
        fixer = CardFixer(parse_card_fixes([text], scoring.game.players),
                          {s.player: s.deck for s in scoring.game.seats})
        fixer.check_photos(scoring.paths)
        scoring.correct(fixer, [])
        return text

    def settle(self, caller: str | None, source: str, left: Mapping[str, object]) -> None:
        """Who called out (``None``: nobody) and how the leftover piles are given (``score``'s
        choice): ``photos``, ``typed`` (``left``: the counts by player, ``score --left
        NAME=N``; the caller's may be left out) or ``none`` (every pile is empty)."""
        scoring = self._open_or_start().scoring
        if source not in LEFTOVER_SOURCES:
            raise CardtallyError(
                f"Unknown way of giving the leftover piles {source!r}: give "
                f"{', '.join(LEFTOVER_SOURCES)}."
            )
        if source != PHOTOS and scoring.paths[LEFTOVER]:
            raise CardtallyError(
                "The round has leftover photos, so the piles are counted from them; start the "
                "round again to drop them."
            )
        players = scoring.game.players
        caller_name = resolve_player(caller, players, "--caller") if caller else None
        texts = [f"{player}={count}" for player, count in left.items()] if source == TYPED else []
        scoring.leftovers = typed_leftovers(source, texts, players, caller_name)
        scoring.caller = caller_name

    def fix_count(self, text: str) -> str:
        """Correct a count before saving: ``score --fix``'s ``PLAYER=centre:+N`` or
        ``PLAYER=pile:-N`` (the same checks). Returns the correction as kept."""
        self._scoring().add_fixes([text.strip()])
        return text.strip()

    def add_calibration_photo(self, data: bytes, content_type: str) -> None:
        """Keep an uploaded photo of a deck's backs for the next calibration."""
        self.calibration.add(data, SUFFIXES.get(content_type, ".img"))

    def calibrate(self, deck: str, replace: bool) -> dict[str, str | None]:
        """Calibrate ``deck`` from the photos uploaded for it (``cardtally calibrate``'s use
        case): what to tell the user (``summary``, and ``warning`` where it looks like another
        deck)."""
        done = self.calibration.calibrate(deck, replace)
        return {"summary": done.summary(), "warning": " ".join(done.warnings()) or None}

    def save(self) -> int:
        """Save the open round in the ledger (``score``'s own save); its number."""
        if self.open is None:
            raise CardtallyError("There is no round to save: photograph the centre cards first.")
        scoring = self.open.scoring
        missing = why_not_ready(scoring)
        if missing:
            raise CardtallyError(f"Not saved: {missing}")
        with open_for_changes() as ledger:
            now = ledger.game(scoring.game.id)
            if now.summary.finished:
                raise CardtallyError(
                    f"Game {now.id} is finished; start a new game with: {NEW_GAME_HINT}"
                )
            number = scoring.save(ledger, before_commit=self.open.unsaved.settled)
        self.open = None
        return number

    def discard(self) -> None:
        """Drop the open round (its review images; the uploaded photos stay in its folder)."""
        if self.open is None:
            return
        discard_review_dir(self.open.scoring.review_dir, keep=self.open.photos)
        self.open.unsaved.settled()
        self.open = None

    # -- helpers -----------------------------------------------------------------------------

    def _scoring(self) -> PhotoRound:
        if self.open is None:
            raise CardtallyError("There is no round yet: photograph the centre cards first.")
        return self.open.scoring

    def _open_or_start(self) -> OpenRound:
        if self.open is not None:
            return self.open
        with open_for_changes() as ledger:
            game = ledger.game(None)
        if game.summary.finished:
            raise CardtallyError(f"Game {game.id} is finished; start a new game with: {NEW_GAME_HINT}")
        review_dir = new_review_dir(game.id, len(game.rounds) + 1)
        unsaved = UnsavedReview(review_dir)
        try:
            scoring = PhotoRound(game, review_dir, no_cards(game), [], None)
        except BaseException:
            discard_review_dir(review_dir)
            unsaved.settled()
            raise
        self.open = OpenRound(scoring, unsaved)
        return self.open


def round_view_number(open_round: OpenRound) -> int:
    """The number the open round will get when saved."""
    return len(open_round.scoring.game.rounds) + 1


def no_cards(game: Game) -> CardFixer:
    """A card fixer with no corrections yet (the page gives them one by one)."""
    return CardFixer([], {s.player: s.deck for s in game.seats})


def why_not_ready(scoring: PhotoRound) -> str | None:
    """What the round still lacks before it can be saved (``None``: nothing)."""
    if not scoring.paths[CENTRE]:
        return "photograph the centre cards first."
    if scoring.leftovers.source == PHOTOS and not scoring.paths[LEFTOVER]:
        return ("photograph the leftover piles, type their counts, or say that every pile is "
                "empty.")
    return None


def round_view(open_round: OpenRound) -> dict[str, Any]:
    """The open round as the page shows it: each photo with its cards (for tapping), the
    counts and points as they would be saved, warnings and the cards to check."""
    scoring = open_round.scoring
    game = scoring.game
    entry, warnings = scoring.proposal()
    scores = round_scores(entry, game.rules)
    totals = {s.player: s.total for s in game.summary.standings}
    player_of = scoring.player_of
    photos = {
        label: [photo_view(photo, label, index, player_of)
                for index, photo in enumerate(scoring.results[label].photos)]
        for label in SETS
    }
    return {
        "number": round_view_number(open_round),
        "photos": photos,
        "players": [
            {"player": c.player, "centre": c.center_cards, "leftover": c.pile_cards,
             "points": scores[c.player], "total": totals.get(c.player, 0) + scores[c.player]}
            for c in entry.counts
        ],
        "caller": entry.caller,
        "leftovers": scoring.leftovers.source,
        "left": dict(scoring.leftovers.typed),
        "fixes": list(scoring.fixes),
        "warnings": warnings,
        "to_check": scoring.cards_to_check(),
        "corrections": [text for fixer in scoring.fixers for text in fixer.texts()],
        "missing": why_not_ready(scoring),
    }


def photo_view(photo: PhotoCount, label: str, index: int, player_of: dict[str, str]
               ) -> dict[str, Any]:
    """One counted photo: its name, review image and every card's number, whose it is and
    where its centre lies (fractions of the photo's width and height)."""
    detections = in_photo_px(photo)
    width, height = detections.image_wh
    numbers = card_numbers(detections)
    cards = []
    for i in sorted(range(len(detections)), key=lambda k: int(numbers[k])):
        deck = photo.identities.deck_name(i)
        x, y = detections.centre_xy[i]
        cards.append({"number": int(numbers[i]), "deck": deck,
                      "player": player_of.get(deck) if deck else None,
                      "x": round(float(x) / width, 4), "y": round(float(y) / height, 4)})
    return {"name": photo.path.name, "set": label, "index": index,
            "photo_wh": [int(width), int(height)], "cards": cards}
