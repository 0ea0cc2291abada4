"""Render the demo photos in samples/ (rendered, not real: see samples/README.md).

    python samples/make_samples.py

Three players' decks with distinct back designs; one calibration photo per deck (cards spread
out, warm light), a centre photo (shingled rows with finger-wide strips, daylight) and a
leftover photo (the piles spread out). The exact per-deck counts are written to
samples/truth.json for the tests and the demo's check.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.synth.designs import random_back_design
from cardtally.models.synth.scene import SceneOptions, render_calibration_photo, render_scene

HERE = Path(__file__).resolve().parent
PLAYERS = ("Anna", "Ben", "Cleo")
DESIGN_SEEDS = (5101, 5202, 5303)
# The photos follow the README's advice: calibration cards spread out, and in the centre rows
# every card shows a strip at least a finger wide (~16 mm of a 57 mm card side: 0.3 of it; the
# centre photo's cards are ~250 px long, ~2.8 px/mm, so ~45 px).
FINGER_WIDE_OFFSET = (0.3, 0.6)
FINGER_WIDE_PX = 40.0
COLOUR_NAMES = ((0, "red"), (20, "orange"), (35, "yellow"), (85, "green"), (130, "teal"),
                (200, "blue"), (270, "purple"), (330, "pink"), (360, "red"))


def colour_name(design_bgr: np.ndarray) -> str:
    """A rough colour word for a design (its most saturated pixels' mean hue)."""
    hsv = cv2.cvtColor(design_bgr, cv2.COLOR_BGR2HSV_FULL).reshape(-1, 3).astype(float)
    if hsv[:, 1].mean() < 40:
        return "grey"
    strong = hsv[hsv[:, 1] >= np.percentile(hsv[:, 1], 70)]
    angle = np.deg2rad(strong[:, 0] * 360 / 256)
    hue = np.rad2deg(np.arctan2(np.sin(angle).mean(), np.cos(angle).mean())) % 360
    return min(COLOUR_NAMES, key=lambda item: abs(item[0] - hue))[1]


def main() -> None:
    designs = [random_back_design(np.random.default_rng(seed)) for seed in DESIGN_SEEDS]
    names = [f"{colour_name(d)}-{p.lower()}" for d, p in zip(designs, PLAYERS, strict=True)]
    (HERE / "calibration").mkdir(exist_ok=True)
    (HERE / "round1").mkdir(exist_ok=True)
    for k, (design, name) in enumerate(zip(designs, names, strict=True)):
        scene = render_calibration_photo(
            700 + k, design, n_cards=(8, 12), image_wh=(1600, 1200), deck_name=name,
            preset="spread", colour_temp_k=(3000, 3400),
        )
        (HERE / "calibration" / f"{name}.jpg").write_bytes(scene.jpeg_bytes)
    centre = render_scene(
        811,
        SceneOptions(preset="rows", n_decks=3, designs=designs, deck_names=names, n_cards=(45, 45),
                     face_up_fraction=0.0, image_wh=(2016, 1512),
                     row_offset_frac=FINGER_WIDE_OFFSET, min_strip_px=FINGER_WIDE_PX,
                     camera_tilt_deg=(0.0, 12.0), jpeg_quality=(88, 88)),
    )
    leftover = render_scene(
        822,
        # Anna called out (empty pile); Ben has 4 cards left, Cleo 5.
        SceneOptions(preset="spread", n_decks=3, designs=designs, deck_names=names, n_cards=(9, 9),
                     card_decks=(1, 1, 1, 1, 2, 2, 2, 2, 2), face_up_fraction=0.0, image_wh=(1600, 1200), camera_tilt_deg=(0.0, 12.0),
                     jpeg_quality=(88, 88)),
    )
    (HERE / "round1" / "centre.jpg").write_bytes(centre.jpeg_bytes)
    (HERE / "round1" / "leftover.jpg").write_bytes(leftover.jpeg_bytes)
    truth = {
        "players": dict(zip(PLAYERS, names, strict=True)),
        "caller": "Anna",
        "centre": centre.counts(),
        "leftover": leftover.counts(),
    }
    (HERE / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    print(json.dumps(truth, indent=2))


if __name__ == "__main__":
    main()
