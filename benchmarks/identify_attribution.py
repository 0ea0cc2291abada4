"""Where identification through the detector loses its accuracy: calibration or game photo.

    python benchmarks/identify_attribution.py --trials 6

Same scenes as ``identify_bench.py`` ("4 procedural decks", white balance of the renderer's
default), but each deck's calibration and the game photo's cards may each come from the
detector or from the renderer's true outlines, and the game photo's detected cards may get
their true visible outline or true full-card quad instead of the detector's. Accuracy is over
the detected backs-up cards (as in ``identify_bench --detector real``); prints one line per
combination ``calibration:game``.
"""

from __future__ import annotations

import argparse

import numpy as np
from identify_bench import (
    SEED_BASE,
    calibrate_decks,
    calibration_photos,
    game_scene,
    identify_as_scenario_decks,
    real_detections,
    scenario_designs,
)

from cardtally.models.embedder.scenes import expected_owner, gt_detections
from cardtally.models.synth.photo import Lighting
from cardtally.vision.detections import UNKNOWN, CardDetections
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.rectify import card_crops

COMBINATIONS = ("detector:detector", "true:detector", "detector:true", "true:true",
                "detector:true-outline", "detector:true-quad")


def game_cards(kind: str, found: CardDetections, true: CardDetections) -> CardDetections:
    """The detected cards, or the true cards they landed on, or a mix of both outlines."""
    if kind == "detector":
        return found
    if kind == "true":
        return true
    polygons = true.visible_polygons_xy if kind == "true-outline" else found.visible_polygons_xy
    quads = true.quad_xy if kind == "true-quad" else found.quad_xy
    return CardDetections(quads, polygons, found.centre_xy, found.angle_deg, found.score,
                          found.image_wh, found.strip_px)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=6)
    args = parser.parse_args()
    embedder = BackEmbedder()
    white_balance = Lighting().white_balance
    tally = {c: [0, 0, 0] for c in COMBINATIONS}  # right, unknown, cards
    for trial in range(args.trials):
        rng = np.random.default_rng([SEED_BASE, trial, 4, len("procedural")])
        designs = scenario_designs("procedural", rng, 4)
        names = [f"deck{k}" for k in range(4)]
        photos = [[photo] for photo in calibration_photos(rng, designs, names, white_balance)]
        decks = {with_detector: calibrate_decks(photos, names, embedder, with_detector)[0]
                 for with_detector in (True, False)}
        scene = game_scene(rng, designs, names, 0.05, white_balance)
        found, matched = real_detections(scene)
        found, matched = found[matched >= 0], matched[matched >= 0]
        true = gt_detections(scene)[matched]
        want = expected_owner(scene, names)[matched]
        backs = want >= 0
        for combination in COMBINATIONS:
            calibration, game = combination.split(":")
            deck_set = decks[calibration == "detector"]
            cards = game_cards(game, found, true)
            crops = card_crops(scene.image, cards, keep_rectified=True)
            embeddings = embedder.embed(crops)
            got = identify_as_scenario_decks(crops, embeddings, deck_set, names)
            tally[combination][0] += int((got[backs] == want[backs]).sum())
            tally[combination][1] += int((got[backs] == UNKNOWN).sum())
            tally[combination][2] += int(backs.sum())
    for combination, (right, unknown, n) in tally.items():
        print(f"{combination:24s} right {100 * right / n:.1f}%  "
              f"UNKNOWN {100 * unknown / n:.1f}%  (cards {n})")


if __name__ == "__main__":
    main()
