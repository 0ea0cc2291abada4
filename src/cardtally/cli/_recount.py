"""``cardtally round recount N``: count a photo-scored round again from its saved evidence.

The evidence that ``score`` saved names each photo with its SHA-256, the ``--fix`` corrections
and the counted values. A re-count checks every photo is still there and unchanged, counts the
photos with the current models, applies the same ``--fix`` corrections, shows old and new
counts, asks (like ``score``) and replaces the round's counts and evidence in one transaction.
Hand corrections are kept (``rounds.recount_keep``): cards given by hand go again to the card in
their place, counts typed with ``round edit`` stay; one that cannot be kept makes the re-count
refuse unless ``--drop-corrections``.
"""

from __future__ import annotations

import contextlib
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import typer

from ..errors import CardtallyError
from ..rounds.audit import entry_change
from ..rounds.doubts import cards_to_check
from ..rounds.evidence import CENTRE, LEFTOVER, photo_round_evidence
from ..rounds.hand_cards import HandCardKeeper
from ..rounds.leftovers import Leftovers
from ..rounds.photo_round import game_decks, photo_round
from ..rounds.recount_keep import DROP_HINT, TYPED_OPTIONS, corrections_to_keep, with_typed_counts
from ..rounds.review import ReviewCounter, new_review_dir
from ..scoring.ledger import Game, StoredRound
from ..scoring.rounds import RoundEntry, round_scores
from ..vision.count import sha256_of
from ._confirm import confirm_or_fail
from ._game_view import game_json, open_for_changes, print_json, result_line, table
from ._progress import PhotoProgress
from ._round_table import echo_saved_warnings


def saved_photos(number: int, stored: StoredRound) -> tuple[dict[str, Any], list[Path], list[Path]]:
    """The round's evidence and its photo paths, each checked to exist with the saved SHA-256."""
    evidence = stored.evidence
    if evidence is None:
        raise CardtallyError(
            f"Round {number} was typed in by hand; there are no photos to re-count."
        )
    incomplete = CardtallyError(
        f"The saved evidence of round {number} is incomplete; it cannot be re-counted."
    )
    if not isinstance(evidence, dict) or evidence.get("source") != "photos":
        raise incomplete
    paths: dict[str, list[Path]] = {}
    for key in ("center", "leftover"):
        photos = evidence.get(key)
        if not isinstance(photos, list):
            raise incomplete
        paths[key] = []
        for photo in photos:
            if not isinstance(photo, dict) or not {"path", "sha256"} <= photo.keys():
                raise incomplete
            path = Path(photo["path"])
            if not path.is_file():
                raise CardtallyError(
                    f"Cannot re-count round {number}: its photo {path} is missing."
                )
            if sha256_of(path) != photo["sha256"]:
                raise CardtallyError(
                    f"Cannot re-count round {number}: its photo {path} has changed since the "
                    "round was scored (its SHA-256 differs)."
                )
            paths[key].append(path)
    if not paths["center"]:
        raise incomplete
    return evidence, paths["center"], paths["leftover"]


def _check_counted_unchanged(number: int, evidence: dict[str, Any], counted: list[Any]) -> None:
    """The bytes counted are the bytes saved (a photo replaced while being counted)."""
    saved = [p["sha256"] for p in evidence["center"] + evidence["leftover"]]
    for sha, photo in zip(saved, counted, strict=True):
        if photo.sha256 != sha:
            raise CardtallyError(
                f"Cannot re-count round {number}: its photo {photo.path} changed while it was "
                "being counted."
            )


def _change(old: int, new: int, signed: bool = False) -> str:
    fmt = "{:+d}" if signed else "{}"
    return fmt.format(old) if old == new else f"{fmt.format(old)} -> {fmt.format(new)}"


def render_recount(game: Game, number: int, old: RoundEntry, new: RoundEntry) -> str:
    """Old and new counts and points of each player (``12 -> 13`` where they differ)."""
    old_scores, new_scores = round_scores(old, game.rules), round_scores(new, game.rules)
    rows = [
        [
            seat.player,
            seat.deck,
            _change(old.of(seat.player).center_cards, new.of(seat.player).center_cards),
            _change(old.of(seat.player).pile_cards, new.of(seat.player).pile_cards),
            _change(old_scores[seat.player], new_scores[seat.player], signed=True),
        ]
        for seat in game.seats
    ]
    return "\n".join(
        [
            f"Re-count of round {number} of game {game.id} (saved -> re-counted):",
            table(["player", "deck", "centre", "left", "points"], rows, right=[2, 3, 4]),
        ]
    )


def counts_json(entry: RoundEntry) -> dict[str, dict[str, int]]:
    return {c.player: {"center": c.center_cards, "leftover": c.pile_cards} for c in entry.counts}


def recount_round(number: int, game_id: int | None, *, yes: bool, json_out: bool,
                  drop_corrections: bool = False) -> None:
    """The ``round recount`` command (see the module docstring)."""
    with open_for_changes() as ledger:
        game = ledger.game(game_id)
        stored = game.round(number)
        evidence, center_paths, leftover_paths = saved_photos(number, stored)
        fixes = list(evidence.get("fixes") or [])
        kept = corrections_to_keep(game, stored, evidence)
        if kept.lost and not drop_corrections:
            raise CardtallyError(
                f"Cannot re-count round {number} and keep its corrections: "
                f"{'; '.join(kept.lost)}. {DROP_HINT}"
            )
        typed_counts = {} if kept.lost else kept.typed_counts
        deck_of = {seat.player: seat.deck for seat in game.seats}
        keeper = HandCardKeeper(number, kept.hand_cards, deck_of, drop_corrections)
        decks = game_decks(game)
        review_dir = new_review_dir(game.id, number)
        saved = False
        try:
            with PhotoProgress(len(center_paths) + len(leftover_paths)) as progress:
                counter = ReviewCounter(decks, review_dir, correct=keeper.corrected,
                                        progress=progress)
                center = counter.run(CENTRE, center_paths)
                leftover = counter.run(LEFTOVER, leftover_paths)
            _check_counted_unchanged(number, evidence, [*center.photos, *leftover.photos])
            leftovers = Leftovers.from_evidence(evidence)
            entry, warnings = photo_round(
                game, center, leftover, fixes, stored.entry.caller, leftovers
            )
            entry = with_typed_counts(entry, typed_counts)
            typer.echo(render_recount(game, number, stored.entry, entry), err=json_out)
            changed = entry != stored.entry
            if changed:
                kept_texts = [f"--card {card.text}" for card in keeper.kept]
                kept_texts += [f"{TYPED_OPTIONS[label]} {player}={n}"
                               for label, values in typed_counts.items()
                               for player, n in values.items()]
                if kept_texts:
                    typer.echo(f"Kept the corrections: {', '.join(kept_texts)}.", err=True)
                lost = [*kept.lost, *(f"--card {card.text}" for card in keeper.dropped)]
                if lost:
                    typer.echo(f"Dropped the corrections: {'; '.join(lost)}.", err=True)
                for line in cards_to_check(center, CENTRE) + cards_to_check(leftover, LEFTOVER):
                    typer.echo(f"Check: {line}", err=True)
                for warning in warnings:
                    typer.echo(f"Warning: {warning}", err=True)
                typer.echo(f"Review images: {review_dir}", err=True)
                confirm_or_fail(
                    yes,
                    f"Replace the counts of round {number}?",
                    f"Not saved (you declined); round {number} is unchanged.",
                )
                new_evidence = photo_round_evidence(
                    game, counter, center, leftover, fixes,
                    [card.text for card in keeper.kept], leftovers,
                )
                new_evidence["hand_cards"] = [card.to_json() for card in keeper.kept]
                new_evidence["typed_counts"] = typed_counts
                how = "round recount" + (" --drop-corrections" if drop_corrections else "")
                new_evidence["corrections"] = [
                    *evidence.get("corrections", []),
                    entry_change(how, "", stored.entry, entry).to_json(),
                ]
                new_evidence["recounts"] = [
                    *evidence.get("recounts", []),
                    {
                        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        "previous_center": {c.player: c.center_cards for c in stored.entry.counts},
                        "previous_leftover": {c.player: c.pile_cards for c in stored.entry.counts},
                    },
                ]
                with ledger.transaction():
                    now = ledger.game(game.id)
                    if len(now.rounds) != len(game.rounds) or now.round(number) != stored:
                        raise CardtallyError(
                            f"Not saved: round {number} of game {game.id} changed while its "
                            "photos were being counted; run recount again."
                        )
                    ledger.replace_round(game.id, number, entry, warnings, evidence=new_evidence)
                saved = True
                _remove_old_reviews(evidence)
        finally:
            if not saved:
                shutil.rmtree(review_dir, ignore_errors=True)
        game = ledger.game(game.id)
        if json_out:
            print_json(
                {
                    "round": number,
                    "changed": changed,
                    "before": counts_json(stored.entry),
                    "after": counts_json(entry),
                    **game_json(game, ledger.current_game_id()),
                }
            )
            if changed:
                echo_saved_warnings(number, warnings)
            return
        if changed:
            typer.echo(f"Round {number} of game {game.id} re-counted and saved.")
            echo_saved_warnings(number, warnings)
        else:
            typer.echo(f"The re-count matches round {number}; nothing changed.")
        typer.echo(result_line(game))


def _remove_old_reviews(evidence: dict[str, Any]) -> None:
    """Delete the review images the replaced evidence pointed to (never a photo)."""
    photos = {p["path"] for p in evidence["center"] + evidence["leftover"]}
    folders = set()
    for photo in evidence["center"] + evidence["leftover"]:
        for kept in (photo.get("review_image"), photo.get("cards_file")):
            if kept and kept not in photos:
                Path(kept).unlink(missing_ok=True)
                folders.add(Path(kept).parent)
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty: snapped photos stay
