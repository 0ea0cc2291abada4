"""Compare candidate detector models with the shipped one before shipping any of them.

    python benchmarks/compare_detectors.py runs/candidate.onnx [more.onnx ...]
    python benchmarks/compare_detectors.py runs/candidate.onnx --layouts mixed:30 fan:20

Every model runs with the shipped post-processing settings at a few centre thresholds, on the
hand-counted real photos (`evaluate_real`, as in detect_bench) and on rendered validation
scenes (seeds of `tune_detector.validation_seed0`: the test split is never looked at here).
Prints one line per model, threshold and set: exact-count rate, card recall and precision,
mean absolute count error.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector, DetectorSettings, cards_from_maps
from cardtally.vision.onnx_session import model_session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import evaluate_real, match_cards  # noqa: E402
from tune_detector import validation_seed0  # noqa: E402

DEFAULT_LAYOUTS = ("mixed:30", "spread:20", "rows:20", "fan:20", "pile:20")


def detector_for(path: Path | None) -> CardDetector:
    """The shipped detector (``None``) or one running the given ONNX file."""
    return CardDetector(model_session(path.read_bytes(), path.name) if path else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", type=Path, nargs="+", help="candidate ONNX files")
    parser.add_argument("--layouts", nargs="*", default=list(DEFAULT_LAYOUTS),
                        help="validation sets as LAYOUT:SCENES (none: real photos only)")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.12, 0.16, 0.2],
                        help="centre thresholds to try (shipped: 0.16)")
    args = parser.parse_args()
    detectors = {"shipped": detector_for(None)}
    detectors.update({str(path): detector_for(path) for path in args.models})
    width = max(len(name) for name in detectors)
    for name, detector in detectors.items():
        for threshold in args.thresholds:
            settings = dataclasses.replace(DetectorSettings(), centre_threshold=threshold)
            real = evaluate_real(lambda image, d=detector, s=settings: d.detect(image, s))
            sure, every = real["sure"], real["all"]
            print(f"real    {name:{width}s} thr {threshold:.2f}: sure exact "
                  f"{sure['exact_rate']:.3f} mae {sure['mean_abs_error']:.2f} max "
                  f"{sure['max_abs_error']} | all exact {every['exact_rate']:.3f} mae "
                  f"{every['mean_abs_error']:.2f}", flush=True)
    for spec in args.layouts:
        preset, n_scenes = spec.split(":")
        options = SceneOptions(preset=preset, n_cards=(3, 120), min_strip_px=12.0)
        scenes = [render_scene(validation_seed0(preset) + i, options) for i in range(int(n_scenes))]
        for name, detector in detectors.items():
            cached = [(scene, *detector.processing_maps(scene.image)) for scene in scenes]
            for threshold in args.thresholds:
                settings = dataclasses.replace(DetectorSettings(), centre_threshold=threshold)
                exact = found = false = total = 0
                errors = []
                for scene, maps, work_wh, (factor, offset_xy) in cached:
                    cards = cards_from_maps(maps, work_wh, settings)
                    matched, false_pos = match_cards(
                        scene.owner_map, cards.centre_xy * factor + offset_xy, len(scene.cards))
                    exact += len(cards) == len(scene.cards)
                    found += int(matched.sum())
                    false += false_pos
                    total += len(scene.cards)
                    errors.append(abs(len(cards) - len(scene.cards)))
                print(f"{preset:7s} {name:{width}s} thr {threshold:.2f}: exact "
                      f"{exact / len(scenes):.3f} recall {found / max(1, total):.3f} precision "
                      f"{found / max(1, found + false):.3f} mae {np.mean(errors):.2f}", flush=True)


if __name__ == "__main__":
    main()
