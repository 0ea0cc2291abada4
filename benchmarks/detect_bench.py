"""Detector benchmark: accuracy on a held-out rendered split, real photos, and latency.

    python benchmarks/detect_bench.py --scenes 300 --out docs/bench/detect.json

Rendered test scenes use seeds from 900_000 on; training draws its samples from
seed * 10_000_000 + index with seed < 90, so the two never meet.
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
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
from cardtally.vision.onnx_session import model_session

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


class _RenderedStats:
    """Accumulates recall/precision by strip bin and count exactness for one detector."""

    def __init__(self) -> None:
        self.by_strip = defaultdict(lambda: [0, 0])  # bin -> [matched, total]
        self.by_layout = defaultdict(lambda: [0, 0])  # layout -> [exact, scenes]
        self.n_det = self.n_fp = self.exact = 0
        self.abs_err: list[int] = []

    def add(self, scene, dets) -> None:
        matched, false_pos = match_cards(scene.owner_map, dets.centre_xy, len(scene.cards))
        self.n_det += len(dets)
        self.n_fp += false_pos
        for card, ok in zip(scene.cards, matched, strict=True):
            for lo, hi in STRIP_BINS:
                if lo <= card.strip_px < hi:
                    self.by_strip[(lo, hi)][0] += int(ok)
                    self.by_strip[(lo, hi)][1] += 1
        error = len(dets) - len(scene.cards)
        self.abs_err.append(abs(error))
        self.exact += error == 0
        self.by_layout[scene.layout][0] += error == 0
        self.by_layout[scene.layout][1] += 1

    def report(self) -> dict:
        n_scenes = len(self.abs_err)
        matched_12 = sum(v[0] for k, v in self.by_strip.items() if k[0] >= 12)
        total_12 = sum(v[1] for k, v in self.by_strip.items() if k[0] >= 12)
        return {
            "scenes": n_scenes,
            "recall_strip_ge_12": matched_12 / max(1, total_12),
            "precision": (self.n_det - self.n_fp) / max(1, self.n_det),
            "recall_by_strip_px": {
                f"{lo}-{hi:g}": v[0] / max(1, v[1]) for (lo, hi), v in sorted(self.by_strip.items())
            },
            "cards_by_strip_px": {f"{lo}-{hi:g}": v[1] for (lo, hi), v in sorted(self.by_strip.items())},
            "exact_count_rate": self.exact / max(1, n_scenes),
            "mean_abs_count_error": float(np.mean(self.abs_err)) if self.abs_err else 0.0,
            "exact_by_layout": {k: v[0] / v[1] for k, v in sorted(self.by_layout.items())},
            "scenes_by_layout": {k: v[1] for k, v in sorted(self.by_layout.items())},
        }


def evaluate_rendered(detectors: dict, n_scenes: int, preset: str | None) -> dict:
    """Every detector on the same rendered test scenes (each scene rendered once)."""
    stats = {name: _RenderedStats() for name in detectors}
    for i in range(n_scenes):
        options = SceneOptions(preset=preset or "mixed", n_cards=(3, 120), min_strip_px=12.0)
        scene = render_scene(TEST_SEED0 + (0 if preset is None else 10_000) + i, options)
        for name, detect in detectors.items():
            stats[name].add(scene, detect(scene.image))
        print(f"{preset or 'mixed'} {i + 1}/{n_scenes}", file=sys.stderr, flush=True)
    return {name: s.report() for name, s in stats.items()}


def real_photos() -> list[tuple[dict, np.ndarray]]:
    """Every hand-counted real photo: its counts.csv row and its decoded image."""
    rows = list(csv.DictReader((REAL_PHOTOS / "counts.csv").open()))
    return [(row, load_image(REAL_PHOTOS / row["folder"] / row["file"]).bgr) for row in rows]


def real_count_summary(rows: list[dict], counts: list[int]) -> dict:
    """Exact total count rate, mean and largest absolute error over the "sure" and all photos."""
    results = {"sure": [], "all": []}
    for row, count in zip(rows, counts, strict=True):
        error = count - int(row["total_cards"])
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


def evaluate_real(detect) -> dict:
    """Exact total count rate and mean absolute error on the hand-counted real photos."""
    photos = real_photos()
    return real_count_summary([row for row, _ in photos], [len(detect(image)) for _, image in photos])


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
    """Measure the detectors on the rendered split, the real photos and latency; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--per-layout", type=int, default=60)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--model", type=Path, default=None,
                        help="also measure this detector ONNX file (e.g. an int8 build)")
    args = parser.parse_args()
    detectors = {"cardtally": CardDetector().detect}
    if args.model:  # with the ONNX Runtime options the shipped model runs under
        session = model_session(args.model.read_bytes(), args.model.name)
        detectors[args.model.name] = CardDetector(session).detect
    if not args.skip_baseline:
        detectors["classical"] = detect_cards_classical
    report: dict = {name: {} for name in detectors}
    for preset in (None, "spread", "rows", "fan", "pile"):
        n = args.scenes if preset is None else args.per_layout
        for name, result in evaluate_rendered(detectors, n, preset).items():
            report[name][preset or "mixed"] = result
    for name, detect in detectors.items():
        report[name]["real_photos"] = evaluate_real(detect)
        report[name]["latency_ms"] = latency(detect)
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
