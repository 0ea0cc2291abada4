"""Where the detector's count errors come from, on rendered validation scenes.

    python benchmarks/detect_errors.py --preset rows --scenes 20
    python benchmarks/detect_errors.py --preset mixed --scenes 30 --model runs/candidate.onnx

Every true card that no detection matches (``detect_bench.match_cards``) is *merged* when more
than half of its visible part lies inside one detection's outline (the detector took it for
part of another card; *same deck* when that detection's own card is of the same deck), else
*uncovered*. For scale, the scenes' touching card pairs are counted too (and those of one
deck). Every detection that matches no card is a *second piece* of a card another
detection already matched, or *off every card* (table, clutter). Validation seeds only
(``tune_detector.validation_seed0``), never the test split.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector, survey_detector
from cardtally.vision.onnx_session import model_session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import match_cards  # noqa: E402
from tune_detector import validation_seed0  # noqa: E402


def scene_errors(scene, detections) -> Counter:
    """The tallies of the module docstring for one scene."""
    tally = Counter(cards=len(scene.cards), detections=len(detections))
    matched, _ = match_cards(scene.owner_map, detections.centre_xy, len(scene.cards))
    height, width = scene.owner_map.shape
    outline_of = np.full((height, width), -1, np.int32)
    for k, polygon in enumerate(detections.visible_polygons_xy):
        cv2.fillPoly(outline_of, [np.round(polygon).astype(np.int32)], k)
    xs = np.clip(detections.centre_xy[:, 0].astype(int), 0, width - 1)
    ys = np.clip(detections.centre_xy[:, 1].astype(int), 0, height - 1)
    card_under = scene.owner_map[ys, xs]
    seen: set[int] = set()
    for card in card_under.tolist():
        if card < 0:
            tally["off every card"] += 1
        elif card in seen:
            tally["second piece"] += 1
        seen.add(card)
    owner = scene.owner_map
    pairs = set()
    for a, b in ((owner[:, :-1], owner[:, 1:]), (owner[:-1, :], owner[1:, :])):
        touching = (a != b) & (a >= 0) & (b >= 0)
        pairs |= {(min(p, q), max(p, q))
                  for p, q in zip(a[touching].tolist(), b[touching].tolist(), strict=True)}
    tally["touching pairs"] += len(pairs)
    tally["touching pairs, same deck"] += sum(
        scene.cards[p].deck_id == scene.cards[q].deck_id for p, q in pairs)
    for card in np.flatnonzero(~matched):
        inside = outline_of[scene.owner_map == card]
        inside = inside[inside >= 0]
        if 2 * len(inside) <= int((scene.owner_map == card).sum()):
            tally["uncovered"] += 1
            continue
        tally["merged"] += 1
        host = card_under[np.bincount(inside).argmax()]
        if host >= 0 and scene.cards[host].deck_id == scene.cards[card].deck_id:
            tally["merged, same deck"] += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="mixed")
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--model", type=Path, default=None,
                        help="a candidate processing model (ONNX), behind the shipped survey")
    args = parser.parse_args()
    detector = (CardDetector(model_session(args.model.read_bytes(), args.model.name), survey_detector())
                if args.model else CardDetector())
    options = SceneOptions(preset=args.preset, n_cards=(3, 120), min_strip_px=12.0)
    total: Counter = Counter()
    for i in range(args.scenes):
        scene = render_scene(validation_seed0(args.preset) + i, options)
        total += scene_errors(scene, detector.detect(scene.image))
    keys = ("cards", "detections", "merged", "merged, same deck", "uncovered", "second piece",
            "off every card", "touching pairs", "touching pairs, same deck")
    print(f"{args.preset}, {args.scenes} scenes: " + ", ".join(f"{k} {total[k]}" for k in keys))


if __name__ == "__main__":
    main()
