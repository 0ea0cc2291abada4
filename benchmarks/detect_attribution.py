"""Which head limits the detector? Swap its maps for the rendered ground truth, one at a time.

    python benchmarks/detect_attribution.py --scenes 30

Validation scenes (seeds 800_000+, or 810_000+ for one layout) are rendered at 1024x768 with
cards 100-140 px long, so the network runs on them at their own size (no survey, no rescaling).
Then the map-to-cards step reads: the network's maps; the true centre peaks with the network's
foreground and edges; the true foreground and edges with the network's centre peaks; all true.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardtally.models.detector.targets import detector_targets
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector
from cardtally.vision.watershed_cards import cards_from_maps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_detector import ValidationTally, validation_seed0  # noqa: E402

VARIANTS = {
    "network maps": (),
    "true centres": ("centre",),
    "true foreground + edges": ("foreground", "edge"),
    "all true": ("centre", "foreground", "edge"),
}
CHANNEL = {"foreground": 0, "edge": 1, "centre": 2}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--preset", default="mixed")
    args = parser.parse_args()
    detector = CardDetector()
    tally = {name: ValidationTally() for name in VARIANTS}
    for i in range(args.scenes):
        options = SceneOptions(preset=args.preset, n_cards=(3, 120), image_wh=(1024, 768),
                               card_px=(100.0, 140.0), min_strip_px=12.0)
        scene = render_scene(validation_seed0(args.preset) + i, options)
        maps = detector.predict_maps(scene.image)
        truth = detector_targets(scene.owner_map, [card.quad_xy for card in scene.cards])
        height, width = maps.shape[1:]
        for name, swapped in VARIANTS.items():
            variant = maps.copy()
            for head in swapped:
                variant[CHANNEL[head]] = getattr(truth, head)[:height, :width]
            # The network ran at the scene's own size: detections are in scene pixels.
            work_wh = (scene.image.shape[1], scene.image.shape[0])
            tally[name].add(scene, cards_from_maps(variant, work_wh))
    print(f"{args.scenes} {args.preset} validation scenes, 1024x768, cards 100-140 px\n")
    print("| maps read | exact count | recall | precision |\n|---|---|---|---|")
    for name, counts in tally.items():
        score = counts.score()
        print(f"| {name} | {score.exact_rate:.1%} | {score.recall:.1%} | {score.precision:.1%} |")


if __name__ == "__main__":
    main()
