"""``cardtally game new|list|show|export``: the games in the ledger."""

from __future__ import annotations

import csv
import io
from typing import Annotated

import typer

from ..errors import CardtallyError
from ..rounds.games import game_json, open_for_reading, read_game, start_game
from ..scoring.ledger import NEW_GAME_HINT, Game
from ..scoring.rules import DEFAULT_RULES, get_rules, rule_set_names, with_overrides
from ._game_view import join_names, print_json, render_game, rules_summary, table
from .app import sub_app

game_app = sub_app("game", "Start, list, show and export games kept in the game ledger.")

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")]
GameArgument = Annotated[
    int | None, typer.Argument(help="Game ID (default: the current game).", show_default=False)
]
GameOption = Annotated[
    int | None, typer.Option("--game", help="Game ID (same as the argument).", show_default=False)
]


@game_app.command("new")
def new(
    players: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            "-p",
            metavar="NAME=DECK",
            show_default=False,
            help="A player and the deck they play (repeat: 2 to 12 players).",
        ),
    ] = None,
    rules_name: Annotated[
        str, typer.Option("--rules", "-r", help=f"Rule set: {rule_set_names()}.")
    ] = DEFAULT_RULES,
    target: Annotated[
        int | None,
        typer.Option(
            show_default=False,
            help="Points that end the game (Ligretto-2: round "
            "wins); 0 for none, then give --rounds.",
        ),
    ] = None,
    rounds: Annotated[
        int | None, typer.Option(show_default=False, help="End the game after this many rounds.")
    ] = None,
    penalty: Annotated[
        int | None, typer.Option(show_default=False, help="Points lost per card left in the pile.")
    ] = None,
    bonus: Annotated[
        int | None, typer.Option(show_default=False, help="Points for the player who calls out.")
    ] = None,
    pile_size: Annotated[
        int | None, typer.Option(show_default=False, help="Cards in the pile at the start.")
    ] = None,
    deck_size: Annotated[
        int | None, typer.Option(show_default=False, help="Cards in each player's deck.")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Start a game and make it the current one.

    Example: cardtally game new --player Anna=red-star --player Ben=red-moon --target 50
    """
    rules = with_overrides(
        get_rules(rules_name),
        target=target,
        rounds=rounds,
        penalty=penalty,
        bonus=bonus,
        pile_size=pile_size,
        deck_size=deck_size,
    )
    game = start_game(rules, players or [])
    if json_out:
        print_json(game_json(game, game.id))
        return
    typer.echo(f"Started game {game.id}: {rules_summary(rules)}.")
    typer.echo("Players: " + ", ".join(f"{s.player} ({s.deck})" for s in game.seats) + ".")
    typer.echo("It is now the current game.")


@game_app.command("list")
def list_games(json_out: JsonOption = False) -> None:
    """List the games in the ledger; * marks the current one."""
    games: list[Game] = []
    current = None
    ledger = open_for_reading()
    if ledger is not None:
        with ledger:
            current = ledger.current_game_id()
            games = [ledger.game(game_id) for game_id in ledger.game_ids()]
    if json_out:
        print_json({"current": current, "games": [_brief_json(g, current) for g in games]})
        return
    if not games:
        typer.echo(f"No games yet. Start one with: {NEW_GAME_HINT}", err=True)
        return
    rows = [
        [
            "*" if g.id == current else "",
            g.id,
            g.rules.name,
            len(g.rounds),
            ", ".join(g.players),
            _status(g),
        ]
        for g in games
    ]
    typer.echo(table(["", "id", "rules", "rounds", "players", "status"], rows, right=[1, 3]))


def _status(game: Game) -> str:
    summary = game.summary
    if summary.finished:
        return f"won by {join_names(summary.winners)}"
    if not game.rounds:
        return "not started"
    return f"{join_names(summary.leaders)} leading"


def _brief_json(game: Game, current: int | None) -> dict[str, object]:
    summary = game.summary
    return {
        "game": game.id,
        "current": game.id == current,
        "created": game.created_at,
        "rules": game.rules.name,
        "players": [{"player": s.player, "deck": s.deck} for s in game.seats],
        "rounds": len(game.rounds),
        "leaders": list(summary.leaders),
        "finished": summary.finished,
        "winners": list(summary.winners),
    }


def _load(game_id: int | None, game_option: int | None) -> tuple[Game, int | None]:
    if game_id is not None and game_option is not None and game_id != game_option:
        raise CardtallyError(f"Two different games given: {game_id} and --game {game_option}.")
    return read_game(game_id if game_id is not None else game_option)


@game_app.command("show")
def show(
    game_id: GameArgument = None, game_option: GameOption = None, json_out: JsonOption = False
) -> None:
    """Show a game: rounds with running totals, standings, leader or winner."""
    game, current = _load(game_id, game_option)
    if json_out:
        print_json(game_json(game, current))
    else:
        typer.echo(render_game(game))


CSV_HEADER = [
    "game",
    "round",
    "player",
    "deck",
    "center",
    "leftover",
    "called_out",
    "points",
    "total",
]


def _inert_cell(text: str) -> str:
    """A name as a spreadsheet shows it without running it: OWASP's rule for CSV injection
    quotes text that a spreadsheet would read as a formula."""
    return f"'{text}" if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text


@game_app.command("export")
def export(
    game_id: GameArgument = None,
    game_option: GameOption = None,
    csv_out: Annotated[
        bool, typer.Option("--csv", help="One row per player and round (the default).")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The whole game as JSON.")] = False,
) -> None:
    """Export a game on stdout as CSV (the default) or JSON."""
    if csv_out and json_out:
        raise CardtallyError("Choose one of --csv and --json.")
    game, current = _load(game_id, game_option)
    if json_out:
        print_json(game_json(game, current))
        return
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for stored, scored in zip(game.rounds, game.summary.rounds, strict=True):
        for seat, counts in zip(game.seats, stored.entry.counts, strict=True):
            writer.writerow(
                [
                    game.id,
                    stored.number,
                    _inert_cell(counts.player),
                    seat.deck,
                    counts.center_cards,
                    counts.pile_cards,
                    int(counts.player == stored.entry.caller),
                    scored.scores[counts.player],
                    scored.totals[counts.player],
                ]
            )
    typer.echo(buffer.getvalue(), nl=False)
