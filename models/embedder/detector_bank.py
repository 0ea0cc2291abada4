"""A bank of training crops cut the way ``cardtally count`` cuts them: by the shipped detector.

The embedder's own training views (``views.py``) imitate the detector's errors (an outline
shrunk by a few percent, an axis turned by 90 degrees); real detector outlines are also ragged,
cut in pieces by printed bands and spill onto neighbours. This bank renders game photos of
procedural decks (``synth.scene``, the same generator as the benchmark but from seeds the
benchmark never uses), finds their cards with the shipped detector, and keeps every detection
whose centre lies on a card: a back-up card labelled by its deck, a face-up card marked as
such (so that the face-up head also learns the detector's cut-up fronts). Each deck is also photographed
alone, as ``cardtally calibrate`` sees it, under another light, so that a class holds a deck's
calibration crops and its game crops together. Procedural designs only: never the real backs
in ``shared/data`` (they are test material).

    python -m cardtally.models.embedder.detector_bank --out runs/bank.npz --scenes 200 --seed 21
    python -m cardtally.models.embedder.detector_bank --out runs/bank_faceup.npz --scenes 200 \
        --first 500 --seed 21 --face-up-fraction 0.4 --no-calibration
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...vision.calibration_cards import find_cards
from ...vision.detect import detect_cards
from ...vision.detections import FACE_UP, CardDetections
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


@dataclass(frozen=True)
class LabelledCrops:
    """Model inputs of detected cards; ``labels`` is the deck label (-1 for a face-up card)."""

    crops: np.ndarray
    labels: np.ndarray
    face_up: np.ndarray

    @classmethod
    def join(cls, parts: list[LabelledCrops]) -> LabelledCrops:
        """All parts' crops, in order."""
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("crops", "labels", "face_up")))


def labelled_crops(scene: Scene, deck_labels: dict[str, int],
                   detections: CardDetections | None = None) -> LabelledCrops:
    """The detected cards that lie on a back-up card (labelled by ``deck_labels``, the label of
    each deck name) or on a face-up card (label -1, ``face_up`` set)."""
    detections = detect_cards(scene.image) if detections is None else detections
    names = list(deck_labels)
    owners = cards_under_centres(scene, detections)
    # Owner -1 (the table) picks the appended -1, which is neither a deck nor FACE_UP.
    deck_of = np.append(expected_owner(scene, names), -1)[owners]
    keep = np.flatnonzero((deck_of >= 0) | (deck_of == FACE_UP))
    if len(keep) == 0:
        return LabelledCrops(np.zeros((0, INPUT_CHANNELS, CROP_PX, CROP_PX), STORE_DTYPE),
                             np.zeros((0,), np.int64), np.zeros((0,), bool))
    face_up = deck_of[keep] == FACE_UP
    labels = np.array([-1 if k == FACE_UP else deck_labels[names[k]] for k in deck_of[keep]],
                      np.int64)
    crops = card_crops(scene.image, detections[keep]).pixels.astype(STORE_DTYPE)
    return LabelledCrops(crops, labels, face_up)


def bank_scene(seed: int, index: int, face_up_fraction: float = 0.05,
               calibrations: bool = True) -> LabelledCrops:
    """Crops of one game photo (deck labels ``index * 8 + deck``) and, with ``calibrations``, of
    its decks' calibration photos."""
    rng = np.random.default_rng([seed, index])
    designs = scene_decks(rng)
    names = [f"deck{k}" for k in range(len(designs))]
    deck_labels = {name: index * 8 + k for k, name in enumerate(names)}
    image_wh = ((1280, 960), (1600, 1200), (1920, 1440))[int(rng.integers(3))]
    options = SceneOptions(
        preset=("mixed", "mixed", "rows", "pile", "spread")[int(rng.integers(5))],
        n_decks=len(designs), designs=designs, deck_names=names,
        n_cards=(20, 100), face_up_fraction=face_up_fraction, image_wh=image_wh, lighting=Lighting(),
    )
    parts = [labelled_crops(render_scene(int(rng.integers(2**31)), options), deck_labels)]
    if calibrations:
        for name, design in zip(names, designs, strict=True):
            photo = render_calibration_photo(int(rng.integers(2**31)), design,
                                             image_wh=(1280, 960), deck_name=name)
            parts.append(labelled_crops(photo, deck_labels, find_cards(photo.image)))
    return LabelledCrops.join(parts)


def main() -> None:
    """Render the scenes, run the shipped detector and save its labelled crops."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="first scene index (to split work)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--face-up-fraction", type=float, default=0.05,
                        help="share of each game photo's cards lying face up")
    parser.add_argument("--no-calibration", action="store_true",
                        help="game photos only, without the decks' calibration photos")
    args = parser.parse_args()
    started = time.monotonic()
    parts = []
    for index in range(args.first, args.first + args.scenes):
        parts.append(bank_scene(args.seed, index, args.face_up_fraction, not args.no_calibration))
        if (index - args.first) % 20 == 19:
            print(f"scene {index + 1}: {sum(len(p.labels) for p in parts)} crops, "
                  f"{(time.monotonic() - started) / 60:.1f} min", flush=True)
    bank = LabelledCrops.join(parts)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, crops=bank.crops, labels=bank.labels, face_up=bank.face_up)
    print(f"wrote {args.out}: {len(bank.labels)} crops, {int(bank.face_up.sum())} face up",
          flush=True)


if __name__ == "__main__":
    main()
