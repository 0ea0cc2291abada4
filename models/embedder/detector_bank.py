"""A bank of training crops cut the way ``cardtally count`` cuts them: by the shipped detector.

The embedder's own training views (``views.py``) imitate the detector's errors (an outline
shrunk by a few percent, an axis turned by 90 degrees); real detector outlines are also ragged,
cut in pieces by printed bands and spill onto neighbours. This bank renders game photos of
procedural decks (``synth.scene``, the same generator as the benchmark but from seeds the
benchmark never uses), finds their cards with the shipped detector, and keeps every detection
whose centre lies on a back-up card, labelled by its deck. Each deck is also photographed
alone, as ``cardtally calibrate`` sees it, under another light, so that a class holds a deck's
calibration crops and its game crops together. Procedural designs only: never the real backs
in ``shared/data`` (they are test material).

    python -m cardtally.models.embedder.detector_bank --out runs/bank.npz --scenes 200 --seed 21
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ...vision.calibrate import find_cards
from ...vision.detect import detect_cards
from ...vision.detections import CardDetections
from ...vision.rectify import CROP_PX, INPUT_CHANNELS, card_crops
from ..synth.designs import design_family, random_back_design
from ..synth.photo import Lighting
from ..synth.scene import Scene, SceneOptions, render_calibration_photo, render_scene
from .scenes import cards_under_centres, expected_owner

#: Kept crops are stored as float16 (model inputs are colours near [0, 1.25] and a 0/1 mask).
STORE_DTYPE = np.float16


def scene_decks(rng: np.random.Generator) -> list[np.ndarray]:
    """2-6 procedural backs, a Ligretto-style family of 4 in three scenes of ten."""
    if rng.random() < 0.3:
        return design_family(rng, n=4)
    return [random_back_design(rng) for _ in range(int(rng.integers(2, 7)))]


def labelled_crops(scene: Scene, deck_labels: dict[str, int],
                   detections: CardDetections | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Model inputs of the detected cards that lie on a back-up card, and their labels
    (``deck_labels``: the label of each deck name)."""
    detections = detect_cards(scene.image) if detections is None else detections
    names = list(deck_labels)
    owners = cards_under_centres(scene, detections)
    # Owner -1 (the table) picks the appended -1; FACE_UP is negative too.
    deck_of = np.append(expected_owner(scene, names), -1)[owners]
    keep = np.flatnonzero(deck_of >= 0)
    if len(keep) == 0:
        return np.zeros((0, INPUT_CHANNELS, CROP_PX, CROP_PX), STORE_DTYPE), np.zeros((0,), np.int64)
    labels = np.array([deck_labels[names[k]] for k in deck_of[keep]], np.int64)
    return card_crops(scene.image, detections[keep]).pixels.astype(STORE_DTYPE), labels


def bank_scene(seed: int, index: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels (``index * 8 + deck``) of one game photo and its decks' calibrations."""
    rng = np.random.default_rng([seed, index])
    designs = scene_decks(rng)
    names = [f"deck{k}" for k in range(len(designs))]
    deck_labels = {name: index * 8 + k for k, name in enumerate(names)}
    image_wh = ((1280, 960), (1600, 1200), (1920, 1440))[int(rng.integers(3))]
    options = SceneOptions(
        preset=("mixed", "mixed", "rows", "pile", "spread")[int(rng.integers(5))],
        n_decks=len(designs), designs=designs, deck_names=names,
        n_cards=(20, 100), face_up_fraction=0.05, image_wh=image_wh, lighting=Lighting(),
    )
    parts = [labelled_crops(render_scene(int(rng.integers(2**31)), options), deck_labels)]
    for name, design in zip(names, designs, strict=True):
        photo = render_calibration_photo(int(rng.integers(2**31)), design, image_wh=(1280, 960),
                                         deck_name=name)
        parts.append(labelled_crops(photo, deck_labels, find_cards(photo.image)))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="first scene index (to split work)")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    started = time.monotonic()
    crops, labels = [], []
    for index in range(args.first, args.first + args.scenes):
        c, lab = bank_scene(args.seed, index)
        crops.append(c)
        labels.append(lab)
        if (index - args.first) % 20 == 19:
            print(f"scene {index + 1}: {sum(len(x) for x in labels)} crops, "
                  f"{(time.monotonic() - started) / 60:.1f} min", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, crops=np.concatenate(crops), labels=np.concatenate(labels))
    print(f"wrote {args.out}: {sum(len(x) for x in labels)} crops", flush=True)


if __name__ == "__main__":
    main()
