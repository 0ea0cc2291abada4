"""Compare candidate detector models with the shipped one before shipping any of them.

    python benchmarks/compare_detectors.py runs/candidate.onnx [more.onnx ...]
    python benchmarks/compare_detectors.py runs/candidate.onnx --layouts mixed:30 fan:20
    python benchmarks/compare_detectors.py runs/candidate.onnx --layouts --behind-shipped-survey

Every model runs with the shipped post-processing settings at a few centre thresholds, on the
hand-counted real photos (`evaluate_real`, as in detect_bench) and on rendered validation
scenes (seeds of `tune_detector.validation_seed0`: the test split is never looked at here).
Prints one line per model, threshold and set: exact-count rate, card recall and precision,
mean absolute count error. A candidate surveys for itself, unless ``--behind-shipped-survey``
runs it as the shipped detector runs its processing model: behind the shipped survey model.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector, survey_detector
from cardtally.vision.onnx_session import model_session
from cardtally.vision.watershed_cards import DetectorSettings, cards_from_maps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import real_count_summary, real_photos  # noqa: E402
from tune_detector import score_cached, validation_seed0  # noqa: E402

DEFAULT_LAYOUTS = ("mixed:30", "spread:20", "rows:20", "fan:20", "pile:20")


def detector_for(path: Path | None) -> CardDetector:
    """The shipped detector (``None``) or one running the given ONNX file."""
    return CardDetector(model_session(path.read_bytes(), path.name) if path else None)


def behind_shipped_survey(path: Path) -> CardDetector:
    """A candidate processing model (ONNX file) behind the shipped survey model, as the
    shipped detector runs its own processing model."""
    return CardDetector(model_session(path.read_bytes(), path.name), survey_detector())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", type=Path, nargs="+", help="candidate ONNX files")
    parser.add_argument("--layouts", nargs="*", default=list(DEFAULT_LAYOUTS),
                        help="validation sets as LAYOUT:SCENES (none: real photos only)")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.12, 0.16, 0.2],
                        help="centre thresholds to try (shipped: 0.16)")
    parser.add_argument("--behind-shipped-survey", action="store_true",
                        help="run the candidates' processing pass behind the shipped survey model")
    args = parser.parse_args()
    candidate = behind_shipped_survey if args.behind_shipped_survey else detector_for
    detectors = {"shipped": detector_for(None)}
    detectors.update({str(path): candidate(path) for path in args.models})
    settings_at = {threshold: dataclasses.replace(DetectorSettings(), centre_threshold=threshold)
                   for threshold in args.thresholds}
    width = max(len(name) for name in detectors)
    photos = real_photos()
    rows = [row for row, _ in photos]
    for name, detector in detectors.items():
        # The network runs once per photo; only the map-to-cards step sees each threshold.
        cached = [detector.processing_maps(image) for _, image in photos]
        for threshold, settings in settings_at.items():
            counts = [len(cards_from_maps(maps, work_wh, settings)) for maps, work_wh, _ in cached]
            real = real_count_summary(rows, counts)
            sure, every = real["sure"], real["all"]
            print(f"real    {name:{width}s} thr {threshold:.2f}: sure exact "
                  f"{sure['exact_rate']:.3f} mae {sure['mean_abs_error']:.2f} max "
                  f"{sure['max_abs_error']} | all exact {every['exact_rate']:.3f} mae "
                  f"{every['mean_abs_error']:.2f} max {every['max_abs_error']}", flush=True)
    for spec in args.layouts:
        preset, n_scenes = spec.split(":")
        options = SceneOptions(preset=preset, n_cards=(3, 120), min_strip_px=12.0)
        scenes = [render_scene(validation_seed0(preset) + i, options) for i in range(int(n_scenes))]
        for name, detector in detectors.items():
            cached = [(scene, *detector.processing_maps(scene.image)) for scene in scenes]
            for threshold, settings in settings_at.items():
                score = score_cached(cached, settings)
                print(f"{preset:7s} {name:{width}s} thr {threshold:.2f}: exact "
                      f"{score.exact_rate:.3f} recall {score.recall:.3f} precision "
                      f"{score.precision:.3f} mae {score.mean_abs_error:.2f}", flush=True)


if __name__ == "__main__":
    main()
