"""``cardtally demo``: the whole flow on the bundled sample photos, no camera needed.

It calibrates the three sample decks, starts a Ligretto game for Anna, Ben and Cleo, scores a
round from a centre photo and a leftover photo, and prints the table. Everything happens in a
demo data home (``demo/`` inside the data home), replaced on every run, so the user's decks,
games and current game are never touched. The sample photos are rendered, not real.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from ..home import HOME_ENV, ensure_data_home, ledger_path
from ..rounds.games import game_json
from ..scoring.ledger import Ledger
from ..scoring.rules import get_rules
from ..scoring.standings import Seat
from ..vision.calibrate import calibrate_deck
from ..vision.decks import current_decks, write_profile
from ._game_view import print_json, render_game
from ._score_run import score_round
from .app import app

DEMO_DIRNAME = "demo"
SAMPLES_PACKAGE = "cardtally.samples"


@contextmanager
def _data_home(folder: Path) -> Iterator[None]:
    """Point this process's data home at ``folder`` while the demo runs."""
    before = os.environ.get(HOME_ENV)
    os.environ[HOME_ENV] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(HOME_ENV, None)
        else:
            os.environ[HOME_ENV] = before


def _copy_samples(target: Path) -> tuple[dict, list[Path], Path, Path]:
    """Copy the bundled photos next to the demo ledger (saved rounds refer to them)."""
    samples = resources.files(SAMPLES_PACKAGE)
    truth = json.loads(samples.joinpath("truth.json").read_text())
    photos = target / "photos"
    photos.mkdir(parents=True)
    calibration = []
    for deck in truth["players"].values():
        path = photos / f"{deck}.jpg"
        path.write_bytes(samples.joinpath("calibration", f"{deck}.jpg").read_bytes())
        calibration.append(path)
    centre, leftover = photos / "centre.jpg", photos / "leftover.jpg"
    centre.write_bytes(samples.joinpath("round1", "centre.jpg").read_bytes())
    leftover.write_bytes(samples.joinpath("round1", "leftover.jpg").read_bytes())
    return truth, calibration, centre, leftover


@app.command()
def demo(
    json_out: Annotated[bool, typer.Option("--json", help="Print the game as JSON.")] = False,
) -> None:
    """Calibrate the sample decks and score a round from the sample photos (your data is untouched)."""
    folder = ensure_data_home() / DEMO_DIRNAME
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    truth, calibration, centre, leftover = _copy_samples(folder)
    typer.echo(
        "cardtally demo: the sample photos are rendered by cardtally's scene engine, not real.",
        err=True,
    )
    with _data_home(folder):
        typer.echo("1. Calibrating the three decks from one photo each:", err=True)
        for path in calibration:
            deck = path.stem
            result = calibrate_deck(deck, [path], current_decks())
            write_profile(result.profile)
            typer.echo(f"   {deck}: {result.n_cards} cards", err=True)
        typer.echo("2. A new Ligretto game: " + ", ".join(
            f"{player} plays {deck}" for player, deck in truth["players"].items()), err=True)
        with Ledger.open(ledger_path()) as ledger:  # type: ignore[union-attr]
            seats = [Seat(player, deck) for player, deck in truth["players"].items()]
            game_id = ledger.create_game(get_rules("ligretto"), seats)
        typer.echo("3. Scoring round 1 from the centre and leftover photos:", err=True)
        # With --json only the final JSON goes to stdout; the round's table goes to stderr.
        with contextlib.redirect_stdout(sys.stderr) if json_out else contextlib.nullcontext():
            _score(centre, leftover, truth["caller"], game_id)
        with Ledger.open(ledger_path()) as ledger:  # type: ignore[union-attr]
            game = ledger.game(game_id)
            stored = game.rounds[-1]
    counted = {
        "centre": {c.player: c.center_cards for c in stored.entry.counts},
        "leftover": {c.player: c.pile_cards for c in stored.entry.counts},
    }
    expected = {
        part: {player: truth[part][deck] for player, deck in truth["players"].items()}
        for part in ("centre", "leftover")
    }
    if json_out:
        print_json({**game_json(game, game_id), "expected_counts": expected})
    else:
        typer.echo(render_game(game))
    verdict = "match" if counted == expected else "DO NOT match"
    run_demo = f"{HOME_ENV}={shlex.quote(str(folder))} {cardtally_command()}"
    typer.echo(
        f"The counts {verdict} the rendered ground truth {expected['centre']} (centre), "
        f"{expected['leftover']} (leftover).\n"
        f"Review images: {folder / 'reviews'}\n"
        f"Look at the demo game with: {run_demo} game show\n"
        f"Give a card of the review image to a player with: {run_demo} "
        "round edit 1 --card centre:N=PLAYER",
        err=True,
    )


def cardtally_command() -> str:
    """How to run cardtally from any shell, even where its virtual environment is not active:
    the console script beside this Python (the venv's ``bin/``), else ``python -m cardtally``."""
    name = "cardtally.exe" if os.name == "nt" else "cardtally"
    script = Path(sys.executable).parent / name
    if script.is_file():
        return shlex.quote(str(script))
    return f"{shlex.quote(sys.executable)} -m cardtally"


def _score(centre: Path, leftover: Path, caller: str, game_id: int) -> None:
    """Score the round through the same code as ``cardtally score --yes``."""
    # Only what differs from the command's defaults, so new ``score`` options need no change here.
    score_round([centre], [leftover], caller=caller, game_id=game_id, yes=True)
