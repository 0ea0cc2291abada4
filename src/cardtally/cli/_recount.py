"""``cardtally round recount N``: show and confirm a re-count (``rounds.recount`` does it)."""

from __future__ import annotations

import shutil

import typer

from ..rounds.games import game_json, open_for_changes
from ..rounds.recount import RoundRecount, counts_json
from ..rounds.review import new_review_dir
from ..scoring.ledger import Game
from ..scoring.rounds import RoundEntry, round_scores
from ._confirm import confirm_or_fail
from ._game_view import print_json, result_line, table
from ._progress import PhotoProgress
from ._round_table import echo_saved_warnings


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


def recount_round(number: int, game_id: int | None, *, yes: bool, json_out: bool,
                  drop_corrections: bool = False) -> None:
    """The ``round recount`` command: count, show old and new, ask, save."""
    with open_for_changes() as ledger:
        game = ledger.game(game_id)
        recount = RoundRecount(game, number, drop_corrections)
        review_dir = new_review_dir(game.id, number)
        saved = False
        try:
            with PhotoProgress(recount.n_photos) as progress:
                recount.count(review_dir, progress)
            stored, entry = recount.stored.entry, recount.entry
            typer.echo(render_recount(game, number, stored, entry), err=json_out)
            if recount.changed:
                if kept := recount.kept_texts():
                    typer.echo(f"Kept the corrections: {', '.join(kept)}.", err=True)
                if lost := recount.dropped_texts():
                    typer.echo(f"Dropped the corrections: {'; '.join(lost)}.", err=True)
                for line in recount.cards_to_check():
                    typer.echo(f"Check: {line}", err=True)
                for warning in recount.warnings:
                    typer.echo(f"Warning: {warning}", err=True)
                typer.echo(f"Review images: {review_dir}", err=True)
                confirm_or_fail(
                    yes,
                    f"Replace the counts of round {number}?",
                    f"Not saved (you declined); round {number} is unchanged.",
                )
                recount.save(ledger)
                saved = True
        finally:
            if not saved:
                shutil.rmtree(review_dir, ignore_errors=True)
        game = ledger.game(game.id)
        if json_out:
            print_json(
                {
                    "round": number,
                    "changed": recount.changed,
                    "before": counts_json(stored),
                    "after": counts_json(entry),
                    **game_json(game, ledger.current_game_id()),
                }
            )
            if recount.changed:
                echo_saved_warnings(number, recount.warnings)
            return
        if recount.changed:
            typer.echo(f"Round {number} of game {game.id} re-counted and saved.")
            echo_saved_warnings(number, recount.warnings)
        else:
            typer.echo(f"The re-count matches round {number}; nothing changed.")
        typer.echo(result_line(game))
