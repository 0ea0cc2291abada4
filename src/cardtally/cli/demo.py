"""``cardtally demo``: a typed-in demo game, until photo scoring exists.

It plays in its own ledger (``demo/cardtally.db`` in the data home), replaced on every run, so the
user's games and current game are never touched.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..home import HOME_ENV, LEDGER_FILENAME, ensure_data_home
from ..scoring.entry import build_round
from ..scoring.ledger import Ledger
from ..scoring.rounds import physical_warnings
from ..scoring.rules import get_rules, with_overrides
from ..scoring.standings import Seat
from ._game_view import game_json, print_json, render_game
from .app import app

DEMO_DIRNAME = "demo"
DEMO_SEATS = [Seat("Anna", "red-star"), Seat("Ben", "red-moon"), Seat("Cleo", "green-star")]
DEMO_ROUNDS = [  # (centre counts, leftover counts, caller), as typed after each round
    (["Anna=15", "Ben=11", "Cleo=9"], ["Anna=0", "Ben=4", "Cleo=6"], "Anna"),
    (["Anna=12", "Ben=17", "Cleo=10"], ["Anna=3", "Ben=0", "Cleo=5"], "Ben"),
    (["Anna=14", "Ben=9", "Cleo=18"], ["Anna=2", "Ben=7", "Cleo=0"], "Cleo"),
]


@app.command()
def demo(
    json_out: Annotated[bool, typer.Option("--json", help="Print the game as JSON.")] = False,
) -> None:
    """Play a typed-in demo game in a demo ledger (your games are untouched)."""
    folder = ensure_data_home() / DEMO_DIRNAME
    folder.mkdir(exist_ok=True)
    path = folder / LEDGER_FILENAME
    for leftover in (path, path.with_name(f"{LEDGER_FILENAME}-journal")):
        leftover.unlink(missing_ok=True)
    with Ledger.open(path) as ledger:  # type: ignore[union-attr]
        rules = with_overrides(get_rules("ligretto"), rounds=len(DEMO_ROUNDS))
        game_id = ledger.create_game(rules, DEMO_SEATS)
        players = [seat.player for seat in DEMO_SEATS]
        for center, leftover_counts, caller in DEMO_ROUNDS:
            entry = build_round(players, center=center, leftover=leftover_counts, caller=caller)
            ledger.add_round(game_id, entry, physical_warnings(entry, rules))
        game = ledger.game(game_id)
    if json_out:
        print_json(game_json(game, game_id))
    else:
        typer.echo(render_game(game))
    typer.echo(
        "This was a typed-in demo game (scoring from photos comes later); your own games are "
        f"untouched. Its ledger: {path}; look at it with: "
        f"{HOME_ENV}='{folder}' cardtally game show",
        err=True,
    )
