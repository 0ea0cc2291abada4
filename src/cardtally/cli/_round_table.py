"""The round a photo count proposes (or saved), as ``score`` and ``demo`` print it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import typer

from ..scoring.ledger import Game
from ..scoring.rounds import RoundEntry, round_scores
from ._game_view import table


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


def echo_saved_warnings(number: int, warnings: Sequence[str]) -> None:
    """After saving: how to correct a round saved with warnings (already shown above)."""
    if warnings:
        typer.echo(
            f"Round {number} is saved with the warning(s) above; correct it with: "
            f"cardtally round edit {number} --card centre:N=PLAYER (card N of the review "
            "image), or --center NAME=N --leftover NAME=N",
            err=True,
        )
