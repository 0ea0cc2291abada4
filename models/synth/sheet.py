"""Contact sheets: a grid of rendered photos in one JPEG, for people to judge realism.

``python -m cardtally.models.synth.sheet --out docs/synth-examples.jpg`` regenerates the sheet
in the docs (12 fixed seeds and options, so it is reproducible).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np


def contact_sheet(images: list[np.ndarray], path: Path, cols: int = 4, tile_wh=(480, 360),
                  quality: int = 80) -> np.ndarray:
    """Letterbox each image into a tile, grid them, write a JPEG to ``path``; returns the sheet."""
    tw, th = tile_wh
    tiles = []
    for im in images:
        h, w = im.shape[:2]
        s = min(tw / w, th / h)
        small = cv2.resize(im, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        tile = np.full((th, tw, 3), 24, np.uint8)
        y, x = (th - small.shape[0]) // 2, (tw - small.shape[1]) // 2
        tile[y:y + small.shape[0], x:x + small.shape[1]] = small
        tiles.append(tile)
    while len(tiles) % cols:
        tiles.append(np.full((th, tw, 3), 24, np.uint8))
    rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    sheet = np.vstack(rows)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return sheet


def example_scenes() -> list[np.ndarray]:
    """The 12 scenes of docs/synth-examples.jpg: every preset, families, face-up cards, sizes
    from webcam to phone, a calibration photo."""
    from .designs import random_back_design
    from .scene import SceneOptions, render_calibration_photo, render_scene

    hd, phone, webcam = (1920, 1080), (2016, 1512), (1280, 720)
    cases = [
        (1, SceneOptions(image_wh=hd)),
        (2, SceneOptions(preset="rows", image_wh=phone, n_cards=(20, 60))),
        (3, SceneOptions(preset="fan", image_wh=webcam, n_cards=(5, 20))),
        (4, SceneOptions(preset="pile", image_wh=phone, n_cards=(10, 40))),
        (5, SceneOptions(preset="spread", image_wh=hd, n_cards=(6, 20))),
        (6, SceneOptions(families=True, image_wh=phone, n_cards=(15, 60))),
        (7, SceneOptions(face_up_fraction=0.3, image_wh=hd, n_cards=(10, 40))),
        (8, SceneOptions(preset="rows", table_kind="laminate", image_wh=webcam)),
        (9, SceneOptions(image_wh=(4032, 3024), n_cards=(60, 150))),
        (10, SceneOptions(preset="pile", families=True, image_wh=hd, n_cards=(8, 25))),
        (11, SceneOptions(image_wh=(1080, 1440), n_cards=(10, 50))),
    ]
    images = [render_scene(seed, opts).image for seed, opts in cases]
    design = random_back_design(np.random.default_rng(12))
    images.append(render_calibration_photo(12, design, image_wh=phone).image)
    return images


def main() -> None:
    """Render the example scenes and write their contact sheet."""
    p = argparse.ArgumentParser(description="Write the contact sheet of example scenes.")
    p.add_argument("--out", type=Path, default=Path("docs/synth-examples.jpg"))
    p.add_argument("--quality", type=int, default=80)
    a = p.parse_args()
    contact_sheet(example_scenes(), a.out, quality=a.quality)
    print(a.out)


if __name__ == "__main__":
    main()
