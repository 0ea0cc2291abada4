"""How well the detector's full-card outlines fit the true cards (they drive identification).

    python benchmarks/quad_iou.py --scenes 6 --preset rows [--model CANDIDATE.onnx]

For every detection that lands on a rendered card (validation-style seeds 910,000+, 1600x1200,
10-40 cards), the intersection over union of its estimated full-card quad with the card's true
quad; prints the median and quartiles. ``--model`` runs a candidate processing model behind the
shipped survey model, as the shipped detector runs its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.synth.scene import SceneOptions, render_scene

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_detectors import behind_shipped_survey  # noqa: E402

from cardtally.vision.detect import CardDetector


def quad_iou(quad_a: np.ndarray, quad_b: np.ndarray) -> float:
    """IoU of two convex quads."""
    a, b = quad_a.astype(np.float32), quad_b.astype(np.float32)
    inter = cv2.intersectConvexConvex(a, b)[0]
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=6)
    parser.add_argument("--preset", default="rows")
    parser.add_argument("--model", type=Path, default=None,
                        help="a processing-pass ONNX file instead of the shipped one")
    args = parser.parse_args()
    detector = behind_shipped_survey(args.model) if args.model else CardDetector()
    ious = []
    for seed in range(910_000, 910_000 + args.scenes):
        options = SceneOptions(preset=args.preset, n_cards=(10, 40), image_wh=(1600, 1200),
                               n_decks=4)
        scene = render_scene(seed, options)
        detections = detector.detect(scene.image)
        for quad, (x, y) in zip(detections.quad_xy, detections.centre_xy, strict=True):
            owner = int(scene.owner_map[int(y), int(x)])
            if owner >= 0:
                ious.append(quad_iou(quad, scene.cards[owner].quad_xy))
    q25, q50, q75 = np.percentile(ious, [25, 50, 75])
    print(f"{args.preset}: {len(ious)} detections on cards, quad IoU median {q50:.2f} (quartiles {q25:.2f}-{q75:.2f})")


if __name__ == "__main__":
    main()
