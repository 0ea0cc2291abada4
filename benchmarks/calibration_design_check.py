"""How often calibration's "one design or several" check refuses, through the detector.

    python benchmarks/calibration_design_check.py --first-trial 0 --trials 8 --two-deck 80 --seed 4243

Single-deck photos: the calibration photos of ``identify_bench.py`` (every scenario, the given
trials), which should never be refused as mixed. Two-deck photos: rendered spread and rows
layouts of two procedural decks (3-8 and 2-8 cards; ``--family``: two decks of one
Ligretto-style family, the same design with another symbol), which should be. Each photo goes
through ``calibrate.find_cards`` and ``calibration_crops`` as ``cardtally calibrate`` does;
calibration's own check (``design_groups`` and ``mixes_designs`` on the ``design_judges``
crops) is then run at several grouping cuts. Photos with fewer than 3 whole backs (refused for
that reason) are left out of both counts.
"""

from __future__ import annotations

import argparse

import numpy as np
from identify_bench import SCENARIOS, SEED_BASE, calibration_photos, scenario_designs

from cardtally.models.synth.designs import random_back_design
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.calibrate import (
    calibration_crops,
    design_groups,
    design_judges,
    mixes_designs,
    whole_back_rows,
)
from cardtally.vision.calibration_cards import MIN_USABLE_CARDS, find_cards
from cardtally.vision.embed import BackEmbedder, default_embedder

CUTS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)


def clear_vectors(image: np.ndarray, embedder: BackEmbedder) -> tuple[np.ndarray, np.ndarray] | None:
    """Embeddings (as laid and turned 180 degrees) of the whole-card crops the check judges."""
    detections = find_cards(image)
    crops = calibration_crops([image], [detections])
    if len(crops.card_index) == 0:
        return None
    embeddings = embedder.embed(crops.pixels)
    back_whole, _ = whole_back_rows(crops, embeddings.face_up_prob)
    if len(back_whole) < MIN_USABLE_CARDS:
        return None
    clear = design_judges(crops, back_whole)
    return embeddings.vectors[clear], embeddings.vectors[clear + 1]


def refused_as_mixed(vectors: np.ndarray, turned: np.ndarray, cut: float) -> bool:
    """The calibration's mixed-design rule at grouping cut ``cut``."""
    return mixes_designs(np.bincount(design_groups(vectors, cut, turned=turned)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-trial", type=int, default=0)
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--two-deck", type=int, default=80, help="two-deck photos to render")
    parser.add_argument("--seed", type=int, default=4243, help="seed of the two-deck photos")
    parser.add_argument("--family", action="store_true",
                        help="the two decks are one family (same design and colour, "
                             "another symbol)")
    args = parser.parse_args()
    embedder = default_embedder()
    single, mixed = [], []
    for kind, n_decks, uncalibrated, _face_up in SCENARIOS.values():
        for trial in range(args.first_trial, args.first_trial + args.trials):
            rng = np.random.default_rng([SEED_BASE, trial, n_decks, len(kind)])
            designs = scenario_designs(kind, rng, n_decks)
            # identify_bench draws its uncalibrated designs here: the same photos need the draw.
            [random_back_design(rng) for _ in range(uncalibrated)]
            names = [f"deck{k}" for k in range(n_decks)]
            for photo in calibration_photos(rng, designs, names, (0.5, 0.95)):
                found = clear_vectors(photo.image, embedder)
                if found is not None:
                    single.append(found)
    rng = np.random.default_rng(args.seed)
    for k in range(args.two_deck):
        designs = scenario_designs("family" if args.family else "procedural", rng, 2)
        n_a, n_b = int(rng.integers(3, 9)), int(rng.integers(2, 9))
        options = SceneOptions(preset=("spread", "rows")[k % 2], n_decks=2, designs=designs,
                               deck_names=["a", "b"], n_cards=(n_a + n_b, n_a + n_b),
                               card_decks=tuple([0] * n_a + [1] * n_b), face_up_fraction=0.0,
                               image_wh=(1280, 960))
        found = clear_vectors(render_scene(int(rng.integers(2**31)), options).image, embedder)
        if found is not None:
            mixed.append(found)
    for cut in CUTS:
        s = sum(refused_as_mixed(v, t, cut) for v, t in single)
        m = sum(refused_as_mixed(v, t, cut) for v, t in mixed)
        print(f"cut {cut}: single-deck refused {s}/{len(single)}, two-deck refused {m}/{len(mixed)}")


if __name__ == "__main__":
    main()
