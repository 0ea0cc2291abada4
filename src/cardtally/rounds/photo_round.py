"""A round scored from photos: count the centre and leftover photos, apply the corrections,
propose the round with its warnings and doubtful cards, and save it.

Safety rules: nothing is written to the ledger before :meth:`PhotoRound.save`; the round is
saved in one transaction, and only if the game has not changed since it was read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ..errors import CardtallyError
from ..scoring.fixes import apply_fixes
from ..scoring.ledger import Game, Ledger
from ..scoring.rounds import PlayerCounts, RoundEntry, physical_warnings
from ..vision.count import CountResult, PhotoCount
from ..vision.decks import DeckSet, players_decks
from .audit import now_utc, score_trail
from .card_fixes import CardFixer
from .doubts import cards_to_check, point_swings
from .evidence import CENTRE, LEFTOVER, RoundEvidence, counts_by_player, photo_round_evidence
from .leftovers import FROM_PHOTOS, Leftovers
from .review import CountProgress, ReviewCounter


def game_decks(game: Game) -> DeckSet:
    """The calibrated profiles of the game's decks; a clear error naming every missing one."""
    return players_decks({seat.player: seat.deck for seat in game.seats})


def check_fixes(fixes: Sequence[str], players: Sequence[str]) -> None:
    """Check the syntax and player names of ``--fix`` before any photo is counted.

    Counts so large that no correction can make them negative: only the form is checked here.
    """
    big = {p: 1_000_000 for p in players}
    apply_fixes(big, big, fixes, players)


def fixes_hold(game: Game, deck_names: Sequence[str], leftovers: Leftovers, fixes: Sequence[str],
               photos: Mapping[str, Sequence[PhotoCount]], more_fixes: Sequence[str]) -> None:
    """Raise where ``fixes`` and ``more_fixes`` cannot apply to the counts of ``photos``
    (by set label): an unknown player, a count made negative."""
    center, leftover = (
        counts_by_player(game, CountResult(tuple(photos[label]), tuple(deck_names)))
        for label in (CENTRE, LEFTOVER)
    )
    leftover = _plus(leftover, leftovers.counts(game.players))
    apply_fixes(center, leftover, [*fixes, *more_fixes], game.players)


def _plus(counts: Mapping[str, int], more: Mapping[str, int]) -> dict[str, int]:
    return {player: n + more.get(player, 0) for player, n in counts.items()}


def photo_round(
    game: Game,
    center: CountResult,
    leftover: CountResult,
    fixes: Sequence[str],
    caller: str | None,
    leftovers: Leftovers = FROM_PHOTOS,
) -> tuple[RoundEntry, list[str]]:
    """The round the photos (and typed ``leftovers``) show after ``fixes``, and its warnings
    (physical checks, cards not scored, photos without cards)."""
    piles = _plus(counts_by_player(game, leftover), leftovers.counts(game.players))
    center_counts, pile_counts = apply_fixes(
        counts_by_player(game, center), piles, fixes, game.players
    )
    entry = RoundEntry(
        tuple(PlayerCounts(p, center_counts[p], pile_counts[p]) for p in game.players), caller
    )
    warnings = physical_warnings(entry, game.rules)
    for label, result in ((CENTRE, center), (LEFTOVER, leftover)):
        if result.unknown:
            warnings.append(
                f"{result.unknown} {label} card(s) match no player's deck and are not scored."
            )
        if result.face_up:
            warnings.append(f"{result.face_up} {label} card(s) lie face up and are not scored.")
        for photo in result.photos:
            if len(photo.detections) == 0:
                warnings.append(f"No cards found in the {label} photo {photo.path.name}.")
    return entry, warnings


def save_new_round(
    ledger: Ledger, seen: Game, entry: RoundEntry, warnings: list[str], evidence: RoundEvidence,
    before_commit: Callable[[], None] = lambda: None,
) -> int:
    """Append the round in one transaction, unless the game changed since ``seen`` was read;
    ``before_commit`` runs last inside it."""
    with ledger.transaction():
        now = ledger.game(seen.id)
        if len(now.rounds) != len(seen.rounds):
            raise CardtallyError(
                f"Not saved: game {seen.id} changed while the photos were being counted (it now "
                f"has {len(now.rounds)} rounds). Check it with 'cardtally game show' and run "
                "score again."
            )
        number = ledger.add_round(seen.id, entry, warnings, evidence=evidence.to_json())
        before_commit()
        return number


class PhotoRound:
    """A round of ``game`` being scored from photos: counted once (:meth:`count`), corrected
    any number of times (:meth:`correct`), then saved (:meth:`save`) or dropped.

    ``cards`` are the card corrections given up front (``--card``), ``fixes`` the count
    corrections (``--fix``); the review images go into ``review_dir``.
    """

    def __init__(self, game: Game, review_dir: Path, cards: CardFixer, fixes: Sequence[str],
                 caller: str | None, leftovers: Leftovers = FROM_PHOTOS) -> None:
        self.game = game
        self.decks = game_decks(game)
        self.review_dir = review_dir
        self.fixers = [cards]
        self.fixes = list(fixes)
        self.caller = caller
        self.leftovers = leftovers
        self.counter = ReviewCounter(self.decks, review_dir, correct=cards.corrected)
        self.paths: dict[str, list[Path]] = {CENTRE: [], LEFTOVER: []}
        # No photo counted yet: an empty count of each set (a page shows the round at once).
        self.results: dict[str, CountResult] = {
            label: CountResult((), self.decks.names) for label in (CENTRE, LEFTOVER)}

    @property
    def player_of(self) -> dict[str, str]:
        """Whose each deck is."""
        return {seat.deck: seat.player for seat in self.game.seats}

    def count(self, center: Sequence[Path], leftover: Sequence[Path],
              progress: CountProgress | None = None) -> None:
        """Count the photos (each corrected by the card corrections as it is counted)."""
        self.paths = {CENTRE: list(center), LEFTOVER: list(leftover)}
        self.fixers[0].check_photos(self.paths)
        self.counter.progress = progress
        try:
            self.results = {label: self.counter.run(label, paths)
                            for label, paths in self.paths.items()}
        finally:
            self.counter.progress = None

    def add_photos(self, label: str, paths: Sequence[Path]) -> None:
        """Count more photos of one set (``label``) into the round, one set at a time as they
        come (a web page uploads them one by one); the other set stays as it is (empty until
        its photos come). The card corrections given up front apply to these photos too."""
        added = self.counter.run(label, paths)
        before = self.results[label]
        self.results[label] = CountResult(before.photos + added.photos, before.deck_names)
        self.paths[label] = [*self.paths[label], *paths]

    def proposal(self) -> tuple[RoundEntry, list[str]]:
        """The round as it would be saved now, and its warnings."""
        return photo_round(self.game, self.results[CENTRE], self.results[LEFTOVER], self.fixes,
                           self.caller, self.leftovers)

    def cards_to_check(self) -> list[str]:
        """The doubtful cards, by their numbers in the review images."""
        return [line for label, result in self.results.items()
                for line in cards_to_check(result, label)]

    def point_swings(self) -> dict[str, tuple[int, int]]:
        """How far each player's points could move if the doubtful cards are someone else's."""
        return point_swings(self.results, self.player_of, self.game.players, self.game.rules)

    def check_more_fixes(self, photos: Mapping[str, Sequence[PhotoCount]],
                         more_fixes: Sequence[str]) -> None:
        """Raise where ``more_fixes`` cannot apply to these counts of the photos."""
        fixes_hold(self.game, self.decks.names, self.leftovers, self.fixes, photos, more_fixes)

    def add_fixes(self, fixes: Sequence[str]) -> None:
        """More count corrections (``--fix``), checked against the counts as they are now
        (the review images stay as they are: the cards are not moved)."""
        self.check_more_fixes({label: r.photos for label, r in self.results.items()}, fixes)
        self.fixes += fixes

    def correct(self, cards: CardFixer, fixes: Sequence[str]) -> None:
        """Apply more card corrections (review images drawn again) and count corrections."""
        self.results = {label: self.counter.correct_again(label, result, cards.corrected)
                        for label, result in self.results.items()}
        self.fixers.append(cards)
        self.fixes += fixes

    def evidence(self) -> RoundEvidence:
        """What the ledger keeps about the round: photos, corrections and their trail."""
        card_texts = [text for fixer in self.fixers for text in fixer.texts()]
        evidence = photo_round_evidence(self.game, self.counter, self.results[CENTRE],
                                        self.results[LEFTOVER], self.fixes, card_texts,
                                        self.leftovers)
        given = [card for fixer in self.fixers for card in fixer.given.values()]
        counted = {CENTRE: evidence.counted_center or {},
                   LEFTOVER: evidence.counted_leftover or {}}
        trail = score_trail(self.game.players, counted, given, self.fixes, self.player_of,
                            now_utc())
        return replace(evidence, hand_cards=tuple(given), corrections=tuple(trail))

    def save(self, ledger: Ledger, before_commit: Callable[[], None] = lambda: None) -> int:
        """Save the round as proposed now; its number. ``before_commit`` runs last inside the
        ledger's transaction (e.g. :meth:`UnsavedReview.settled`)."""
        entry, warnings = self.proposal()
        return save_new_round(ledger, self.game, entry, warnings, self.evidence(), before_commit)
