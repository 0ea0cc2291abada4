"""Training samples for the layout network, rendered on the fly by the scene engine.

Each sample is a crop-sized render at a card scale the network meets after the processing
rescale (card long side 48-240 px); its seed alone fixes it, so a resumed run sees the same
stream. The mix leans on what version 1 got wrong: sorted one-deck rows, hard tables (a large
share of gingham, stripes, knit, marble and cloths of the backs' own colour), real back designs
from the training sets, and clutter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..embedder.scenes import REAL_BACKS_DIR
from ..synth.designs import load_design
from ..synth.scene import SceneOptions, render_scene
from .targets import layout_targets

#: Layout presets and their shares of the renders.
PRESET_SHARES = {"sorted": 3, "mixed": 2, "rows": 2, "fan": 1, "pile": 1, "spread": 1}
#: Card long side in input pixels: the processing scale puts most cards at 120-160 px.
CARD_PX = (48.0, 240.0)
#: Share of renders whose decks are real back designs (the TRAIN.txt sets).
REAL_DESIGN_SHARE = 0.4
#: Share of renders on a table kind that version 1 could not read (others: drawn at random).
HARD_TABLE_SHARE = 0.5
HARD_TABLES = ("tablecloth", "knit", "cloth", "laminate")
MIN_STRIP_PX = 8.0
# A crop stands for a small part of a photo (a 256 px crop of a 3000-4000 px phone photo sees
# 4-7 degrees): its perspective is nearly affine and its lens distortion negligible. The
# renderer's wide default camera, moved close for the card scale, would warp cards far more
# than any photo does, and its lens model sends corners beyond the crop's edge far off.
CROP_HFOV_DEG = (3.0, 12.0)


@dataclass(frozen=True)
class LayoutSample:
    """One training crop: BGR uint8 image (H, W, 3) and its targets by name."""

    image: np.ndarray
    targets: dict[str, np.ndarray]


@lru_cache(maxsize=2)
def back_design_paths(split: str) -> tuple[Path, ...]:
    """Real back images of the sets listed in ``split`` ("TRAIN" or "TEST"), distinct files."""
    sets = (REAL_BACKS_DIR / f"{split}.txt").read_text().split()
    seen: set[bytes] = set()
    paths = []
    for name in sets:
        for path in sorted((REAL_BACKS_DIR / "pysolfc" / name).glob("back*")):
            data = path.read_bytes()
            if data not in seen:
                seen.add(data)
                paths.append(path)
    return tuple(paths)


@lru_cache(maxsize=512)
def _design(path: Path) -> np.ndarray:
    return load_design(path)


def training_options(rng: np.random.Generator, crop_px: int) -> SceneOptions:
    """Scene options for one training render."""
    names = list(PRESET_SHARES)
    shares = np.array([PRESET_SHARES[n] for n in names], np.float64)
    preset = names[int(rng.choice(len(names), p=shares / shares.sum()))]
    n_decks = int(rng.integers(2, 9))
    designs = None
    if rng.random() < REAL_DESIGN_SHARE:
        paths = back_design_paths("TRAIN")
        picks = rng.choice(len(paths), size=n_decks, replace=False)
        designs = [_design(paths[int(i)]) for i in picks]
    table = str(rng.choice(HARD_TABLES)) if rng.random() < HARD_TABLE_SHARE else None
    return SceneOptions(
        preset=preset, n_decks=n_decks, families=bool(rng.random() < 0.3), designs=designs,
        n_cards=(3, int(rng.integers(10, 80))), image_wh=(crop_px, crop_px), card_px=CARD_PX,
        min_strip_px=MIN_STRIP_PX, table_kind=table, lens_distortion=0.0,
        camera_hfov_deg=CROP_HFOV_DEG, busy_clutter=True, court_style="figure",
        face_up_fraction=float(rng.uniform(0.3, 1.0)) if rng.random() < 0.15 else 0.05,
    )


def render_sample(seed: int, crop_px: int = 256) -> LayoutSample:
    """The training sample of ``seed``: a render, randomly flipped, with its targets."""
    rng = np.random.default_rng([seed, 7])
    scene = render_scene(int(rng.integers(2**31)), training_options(rng, crop_px))
    targets = layout_targets(scene).as_dict()
    image = scene.image
    if rng.random() < 0.5:  # a mirror image is as likely a photo; edges' direction flips too
        image = image[:, ::-1]
        targets = {k: v[..., ::-1] for k, v in targets.items()}
        targets["edge_orient"] = targets["edge_orient"] * np.array([1, -1], np.float32)[:, None, None]
        targets["offset"] = targets["offset"] * np.array([-1, 1], np.float32)[:, None, None]
        targets["card_orient"] = targets["card_orient"] * np.array([1, -1], np.float32)[:, None, None]
    return LayoutSample(np.ascontiguousarray(image),
                        {k: np.ascontiguousarray(v) for k, v in targets.items()})
