"""``cardtally decks [--json]`` and ``cardtally decks remove DECK``: the calibrated decks."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..rounds.games import check_no_game_uses
from ..vision.decks import is_current, profile_paths, read_profile, remove_deck
from .app import sub_app

decks_app = sub_app(
    "decks", "List calibrated decks (with --json as JSON), or remove one.", runs_alone=True
)


@decks_app.callback()
def list_decks(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """List the calibrated decks: name, cards used, prototypes, calibration date."""
    if ctx.invoked_subcommand is not None:
        return
    rows = []
    for path in profile_paths():
        profile = read_profile(path)
        rows.append({
            "name": profile.name,
            "cards": profile.n_cards,
            "prototypes": int(len(profile.prototypes)),
            "threshold": round(profile.threshold, 4),
            "created": profile.created,
            "embedder_version": profile.embedder_version,
            "compatible": is_current(profile),
        })
    if as_json:
        typer.echo(json.dumps({"decks": rows}))
        return
    if not rows:
        typer.echo("No decks calibrated yet; run 'cardtally calibrate DECK PHOTO...'.", err=True)
        return
    width = max(4, *(len(r["name"]) for r in rows))
    typer.echo(f"{'DECK':<{width}}  CARDS  CALIBRATED                 STATUS")
    for r in rows:
        status = "ok" if r["compatible"] else "recalibrate (made by another embedder)"
        typer.echo(f"{r['name']:<{width}}  {r['cards']:>5}  {r['created']:<25}  {status}")


@decks_app.command("remove")
def remove(
    deck: Annotated[str, typer.Argument(help="Name of the deck to forget.")],
    force: Annotated[
        bool, typer.Option("--force", help="Remove it even though a game uses it.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Delete a deck's profile from the data home."""
    if not force:
        check_no_game_uses(deck)
    path = remove_deck(deck)
    typer.echo(f"Removed deck {deck!r}.", err=True)
    if as_json:
        typer.echo(json.dumps({"removed": deck, "profile": str(path)}))
