"""Command line: render photos, JSON labels, deck designs and calibration photos to a folder.

    python -m cardtally.models.synth --out DIR --scenes 50 --seed 1 --preset mixed

By default one set of decks is drawn for the whole run (like one game photographed many times)
and each deck gets calibration photos; ``--vary-decks`` draws new decks for every scene.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ...errors import CardtallyError
from .decks import make_decks
from .designs import load_design
from .layouts import PRESETS
from .output import image_files, write_design, write_scene
from .scene import SceneOptions, render_calibration_photo, render_scene
from .sheet import contact_sheet
from .speed import tune_malloc

app = typer.Typer(add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})


def _parse_wh(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"expected WIDTHxHEIGHT such as 1920x1080, got {text!r}") from None
    if w < 64 or h < 64:
        raise typer.BadParameter(f"image size must be at least 64x64, got {text}")
    return w, h


def _user_designs(folder: Path) -> tuple[list[np.ndarray], list[str]]:
    files = image_files(folder)
    if not files:
        raise CardtallyError(f"No image files in {folder}. Put PNG/JPG/GIF card backs there.")
    designs, names = [], []
    for p in files:
        try:
            designs.append(load_design(p))
        except ValueError:
            continue
        names.append(str(p.relative_to(folder).with_suffix("")).replace("/", "_"))
    if not designs:
        raise CardtallyError(f"None of the images in {folder} could be read.")
    return designs, names


@app.command()
def render(
    out: Annotated[Path, typer.Option("--out", help="Output folder.")],
    scenes: Annotated[int, typer.Option("--scenes", min=0, help="Number of photos.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="First seed; scene k uses seed+k.")] = 0,
    preset: Annotated[str, typer.Option("--preset", help="mixed|spread|rows|fan|pile")] = "mixed",
    families: Annotated[bool, typer.Option("--families", help="Ligretto-box decks.")] = False,
    designs_dir: Annotated[
        Path | None,
        typer.Option("--designs", exists=True, file_okay=False,
                     help="Folder of back images to use as decks (4 per scene drawn from it)."),
    ] = None,
    n_decks: Annotated[int, typer.Option("--decks", min=1, max=12)] = 4,
    min_cards: Annotated[int, typer.Option("--min-cards", min=1)] = 3,
    max_cards: Annotated[int, typer.Option("--max-cards", min=1)] = 150,
    image_wh: Annotated[str | None, typer.Option("--size", help="WxH, default random.")] = None,
    min_strip_px: Annotated[float, typer.Option("--min-strip-px", min=1)] = 12.0,
    calibration: Annotated[int, typer.Option("--calibration", min=0,
                                             help="Calibration photos per deck.")] = 5,
    vary_decks: Annotated[bool, typer.Option("--vary-decks")] = False,
    sheet: Annotated[Path | None, typer.Option("--contact-sheet",
                                               help="Also write a contact sheet JPEG.")] = None,
) -> None:
    """Render synthetic card photos with JSON labels beside each image."""
    if preset not in PRESETS:
        raise typer.BadParameter(f"--preset must be one of {', '.join(PRESETS)}")
    if max_cards < min_cards:
        raise typer.BadParameter("--max-cards must be >= --min-cards")
    wh = _parse_wh(image_wh)
    tune_malloc()  # this process only renders: keep freed buffers instead of re-faulting them
    base = SceneOptions(preset=preset, n_decks=n_decks, families=families,
                        n_cards=(min_cards, max_cards), image_wh=wh, min_strip_px=min_strip_px)
    rng = np.random.default_rng([seed, 0xDEC])
    pool: tuple[list[np.ndarray], list[str]] | None = None
    if designs_dir is not None:
        pool = _user_designs(designs_dir)
    run_decks = None
    if not vary_decks:
        if pool is not None:
            pick = rng.choice(len(pool[0]), size=min(n_decks, len(pool[0])), replace=False)
            run_decks = ([pool[0][i] for i in pick], [pool[1][i] for i in pick])
        else:
            run_decks = make_decks(rng, base)
    out.mkdir(parents=True, exist_ok=True)
    rendered = []
    for k in range(scenes):
        if run_decks is not None:
            decks = run_decks
        elif pool is not None:
            pick = rng.choice(len(pool[0]), size=min(n_decks, len(pool[0])), replace=False)
            decks = ([pool[0][i] for i in pick], [pool[1][i] for i in pick])
        else:
            decks = None
        opts = base if decks is None else _with_decks(base, decks)
        scene = render_scene(seed + k, opts)
        write_scene(scene, out / "scenes", f"scene_{k:05d}")
        if sheet is not None and len(rendered) < 12:
            rendered.append(scene.image)
        if vary_decks and calibration:
            _calibrate(scene.deck_designs, scene.deck_names, out / "calibration" / f"scene_{k:05d}",
                       calibration, seed + k, wh)
        print(f"scene {k + 1}/{scenes}: {len(scene.cards)} cards", file=sys.stderr)
    if run_decks is not None:
        for d, name in zip(*run_decks, strict=True):
            write_design(d, out / "designs" / f"{name}.png")
        if calibration:
            _calibrate(run_decks[0], run_decks[1], out / "calibration", calibration, seed, wh)
    if sheet is not None and rendered:
        contact_sheet(rendered, sheet)
    summary = {"out": str(out), "scenes": scenes, "seed": seed, "preset": preset,
               "families": families}
    (out / "run.json").write_text(json.dumps(summary, indent=1))
    typer.echo(json.dumps(summary))


def _with_decks(base: SceneOptions, decks) -> SceneOptions:
    return dataclasses.replace(base, designs=list(decks[0]), deck_names=list(decks[1]))


def _calibrate(designs, names, folder: Path, per_deck: int, seed: int, wh) -> None:
    for d_i, (design, name) in enumerate(zip(designs, names, strict=True)):
        for j in range(per_deck):
            s = render_calibration_photo(seed * 1000 + d_i * 100 + j, design, image_wh=wh,
                                         deck_name=name)
            write_scene(s, folder / name, f"calib_{j:02d}")


def main() -> None:
    """Entry point with the project's error boundary: ``Error: ...`` on stderr, exit 1."""
    try:
        app()
    except CardtallyError as e:
        print(f"Error: {e}", file=sys.stderr)
        raise SystemExit(1) from None
