"""Count a photo-scored round again from its saved evidence.

The evidence that ``score`` saved names each photo with its SHA-256, the ``--fix`` corrections
and the counted values. A re-count checks every photo is still there and unchanged, counts the
photos with the current models, applies the same ``--fix`` corrections and replaces the
round's counts and evidence in one transaction. Hand corrections are kept
(``recount_keep``): cards given by hand go again to the card in their place, counts typed
with ``round edit`` stay; one that cannot be kept makes the re-count refuse unless told to
drop it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from ..errors import CardtallyError
from ..scoring.ledger import Game, Ledger, StoredRound
from ..scoring.rounds import RoundEntry
from ..vision.count import PhotoCount, sha256_of
from .audit import entry_change
from .doubts import cards_to_check
from .evidence import CENTRE, LEFTOVER, Recount, RoundEvidence, photo_round_evidence
from .hand_cards import HandCardKeeper
from .photo_round import game_decks, photo_round
from .recount_keep import DROP_HINT, TYPED_OPTIONS, corrections_to_keep, with_typed_counts
from .review import CountProgress, ReviewCounter, remove_replaced_reviews


def saved_photos(number: int, stored: StoredRound) -> tuple[RoundEvidence, list[Path], list[Path]]:
    """The round's evidence and its photo paths, each checked to exist with the saved SHA-256."""
    evidence = RoundEvidence.from_json(stored.evidence)
    if evidence is None:
        raise CardtallyError(
            f"Round {number} was typed in by hand; there are no photos to re-count."
        )
    if not evidence.from_photos or not evidence.complete or not evidence.center:
        raise CardtallyError(
            f"The saved evidence of round {number} is incomplete; it cannot be re-counted."
        )
    for photo in evidence.all_photos:
        path = Path(photo.path)
        if not path.is_file():
            raise CardtallyError(f"Cannot re-count round {number}: its photo {path} is missing.")
        if sha256_of(path) != photo.sha256:
            raise CardtallyError(
                f"Cannot re-count round {number}: its photo {path} has changed since the "
                "round was scored (its SHA-256 differs)."
            )
    return (evidence, [Path(p.path) for p in evidence.center],
            [Path(p.path) for p in evidence.leftover])


def check_counted_unchanged(number: int, evidence: RoundEvidence,
                            counted: list[PhotoCount]) -> None:
    """The bytes counted are the bytes saved (a photo replaced while being counted)."""
    for saved, photo in zip(evidence.all_photos, counted, strict=True):
        if photo.sha256 != saved.sha256:
            raise CardtallyError(
                f"Cannot re-count round {number}: its photo {photo.path} changed while it was "
                "being counted."
            )


class RoundRecount:
    """Round ``number`` of ``game`` counted again: :meth:`count` it, look at the new
    :attr:`entry` (``changed``?), then :meth:`save` it.

    Refuses up front (a :class:`~cardtally.errors.CardtallyError`) where the round has no
    photos, they are gone or changed, or a correction cannot be kept and
    ``drop_corrections`` is not given.
    """

    def __init__(self, game: Game, number: int, drop_corrections: bool = False) -> None:
        self.game = game
        self.number = number
        self.drop_corrections = drop_corrections
        self.stored = game.round(number)
        self.old_evidence, self.center_paths, self.leftover_paths = saved_photos(number,
                                                                                  self.stored)
        self.fixes = list(self.old_evidence.fixes)
        kept = corrections_to_keep(game, self.stored, self.old_evidence)
        if kept.lost and not drop_corrections:
            raise CardtallyError(
                f"Cannot re-count round {number} and keep its corrections: "
                f"{'; '.join(kept.lost)}. {DROP_HINT}"
            )
        self.lost_corrections = kept.lost
        self.typed_counts = {} if kept.lost else kept.typed_counts
        deck_of = {seat.player: seat.deck for seat in game.seats}
        self.keeper = HandCardKeeper(number, kept.hand_cards, deck_of, drop_corrections)
        self.decks = game_decks(game)
        self.leftovers = self.old_evidence.leftovers

    @property
    def n_photos(self) -> int:
        """How many photos the re-count counts."""
        return len(self.center_paths) + len(self.leftover_paths)

    def count(self, review_dir: Path, progress: CountProgress | None = None) -> None:
        """Count the saved photos again, their review images drawn into ``review_dir``."""
        self.counter = ReviewCounter(self.decks, review_dir, correct=self.keeper.corrected,
                                     progress=progress)
        self.center = self.counter.run(CENTRE, self.center_paths)
        self.leftover = self.counter.run(LEFTOVER, self.leftover_paths)
        self.counter.progress = None
        check_counted_unchanged(self.number, self.old_evidence,
                                [*self.center.photos, *self.leftover.photos])
        entry, self.warnings = photo_round(self.game, self.center, self.leftover, self.fixes,
                                           self.stored.entry.caller, self.leftovers)
        self.entry = with_typed_counts(entry, self.typed_counts)

    @property
    def changed(self) -> bool:
        """Whether the new counts differ from the saved ones."""
        return self.entry != self.stored.entry

    def kept_texts(self) -> list[str]:
        """The corrections kept, as typed."""
        texts = [f"--card {card.text}" for card in self.keeper.kept]
        texts += [f"{TYPED_OPTIONS[label]} {player}={n}"
                  for label, values in self.typed_counts.items() for player, n in values.items()]
        return texts

    def dropped_texts(self) -> list[str]:
        """The corrections dropped (only with ``drop_corrections``), described."""
        return [*self.lost_corrections, *(f"--card {card.text}" for card in self.keeper.dropped)]

    def cards_to_check(self) -> list[str]:
        """The doubtful cards of the new count, by their numbers in the review images."""
        return cards_to_check(self.center, CENTRE) + cards_to_check(self.leftover, LEFTOVER)

    def evidence(self) -> RoundEvidence:
        """The new evidence: the new count's, the corrections kept, the trail and re-counts."""
        old = self.old_evidence
        evidence = photo_round_evidence(
            self.game, self.counter, self.center, self.leftover, self.fixes,
            [card.text for card in self.keeper.kept], self.leftovers,
        )
        how = "round recount" + (" --drop-corrections" if self.drop_corrections else "")
        previous = self.stored.entry.counts
        recount = Recount(datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          {c.player: c.center_cards for c in previous},
                          {c.player: c.pile_cards for c in previous})
        return replace(
            evidence,
            hand_cards=tuple(self.keeper.kept),
            typed_counts=self.typed_counts,
            corrections=(*(old.corrections or ()),
                         entry_change(how, "", self.stored.entry, self.entry)),
            recounts=(*(old.recounts or ()), recount),
        )

    def save(self, ledger: Ledger) -> None:
        """Replace the round's counts and evidence, unless it changed since it was read; the
        old review images are removed."""
        evidence = self.evidence()
        with ledger.transaction():
            now = ledger.game(self.game.id)
            if len(now.rounds) != len(self.game.rounds) or now.round(self.number) != self.stored:
                raise CardtallyError(
                    f"Not saved: round {self.number} of game {self.game.id} changed while its "
                    "photos were being counted; run recount again."
                )
            ledger.replace_round(self.game.id, self.number, self.entry, self.warnings,
                                 evidence=evidence.to_json())
        remove_replaced_reviews(self.old_evidence)


def counts_json(entry: RoundEntry) -> dict[str, dict[str, int]]:
    """A round's counts by player as ``round recount --json`` shows them before and after."""
    return {c.player: {"center": c.center_cards, "leftover": c.pile_cards} for c in entry.counts}
