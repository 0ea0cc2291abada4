"""``cardtally score``: count a round's photos, check it, confirm it, save it in the ledger."""

from __future__ import annotations

import hashlib
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..errors import CardtallyError
from ..home import data_home, ensure_data_home
from ..scoring.entry import resolve_player
from ..scoring.fixes import apply_fixes
from ..scoring.ledger import Game
from ..scoring.rounds import PlayerCounts, RoundEntry, physical_warnings, round_scores
from ..vision.count import CountResult, PhotoCount, count_photos
from ..vision.decks import DeckSet, load_decks
from ._game_view import echo_warnings, finished_message, game_json, open_for_writing, print_json
from .app import app

#: Cards identified with less confidence than this are listed for the user to check.
LOW_CONFIDENCE = 0.6
REVIEWS_DIRNAME = "reviews"

PhotosOption = Annotated[
    list[Path] | None,
    typer.Option(metavar="PHOTO", show_default=False),
]


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file (so a saved round can be re-counted from the same photos)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def game_decks(game: Game) -> DeckSet:
    """The calibrated profiles of the game's decks; a clear error for any missing one."""
    missing = []
    for seat in game.seats:
        try:
            load_decks([seat.deck])
        except CardtallyError:
            missing.append(seat)
    if missing:
        seat = missing[0]
        raise CardtallyError(
            f"{seat.player}'s deck '{seat.deck}' is not calibrated. Calibrate it first: "
            f"cardtally calibrate {seat.deck} PHOTO..."
        )
    return load_decks([seat.deck for seat in game.seats])


def photo_evidence(photo: PhotoCount, review: Path | None) -> dict[str, Any]:
    """What the ledger keeps about one photo, to review or re-count the round later."""
    return {
        "path": str(photo.path.resolve()),
        "sha256": sha256_of(photo.path),
        "review_image": None if review is None else str(review),
        "counts": photo.identities.counts(),
        "unknown": photo.identities.unknown_count,
        "face_up": photo.identities.face_up_count,
        "cards": len(photo.detections),
    }


class _Counter:
    """Counts a set of photos, writing each one's review image as it goes."""

    def __init__(self, decks: DeckSet, review_dir: Path) -> None:
        self.decks = decks
        self.review_dir = review_dir
        self.reviews: dict[Path, Path] = {}

    def run(self, label: str, photos: list[Path]) -> CountResult:
        from ..vision.annotate import annotate, write_review_image

        def after(photo: PhotoCount, image_bgr: np.ndarray) -> None:
            typer.echo(f"{label}: {photo.path.name}: {len(photo.detections)} cards", err=True)
            review = annotate(image_bgr, photo.detections, photo.identities, title=f"{label}: {photo.path.name}")
            target = self.review_dir / f"{label}-{len(self.reviews) + 1}-{photo.path.stem}.jpg"
            self.reviews[photo.path] = write_review_image(target, review)

        return count_photos(photos, self.decks, on_photo=after)


def counts_by_player(game: Game, result: CountResult) -> dict[str, int]:
    counts = result.counts
    return {seat.player: counts.get(seat.deck, 0) for seat in game.seats}


def low_confidence_cards(label: str, result: CountResult) -> list[str]:
    """Human lines for the cards the identification was unsure about."""
    lines = []
    for photo in result.photos:
        ids = photo.identities
        for i in range(len(ids)):
            if ids.deck_index[i] >= 0 and ids.confidence[i] < LOW_CONFIDENCE:
                x, y = photo.detections.centre_xy[i]
                lines.append(
                    f"{label} {photo.path.name}: card at ({x:.0f}, {y:.0f}) looks like "
                    f"{ids.deck_name(i)} ({ids.confidence[i]:.0%} sure)"
                )
    return lines


def render_proposal(game: Game, entry: RoundEntry, scores: dict[str, int]) -> str:
    totals = {s.player: s.total for s in game.summary.standings}
    width = max(len(p) for p in game.players)
    lines = [f"{'player':<{width}}  deck{' ' * 12}centre  pile  points  total"]
    for seat in game.seats:
        counts = entry.of(seat.player)
        new_total = totals.get(seat.player, 0) + scores[seat.player]
        lines.append(
            f"{seat.player:<{width}}  {seat.deck[:15]:<16}{counts.center_cards:>6}  "
            f"{counts.pile_cards:>4}  {scores[seat.player]:>+6}  {new_total:>5}"
        )
    return "\n".join(lines)


def confirm_or_fail(yes: bool) -> None:
    """Ask before saving; never block when nobody can answer."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise CardtallyError(
            "Not saved: confirm the round with --yes when cardtally is not run in a terminal."
        )
    if not typer.confirm("Save this round?", default=True, err=True):
        raise CardtallyError("Not saved (you declined). Correct with --fix and run score again.")


@app.command("score")
def score_command(
    center: Annotated[
        list[Path] | None,
        typer.Option("--center", "--centre", metavar="PHOTO", help="Photo(s) of the centre cards.", show_default=False),
    ] = None,
    leftover: Annotated[
        list[Path] | None,
        typer.Option("--leftover", metavar="PHOTO", help="Photo(s) of the cards left in the Ligretto piles.", show_default=False),
    ] = None,
    caller: Annotated[
        str | None, typer.Option("--caller", metavar="PLAYER", help="Who called out.", show_default=False)
    ] = None,
    game_id: Annotated[
        int | None, typer.Option("--game", help="Game ID (default: the current game).", show_default=False)
    ] = None,
    fix: Annotated[
        list[str] | None,
        typer.Option("--fix", metavar="PLAYER=centre:+N", help="Correct a count before saving (repeatable).", show_default=False),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Save without asking.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Add the round even though the game is finished.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the saved round and game as JSON.")] = False,
) -> None:
    """Score a round from photos: count each player's cards, check, confirm and save."""
    if not center:
        raise CardtallyError("Give the photo(s) of the centre cards with --center PHOTO.")
    ensure_data_home()
    with open_for_writing() as ledger:
        game = ledger.game(game_id)
        if game.summary.finished and not force:
            raise CardtallyError(finished_message(game))
        caller_name = resolve_player(caller, game.players, "--caller") if caller else None
        decks = game_decks(game)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        review_dir = data_home() / REVIEWS_DIRNAME / f"game-{game.id}" / f"round-{len(game.rounds) + 1}-{stamp}"
        review_dir.mkdir(parents=True, exist_ok=True)
        saved = False
        try:
            counter = _Counter(decks, review_dir)
            center_result = counter.run("centre", list(center))
            leftover_result = counter.run("leftover", list(leftover or []))
            center_counts, pile_counts = apply_fixes(
                counts_by_player(game, center_result),
                counts_by_player(game, leftover_result),
                fix or [],
                game.players,
            )
            entry = RoundEntry(
                tuple(PlayerCounts(p, center_counts[p], pile_counts[p]) for p in game.players),
                caller_name,
            )
            warnings = physical_warnings(entry, game.rules)
            for label, result in (("centre", center_result), ("leftover", leftover_result)):
                if result.unknown:
                    warnings.append(
                        f"{result.unknown} {label} card(s) match no player's deck and are not scored."
                    )
                if result.face_up:
                    warnings.append(f"{result.face_up} {label} card(s) lie face up and are not scored.")
            doubtful = low_confidence_cards("centre", center_result) + low_confidence_cards(
                "leftover", leftover_result
            )
            scores = round_scores(entry, game.rules)
            out = sys.stderr if as_json else sys.stdout
            print(render_proposal(game, entry, scores), file=out)
            for line in doubtful:
                typer.echo(f"Check: {line}", err=True)
            for warning in warnings:
                typer.echo(f"Warning: {warning}", err=True)
            typer.echo(f"Review images: {review_dir}", err=True)
            confirm_or_fail(yes)
            evidence = {
                "source": "photos",
                "center": [photo_evidence(p, counter.reviews.get(p.path)) for p in center_result.photos],
                "leftover": [photo_evidence(p, counter.reviews.get(p.path)) for p in leftover_result.photos],
                "fixes": list(fix or []),
                "counted_center": counts_by_player(game, center_result),
                "counted_leftover": counts_by_player(game, leftover_result),
            }
            number = ledger.add_round(game.id, entry, warnings, evidence=evidence)
            saved = True
        finally:
            if not saved:
                shutil.rmtree(review_dir, ignore_errors=True)
        game = ledger.game(game.id)
        echo_warnings(number, warnings)
        if as_json:
            print_json({"round": number, **game_json(game, ledger.current_game_id())})
        else:
            typer.echo(f"Round {number} saved.")
