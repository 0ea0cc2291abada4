"""What ``score`` does once its options are read: count the photos, show the round, ask
about the doubtful cards that could change a score, confirm and save; ``demo`` runs it too.

Every input that can be checked cheaply (photo paths, game, caller, ``--fix``, calibrated
decks) is checked before any photo is counted; the round's review folder is removed when the
round is not saved (photos taken with the camera stay).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from ..errors import CardtallyError
from ..rounds.card_fixes import CardFixer, parse_card_fixes
from ..rounds.doubts import swing_text
from ..rounds.evidence import CENTRE, LEFTOVER
from ..rounds.games import game_json, open_for_changes
from ..rounds.leftovers import PHOTOS, typed_leftovers
from ..rounds.photo_round import PhotoRound, check_fixes
from ..rounds.review import discard_review_dir, new_review_dir
from ..rounds.unsaved_review import UnsavedReview
from ..scoring.entry import resolve_player
from ..vision.count import check_distinct_photos, check_photo_paths
from . import _confirm
from ._ask_corrections import ask_corrections
from ._confirm import check_can_confirm, confirm_or_fail
from ._game_view import finished_message, print_json, result_line
from ._progress import PhotoProgress
from ._round_table import echo_saved_warnings, show_proposal

SNAP_PROMPTS = {
    CENTRE: "Photograph the centre cards (spread backs up in rows), then press Enter.",
    LEFTOVER: "Photograph the leftover Ligretto piles (spread backs up), then press Enter.",
}


def snap_photos(
    camera: str, review_dir: Path, taken: list[Path], piles: bool = True
) -> tuple[list[Path], list[Path]]:
    """Photograph the centre, then (``piles``) the leftover piles, into the round's review
    folder.

    Each photo is appended to ``taken`` as soon as it is saved (so a failure keeps it).
    """
    from ..capture.camera import DEFAULT_BURST_FRAMES, snap_photo

    for label in (CENTRE, LEFTOVER) if piles else (CENTRE,):
        path = snap_photo(camera, review_dir, DEFAULT_BURST_FRAMES, SNAP_PROMPTS[label])
        target = review_dir / f"{label}{path.suffix}"
        path.rename(target)
        taken.append(target)
        typer.echo(f"Saved the {label} photo: {target}", err=True)
    return taken[:1], taken[1:]


def ask_until_settled(scoring: PhotoRound, as_json: bool) -> bool:
    """Show the proposed round; in a terminal, while doubtful cards could change a score, ask
    for corrections. Whether the answer (Enter) already said to save."""
    while True:
        entry, warnings = scoring.proposal()
        doubtful = scoring.cards_to_check()
        show_proposal(scoring.game, entry, doubtful, warnings, scoring.review_dir, as_json)
        if not doubtful or not _confirm.stdin_is_terminal():
            return False
        swings = scoring.point_swings()
        if not swings:
            return False
        counted = {label: result.photos for label, result in scoring.results.items()}
        why = f"The cards to check could change the points: {swing_text(swings)}."
        typed = ask_corrections(scoring.fixers[0], scoring.game.players, scoring.paths, counted,
                                scoring.check_more_fixes, why)
        if typed is None:
            return True
        scoring.correct(typed.cards, typed.fixes)


def score_round(
    center: Sequence[Path] = (),
    leftover: Sequence[Path] = (),
    *,
    leftover_source: str = PHOTOS,
    left: Sequence[str] = (),
    snap: bool = False,
    camera: str = "0",
    caller: str | None = None,
    game_id: int | None = None,
    fixes: Sequence[str] = (),
    cards: Sequence[str] = (),
    yes: bool = False,
    force: bool = False,
    as_json: bool = False,
) -> None:
    """Score a round of the game from photos (``score``'s options, checked for usage)."""
    center_paths, leftover_paths = list(center), list(leftover)
    check_photo_paths(center_paths + leftover_paths)
    check_distinct_photos(center_paths + leftover_paths)
    check_can_confirm(yes)
    with open_for_changes() as ledger:
        game = ledger.game(game_id)
        if game.summary.finished and not force:
            raise CardtallyError(finished_message(game))
        caller_name = resolve_player(caller, game.players, "--caller") if caller else None
        leftovers = typed_leftovers(leftover_source, left, game.players, caller_name)
        check_fixes(fixes, game.players)
        card_fixer = CardFixer(
            parse_card_fixes(cards, game.players), {s.player: s.deck for s in game.seats}
        )
        review_dir = new_review_dir(game.id, len(game.rounds) + 1)
        unsaved = UnsavedReview(review_dir)  # also removes what killed scores left behind
        snapped: list[Path] = []
        saved = False
        try:
            scoring = PhotoRound(game, review_dir, card_fixer, fixes, caller_name, leftovers)
            if snap:
                center_paths, leftover_paths = snap_photos(
                    camera, review_dir, snapped, piles=leftovers.source == PHOTOS
                )
            with PhotoProgress(len(center_paths) + len(leftover_paths)) as progress:
                scoring.count(center_paths, leftover_paths, progress)
            # With --yes the round is shown once saved, so that the table can say it is.
            answered = False if yes else ask_until_settled(scoring, as_json)
            confirm_or_fail(yes or answered)
            number = scoring.save(ledger, before_commit=unsaved.settled)
            saved = True
        finally:
            if not saved:
                discard_review_dir(review_dir, keep=snapped)
                unsaved.settled()
                if snapped:
                    typer.echo(f"The photos taken are kept: {', '.join(map(str, snapped))}",
                               err=True)
        entry, warnings = scoring.proposal()
        if yes:
            show_proposal(game, entry, scoring.cards_to_check(), warnings, review_dir, as_json,
                          saved=True)
        game = ledger.game(game.id)
        echo_saved_warnings(number, warnings)
        if as_json:
            print_json({"round": number, **game_json(game, ledger.current_game_id())})
        else:
            typer.echo(f"Round {number} of game {game.id} saved.")
            typer.echo(result_line(game))
