"""``cardtally score``: count a round's photos, check it, confirm it, save it in the ledger.

Safety rules: every input that can be checked cheaply (photo paths, game, caller, ``--fix``,
calibrated decks) is checked before any photo is counted; nothing is written to the ledger before
the user confirms; the round is saved in one transaction, and only if the game has not changed
meanwhile; the round's review folder is removed when the round is not saved.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import CardtallyError, Declined
from ..rounds.audit import now_utc, score_trail
from ..rounds.card_fixes import CardFixer, parse_card_fixes
from ..rounds.doubts import cards_to_check, point_swings, swing_text
from ..rounds.evidence import counts_by_player, photo_round_evidence
from ..rounds.leftovers import FROM_PHOTOS, PHOTOS, Leftovers
from ..rounds.review import ReviewCounter, discard_review_dir, new_review_dir
from ..scoring.entry import resolve_player
from ..scoring.fixes import apply_fixes
from ..scoring.ledger import Game, Ledger
from ..scoring.rounds import PlayerCounts, RoundEntry, physical_warnings, round_scores
from ..vision.count import CountResult, PhotoCount, check_distinct_photos, check_photo_paths
from ..vision.decks import DeckSet, players_decks
from ._ask_corrections import DECLINED, ask_corrections
from ._game_view import (
    finished_message,
    game_json,
    open_for_changes,
    print_json,
    result_line,
    table,
)
from ._leftover_options import leftover_choice, typed_leftovers
from ._progress import PhotoProgress
from .app import app

#: Labels of the two photo sets of a round (review file names, messages, evidence keys).
CENTRE, LEFTOVER = "centre", "leftover"
SNAP_PROMPTS = {
    CENTRE: "Photograph the centre cards (spread backs up in rows), then press Enter.",
    LEFTOVER: "Photograph the leftover Ligretto piles (spread backs up), then press Enter.",
}


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


def render_proposal(game: Game, entry: RoundEntry, scores: Mapping[str, int],
                    saved: bool = False) -> str:
    """The round as it would be saved (or, ``saved``, as it was): counts, points and new
    totals; ``game`` is the game before the round."""
    totals = {s.player: s.total for s in game.summary.standings}
    rows = [
        [
            seat.player,
            seat.deck,
            entry.of(seat.player).center_cards,
            entry.of(seat.player).pile_cards,
            f"{scores[seat.player]:+d}",
            totals.get(seat.player, 0) + scores[seat.player],
        ]
        for seat in game.seats
    ]
    return "\n".join(
        [
            f"Round {len(game.rounds) + 1} of game {game.id} ({game.rules.name}), "
            f"{'saved' if saved else 'not saved yet'}:",
            table(
                ["player", "deck", "centre", "left", "points", "total"], rows, right=[2, 3, 4, 5]
            ),
            f"Called out: {entry.caller or 'nobody'}.",
        ]
    )


def show_proposal(game: Game, entry: RoundEntry, doubtful: Sequence[str],
                  warnings: Sequence[str], review_dir: Path, as_json: bool,
                  saved: bool = False) -> None:
    """The round as it would be saved (``saved``: as it was), the cards to check, the
    warnings, the review folder."""
    typer.echo(render_proposal(game, entry, round_scores(entry, game.rules), saved),
               err=as_json)
    for line in doubtful:
        typer.echo(f"Check: {line}", err=True)
    for warning in warnings:
        typer.echo(f"Warning: {warning}", err=True)
    typer.echo(f"Review images: {review_dir}", err=True)


def stdin_is_terminal() -> bool:
    """Whether someone can answer a question (tests replace this)."""
    return sys.stdin is not None and sys.stdin.isatty()


def check_can_confirm(yes: bool) -> None:
    """Fail (before any work) when the user cannot be asked and did not give --yes."""
    if not yes and not stdin_is_terminal():
        raise CardtallyError(
            "Not saved: confirm with --yes when cardtally is not run in a terminal."
        )


def confirm_or_fail(
    yes: bool,
    question: str = "Save this round?",
    declined: str = DECLINED,
) -> None:
    """Ask before saving; never block when nobody can answer."""
    if yes:
        return
    check_can_confirm(yes)
    if not typer.confirm(question, default=True, err=True):
        raise Declined(declined)


def save_new_round(
    ledger: Ledger, seen: Game, entry: RoundEntry, warnings: list[str], evidence: dict[str, Any]
) -> int:
    """Append the round in one transaction, unless the game changed since ``seen`` was read."""
    with ledger.transaction():
        now = ledger.game(seen.id)
        if len(now.rounds) != len(seen.rounds):
            raise CardtallyError(
                f"Not saved: game {seen.id} changed while the photos were being counted (it now "
                f"has {len(now.rounds)} rounds). Check it with 'cardtally game show' and run "
                "score again."
            )
        return ledger.add_round(seen.id, entry, warnings, evidence=evidence)


def snap_photos(
    camera: str, review_dir: Path, taken: list[Path], piles: bool = True
) -> tuple[list[Path], list[Path]]:
    """Photograph the centre, then (``piles``) the leftover piles, into the round's review
    folder.

    Each photo is appended to ``taken`` as soon as it is saved (so a failure keeps it).
    """
    from ..vision.camera import DEFAULT_BURST_FRAMES, snap_photo

    for label in (CENTRE, LEFTOVER) if piles else (CENTRE,):
        path = snap_photo(camera, review_dir, DEFAULT_BURST_FRAMES, SNAP_PROMPTS[label])
        target = review_dir / f"{label}{path.suffix}"
        path.rename(target)
        taken.append(target)
        typer.echo(f"Saved the {label} photo: {target}", err=True)
    return taken[:1], taken[1:]


def echo_saved_warnings(number: int, warnings: Sequence[str]) -> None:
    """After saving: how to correct a round saved with warnings (already shown above)."""
    if warnings:
        typer.echo(
            f"Round {number} is saved with the warning(s) above; correct it with: "
            f"cardtally round edit {number} --card centre:N=PLAYER (card N of the review "
            "image), or --center NAME=N --leftover NAME=N",
            err=True,
        )


@app.command("score")
def score_command(
    center: Annotated[
        list[Path] | None,
        typer.Option(
            "--center",
            "--centre",
            metavar="PHOTO",
            help="Photo(s) of the centre cards.",
            show_default=False,
        ),
    ] = None,
    leftover: Annotated[
        list[Path] | None,
        typer.Option(
            "--leftover",
            metavar="PHOTO",
            help="Photo(s) of the cards left in the Ligretto piles.",
            show_default=False,
        ),
    ] = None,
    left: Annotated[
        list[str] | None,
        typer.Option(
            "--left",
            metavar="NAME=N",
            help="Cards left in a player's Ligretto pile, typed instead of photographed "
            "(repeat for each player; the caller's may be left out).",
            show_default=False,
        ),
    ] = None,
    no_leftover: Annotated[
        bool,
        typer.Option("--no-leftover", help="Every Ligretto pile is empty (no leftover photo)."),
    ] = False,
    snap: Annotated[
        bool,
        typer.Option("--snap", help="Take the centre and leftover photos with the camera instead."),
    ] = False,
    camera: Annotated[
        str,
        typer.Option(
            "--camera",
            "-c",
            help="With --snap: camera number (0 is the first webcam) or a phone camera stream URL.",
        ),
    ] = "0",
    caller: Annotated[
        str | None,
        typer.Option("--caller", metavar="PLAYER", help="Who called out.", show_default=False),
    ] = None,
    game_id: Annotated[
        int | None,
        typer.Option("--game", help="Game ID (default: the current game).", show_default=False),
    ] = None,
    fix: Annotated[
        list[str] | None,
        typer.Option(
            "--fix",
            metavar="PLAYER=centre:+N",
            help="Correct a count before saving (repeatable).",
            show_default=False,
        ),
    ] = None,
    card: Annotated[
        list[str] | None,
        typer.Option(
            "--card",
            metavar="centre:N=PLAYER",
            help="Count card N of the centre (or leftover) review image for PLAYER (repeatable; "
            "centre:PHOTO:N=PLAYER when there are several centre photos).",
            show_default=False,
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Save without asking.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Add the round even though the game is finished.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the saved round and game as JSON.")
    ] = False,
) -> None:
    """Score a round from photos: count each player's cards, check, confirm and save."""
    fixes = list(fix or [])
    leftover_source = leftover_choice(leftover or [], left or [], no_leftover, snap)
    if snap and (center or leftover):
        raise CardtallyError("Give either --snap or --center/--leftover photos, not both.")
    if not snap and not center:
        raise CardtallyError(
            "Give the photo(s) of the centre cards with --center PHOTO (or use --snap)."
        )
    center_paths, leftover_paths = list(center or []), list(leftover or [])
    check_photo_paths(center_paths + leftover_paths)
    check_distinct_photos(center_paths + leftover_paths)
    check_can_confirm(yes)
    with open_for_changes() as ledger:
        game = ledger.game(game_id)
        if game.summary.finished and not force:
            raise CardtallyError(finished_message(game))
        caller_name = resolve_player(caller, game.players, "--caller") if caller else None
        leftovers = typed_leftovers(leftover_source, left or [], game.players, caller_name)
        check_fixes(fixes, game.players)
        card_fixer = CardFixer(
            parse_card_fixes(card or [], game.players), {s.player: s.deck for s in game.seats}
        )
        decks = game_decks(game)
        review_dir = new_review_dir(game.id, len(game.rounds) + 1)
        snapped: list[Path] = []
        saved = False
        try:
            if snap:
                center_paths, leftover_paths = snap_photos(
                    camera, review_dir, snapped, piles=leftovers.source == PHOTOS
                )
            card_fixer.check_photos({CENTRE: center_paths, LEFTOVER: leftover_paths})
            with PhotoProgress(len(center_paths) + len(leftover_paths)) as progress:
                counter = ReviewCounter(decks, review_dir, correct=card_fixer.corrected,
                                        progress=progress)
                results = {
                    CENTRE: counter.run(CENTRE, center_paths),
                    LEFTOVER: counter.run(LEFTOVER, leftover_paths),
                }
            card_texts = card_fixer.texts()
            fixers = [card_fixer]
            answered = False  # Enter at the question about the cards to check saves
            while True:
                entry, warnings = photo_round(
                    game, results[CENTRE], results[LEFTOVER], fixes, caller_name, leftovers
                )
                doubtful = cards_to_check(results[CENTRE], CENTRE) + cards_to_check(
                    results[LEFTOVER], LEFTOVER
                )
                if yes:  # shown once saved, so that the table can say it is
                    break
                show_proposal(game, entry, doubtful, warnings, review_dir, as_json)
                # In a terminal, the cards to check that could change a score can be
                # corrected before saving; Enter saves the round as shown.
                if not doubtful or not stdin_is_terminal():
                    break
                player_of = {seat.deck: seat.player for seat in game.seats}
                swings = point_swings(results, player_of, game.players, game.rules)
                if not swings:
                    break
                paths = {CENTRE: center_paths, LEFTOVER: leftover_paths}
                counted = {label: result.photos for label, result in results.items()}
                check = functools.partial(fixes_hold, game, decks.names, leftovers, list(fixes))
                why = f"The cards to check could change the points: {swing_text(swings)}."
                typed = ask_corrections(card_fixer, game.players, paths, counted, check, why)
                if typed is None:
                    answered = True
                    break
                results = {
                    label: counter.correct_again(label, result, typed.cards.corrected)
                    for label, result in results.items()
                }
                card_texts += typed.cards.texts()
                fixers.append(typed.cards)
                fixes += typed.fixes
            confirm_or_fail(yes or answered)
            evidence = photo_round_evidence(
                game, counter, results[CENTRE], results[LEFTOVER], fixes, card_texts, leftovers
            )
            given = [card for fixer in fixers for card in fixer.given.values()]
            evidence["hand_cards"] = [card.to_json() for card in given]
            counted = {CENTRE: evidence["counted_center"], LEFTOVER: evidence["counted_leftover"]}
            player_of = {seat.deck: seat.player for seat in game.seats}
            trail = score_trail(game.players, counted, given, fixes, player_of, now_utc())
            evidence["corrections"] = [correction.to_json() for correction in trail]
            number = save_new_round(ledger, game, entry, warnings, evidence)
            saved = True
        finally:
            if not saved:
                discard_review_dir(review_dir, keep=snapped)
                if snapped:
                    typer.echo(f"The photos taken are kept: {', '.join(map(str, snapped))}",
                               err=True)
        if yes:
            show_proposal(game, entry, doubtful, warnings, review_dir, as_json, saved=True)
        game = ledger.game(game.id)
        echo_saved_warnings(number, warnings)
        if as_json:
            print_json({"round": number, **game_json(game, ledger.current_game_id())})
        else:
            typer.echo(f"Round {number} of game {game.id} saved.")
            typer.echo(result_line(game))
