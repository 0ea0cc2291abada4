"""Detector benchmark: accuracy on a held-out rendered split, real photos, and latency.

    python benchmarks/detect_bench.py --scenes 300 --out docs/bench/detect.json

Rendered test scenes use seeds from 900_000 on; training draws its samples from
seed * 10_000_000 + index with seed < 90, so the two never meet.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector
from cardtally.vision.detect_classical import detect_cards_classical
from cardtally.vision.load import load_image

TEST_SEED0 = 900_000
STRIP_BINS = ((8, 12), (12, 20), (20, 40), (40, 1e9))
REAL_PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-photos"


def match_cards(owner_map: np.ndarray, points_xy: np.ndarray, n_cards: int) -> np.ndarray:
    """For each ground-truth card, whether a detection point lies in its visible region.

    One-to-one: a card is matched by the first detection (strongest first) that lands on it;
    further detections on the same card are false positives.
    """
    height, width = owner_map.shape
    matched = np.zeros(n_cards, bool)
    false_pos = 0
    for x, y in points_xy:
        xi, yi = int(np.clip(x, 0, width - 1)), int(np.clip(y, 0, height - 1))
        owner = int(owner_map[yi, xi])
        if owner >= 0 and not matched[owner]:
            matched[owner] = True
        else:
            false_pos += 1
    return matched, false_pos


def evaluate_rendered(detect, n_scenes: int, preset: str | None) -> dict:
    """Recall/precision by strip bin and count exactness over rendered test scenes."""
    stats = defaultdict(lambda: [0, 0])  # bin -> [matched, total]
    per_layout = defaultdict(lambda: [0, 0])  # layout -> [exact, scenes]
    n_det = n_fp = 0
    exact = 0
    abs_err = []
    for i in range(n_scenes):
        options = SceneOptions(preset=preset or "mixed", n_cards=(3, 120), min_strip_px=12.0)
        scene = render_scene(TEST_SEED0 + i, options)
        dets = detect(scene.image)
        matched, false_pos = match_cards(scene.owner_map, dets.centre_xy, len(scene.cards))
        n_det += len(dets)
        n_fp += false_pos
        for card, ok in zip(scene.cards, matched, strict=True):
            for lo, hi in STRIP_BINS:
                if lo <= card.strip_px < hi:
                    stats[(lo, hi)][0] += int(ok)
                    stats[(lo, hi)][1] += 1
        error = len(dets) - len(scene.cards)
        abs_err.append(abs(error))
        exact += error == 0
        per_layout[scene.layout][0] += error == 0
        per_layout[scene.layout][1] += 1
    matched_12 = sum(v[0] for k, v in stats.items() if k[0] >= 12)
    total_12 = sum(v[1] for k, v in stats.items() if k[0] >= 12)
    return {
        "scenes": n_scenes,
        "recall_strip_ge_12": matched_12 / max(1, total_12),
        "precision": (n_det - n_fp) / max(1, n_det),
        "recall_by_strip_px": {f"{lo}-{hi:g}": v[0] / max(1, v[1]) for (lo, hi), v in sorted(stats.items())},
        "cards_by_strip_px": {f"{lo}-{hi:g}": v[1] for (lo, hi), v in sorted(stats.items())},
        "exact_count_rate": exact / n_scenes,
        "mean_abs_count_error": float(np.mean(abs_err)),
        "exact_by_layout": {k: v[0] / v[1] for k, v in sorted(per_layout.items())},
        "scenes_by_layout": {k: v[1] for k, v in sorted(per_layout.items())},
    }


def evaluate_real(detect) -> dict:
    """Exact total count rate and mean absolute error on the hand-counted real photos."""
    rows = list(csv.DictReader((REAL_PHOTOS / "counts.csv").open()))
    results = {"sure": [], "all": []}
    for row in rows:
        image = load_image(REAL_PHOTOS / row["folder"] / row["file"]).bgr
        error = len(detect(image)) - int(row["total_cards"])
        results["all"].append(error)
        if row["confidence"] == "sure":
            results["sure"].append(error)
    return {
        group: {
            "photos": len(errors),
            "exact_rate": float(np.mean([e == 0 for e in errors])),
            "mean_abs_error": float(np.mean(np.abs(errors))),
            "max_abs_error": int(np.max(np.abs(errors))),
        }
        for group, errors in results.items()
    }


def latency(detect, runs: int = 5) -> dict:
    """Median detection time per image size (rendered scenes at those sizes)."""
    out = {}
    for wh in ((1280, 720), (1920, 1080), (4032, 3024)):
        scene = render_scene(TEST_SEED0 - 1, SceneOptions(image_wh=wh, n_cards=(60, 60)))
        detect(scene.image)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            detect(scene.image)
            times.append(time.perf_counter() - start)
        out[f"{wh[0]}x{wh[1]}"] = round(statistics.median(times) * 1000, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--per-layout", type=int, default=60)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--skip-baseline", action="store_true")
    args = parser.parse_args()
    detectors = {"cardtally": CardDetector().detect}
    if not args.skip_baseline:
        detectors["classical"] = detect_cards_classical
    report = {}
    for name, detect in detectors.items():
        result = {"mixed": evaluate_rendered(detect, args.scenes, None)}
        for preset in ("spread", "rows", "fan", "pile"):
            result[preset] = evaluate_rendered(detect, args.per_layout, preset)
        result["real_photos"] = evaluate_real(detect)
        result["latency_ms"] = latency(detect)
        report[name] = result
        print(name, json.dumps(result, indent=1), file=sys.stderr)
    import resource

    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
