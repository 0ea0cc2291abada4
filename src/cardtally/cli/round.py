"""``cardtally round add|show|edit|undo|recount``: type in, show, correct, take back or re-count
a round."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from ..errors import CardtallyError
from ..rounds.edit import edit_round, redraw_reviews
from ..rounds.evidence import RoundEvidence
from ..rounds.games import game_json, open_for_changes, read_game, round_json
from ..rounds.review import remove_round_reviews
from ..scoring.entry import CENTER_OPTION, LEFTOVER_OPTION, build_round
from ..scoring.ledger import Game, Ledger
from ..scoring.rounds import physical_warnings
from ._game_view import (
    echo_warnings,
    finished_message,
    print_json,
    render_round,
    render_standings,
    result_line,
)
from ._round_view import render_round_detail
from .app import sub_app

round_app = sub_app(
    "round",
    "Add, show, correct or undo rounds by hand, or re-count a round scored from photos.",
)

CenterOption = Annotated[
    list[str] | None,
    typer.Option(
        "--center",
        "--centre",
        metavar="NAME=N",
        show_default=False,
        help="Cards a player got into the centre (repeat for each player).",
    ),
]
LeftoverOption = Annotated[
    list[str] | None,
    typer.Option(
        "--leftover",
        metavar="NAME=N",
        show_default=False,
        help="Cards left in a player's Ligretto pile (repeat for each player).",
    ),
]
CallerOption = Annotated[
    str | None,
    typer.Option(
        "--caller",
        metavar="NAME",
        show_default=False,
        help="The player who called out (emptied their pile).",
    ),
]
GameOption = Annotated[
    int | None,
    typer.Option("--game", help="Game ID (default: the current game).", show_default=False),
]
StrictOption = Annotated[
    bool, typer.Option("--strict", help="Refuse a round that fails a physical check.")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the whole game as JSON.")]


def _checked(entry_warnings: list[str], strict: bool) -> list[str]:
    if strict and entry_warnings:
        raise CardtallyError("Not saved (--strict): " + " ".join(entry_warnings))
    return entry_warnings


def _report(ledger: Ledger, game: Game, number: int, json_out: bool) -> None:
    if json_out:
        print_json({"round": number, **game_json(game, ledger.current_game_id())})
    else:
        typer.echo(render_round(game, number))


@round_app.command("add")
def add(
    center: CenterOption = None,
    leftover: LeftoverOption = None,
    caller: CallerOption = None,
    game_id: GameOption = None,
    strict: StrictOption = False,
    force: Annotated[
        bool, typer.Option("--force", help="Add the round even though the game is finished.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Add the next round: every player's centre and leftover counts.

    Example: cardtally round add --center Anna=15 --center Ben=9 --leftover Anna=0
    --leftover Ben=4 --caller Anna
    """
    with open_for_changes() as ledger:
        with ledger.transaction():
            game = ledger.game(game_id)
            if game.summary.finished and not force:
                raise CardtallyError(finished_message(game))
            entry = build_round(
                game.players, center=center or [], leftover=leftover or [], caller=caller
            )
            warnings = _checked(physical_warnings(entry, game.rules), strict)
            number = ledger.add_round(game.id, entry, warnings)
            game = ledger.game(game.id)
        echo_warnings(number, warnings)
        _report(ledger, game, number, json_out)


def edit_text(cards: Sequence[str] | None, center: Sequence[str] | None,
              leftover: Sequence[str] | None, caller: str | None, no_caller: bool) -> str:
    """The options of one ``round edit`` as typed (the audit trail's text)."""
    parts = [f"--card {text}" for text in cards or []]
    parts += [f"{CENTER_OPTION} {text}" for text in center or []]
    parts += [f"{LEFTOVER_OPTION} {text}" for text in leftover or []]
    if caller is not None:
        parts.append(f"--caller {caller}")
    if no_caller:
        parts.append("--no-caller")
    return " ".join(parts)


@round_app.command("edit")
def edit(
    number: Annotated[int, typer.Argument(help="The round to correct (1 is the first).")],
    center: CenterOption = None,
    leftover: LeftoverOption = None,
    caller: CallerOption = None,
    no_caller: Annotated[
        bool, typer.Option("--no-caller", help="Nobody called out in this round.")
    ] = False,
    card: Annotated[
        list[str] | None,
        typer.Option(
            "--card",
            metavar="centre:N=PLAYER",
            show_default=False,
            help="Card N of the round's centre (or leftover) review image is PLAYER's: it "
            "moves to their count (repeatable; centre:PHOTO:N=PLAYER with several photos).",
        ),
    ] = None,
    game_id: GameOption = None,
    strict: StrictOption = False,
    json_out: JsonOption = False,
) -> None:
    """Correct a past round: the values given replace the stored ones; totals follow.

    --card moves a card of a photo-scored round from the count it was in to a player's;
    --center and --leftover values given with it replace the result.

    Example: cardtally round edit 1 --center Ben=10 --caller Anna
    """
    if not (center or leftover or card or caller is not None or no_caller):
        raise CardtallyError(
            "Nothing to change: give --center, --leftover, --card, --caller or --no-caller."
        )
    with open_for_changes() as ledger:
        with ledger.transaction():
            game = ledger.game(game_id)
            edited = edit_round(
                game, number, edit_text(card, center, leftover, caller, no_caller),
                cards=card or [], center=center or [], leftover=leftover or [], caller=caller,
                no_caller=no_caller,
            )
            warnings = _checked(physical_warnings(edited.entry, game.rules), strict)
            for problem in edited.problems:
                typer.echo(f"Warning: {problem}", err=True)
            evidence = None if edited.evidence is None else edited.evidence.to_json()
            ledger.replace_round(game.id, number, edited.entry, warnings, evidence=evidence)
            game = ledger.game(game.id)
        for path in redraw_reviews(edited.redraws):
            typer.echo(f"Review image drawn again: {path}", err=True)
        echo_warnings(number, warnings)
        _report(ledger, game, number, json_out)


@round_app.command("show")
def show(
    number: Annotated[int, typer.Argument(help="The round to show (1 is the first).")],
    game_id: GameOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the round as JSON.")] = False,
) -> None:
    """Show one round: counts, points, warnings, and for a round scored from photos its
    photos, review images and corrections."""
    game, _ = read_game(game_id)
    game.round(number)  # exists?
    if json_out:
        print_json({"game": game.id, "round": round_json(game, number)})
    else:
        typer.echo(render_round_detail(game, number))


@round_app.command("undo")
def undo(game_id: GameOption = None, json_out: JsonOption = False) -> None:
    """Take back the last round of the game."""
    with open_for_changes() as ledger:
        with ledger.transaction():
            game = ledger.game(game_id)
            evidence = RoundEvidence.from_json(game.rounds[-1].evidence) if game.rounds else None
            number = ledger.remove_last_round(game.id)
            game = ledger.game(game.id)
        kept = remove_round_reviews(evidence)
        if kept:
            typer.echo(f"The photos taken are kept: {', '.join(map(str, kept))}", err=True)
        if json_out:
            print_json({"round": number, **game_json(game, ledger.current_game_id())})
            return
        typer.echo(f"Removed round {number} of game {game.id}.")
        typer.echo(render_standings(game))
        typer.echo(result_line(game))


@round_app.command("recount")
def recount(
    number: Annotated[int, typer.Argument(help="The round to re-count (1 is the first).")],
    game_id: GameOption = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Save without asking.")] = False,
    drop_corrections: Annotated[
        bool,
        typer.Option(
            "--drop-corrections",
            help="Re-count even where a hand correction cannot be kept (it is dropped).",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Count a photo-scored round again from its saved photos with the current models.

    The photos must be unchanged (same SHA-256). The corrections are kept: --fix applied
    again, cards given by hand (--card) given again to the card in the same place, counts
    typed with round edit kept as typed; where one cannot be kept, the re-count refuses
    unless --drop-corrections. Old and new counts are shown before the round is replaced.
    """
    from ._recount import recount_round

    recount_round(number, game_id, yes=yes, json_out=json_out, drop_corrections=drop_corrections)
