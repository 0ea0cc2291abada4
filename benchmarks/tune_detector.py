"""Choose the detector's post-processing settings on rendered validation scenes.

    python benchmarks/tune_detector.py --scenes 40
    python benchmarks/tune_detector.py --scenes 30 --model runs/candidate.onnx

Validation scenes use seeds 800_000+ (one layout with --preset: 810_000+; training:
seed * 10_000_000 + index with seed < 80; benchmark test split: 900_000+), so tuning never sees
the test split. Prints the exact-count rate and card recall/precision for every combination,
best first.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import cardtally.vision.detect as detect_module
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector
from cardtally.vision.onnx_session import model_session
from cardtally.vision.watershed_cards import DetectorSettings, cards_from_maps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import match_cards  # noqa: E402

VALIDATION_SEED0 = 800_000


def validation_seed0(preset: str) -> int:
    """First validation seed of a layout: mixed scenes from 800,000, one layout from 810,000."""
    return VALIDATION_SEED0 + (0 if preset == "mixed" else 10_000)


@dataclass(frozen=True)
class ValidationScore:
    """How the cards read from cached maps compare with the scenes' ground truth."""

    exact_rate: float
    recall: float
    precision: float
    mean_abs_error: float


@dataclass
class ValidationTally:
    """Running totals of detected against true cards over scenes."""

    exact: int = 0
    matched: int = 0
    false: int = 0
    cards: int = 0
    scenes: int = 0
    abs_error: int = 0

    def add(self, scene, cards, factor: float = 1.0, offset_xy=(0, 0)) -> None:
        """Count one scene's detections (in the pixels of an image ``factor`` times smaller
        than the scene's and cut from it at ``offset_xy``)."""
        points_xy = cards.centre_xy * factor + np.asarray(offset_xy, np.float32)
        matched, false_pos = match_cards(scene.owner_map, points_xy, len(scene.cards))
        self.exact += len(cards) == len(scene.cards)
        self.matched += int(matched.sum())
        self.false += false_pos
        self.cards += len(scene.cards)
        self.scenes += 1
        self.abs_error += abs(len(cards) - len(scene.cards))

    def score(self) -> ValidationScore:
        return ValidationScore(self.exact / max(1, self.scenes), self.matched / max(1, self.cards),
                               self.matched / max(1, self.matched + self.false),
                               self.abs_error / max(1, self.scenes))


def score_cached(cached: list, settings: DetectorSettings) -> ValidationScore:
    """Score ``cached`` (scene, maps, work_wh, (factor, offset_xy)) tuples, as
    ``CardDetector.processing_maps`` returns them after the scene, under ``settings``."""
    tally = ValidationTally()
    for scene, maps, work_wh, (factor, offset_xy) in cached:
        tally.add(scene, cards_from_maps(maps, work_wh, settings), factor, offset_xy)
    return tally.score()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenes", type=int, default=40)
    parser.add_argument("--model", type=Path, default=None,
                        help="an ONNX file instead of the shipped model")
    parser.add_argument("--card-px", type=float, nargs="+", default=[100.0, 120.0, 150.0],
                        help="processing card lengths to try")
    parser.add_argument("--preset", default="mixed", help="layout of the validation scenes")
    parser.add_argument("--shipped-sizing", action="store_true",
                        help="only the shipped survey sizing (card size over all card pixels)")
    args = parser.parse_args()
    session = model_session(args.model.read_bytes(), args.model.name) if args.model else None
    detector = CardDetector(session)
    options = SceneOptions(preset=args.preset, n_cards=(3, 120), min_strip_px=12.0)
    scenes = [render_scene(validation_seed0(args.preset) + i, options) for i in range(args.scenes)]
    grid_thr = (0.08, 0.12, 0.16, 0.2)
    grid_merge = (0.0, 0.3)
    grid_enclosed = (0.0, 0.6)
    grid_lone = (0.0, 0.15)
    # How the survey reads the card size: (size at centre peaks, second survey at 1280 px).
    grid_sizing = ((False, 0),) if args.shipped_sizing else ((False, 0), (True, 0), (True, 1280))
    results = {}
    for card_px, (at_peaks, fine_px) in itertools.product(args.card_px, grid_sizing):
        detect_module.TARGET_CARD_LONG_PX = card_px
        detect_module.SURVEY_SIZE_AT_PEAKS = at_peaks
        detect_module.FINE_SURVEY_LONG_SIDE_PX = fine_px
        sizing = f"{'peaks' if at_peaks else 'pixels'}{'+fine' if fine_px else ''}"
        cached = [(scene, *detector.processing_maps(scene.image)) for scene in scenes]
        grid = itertools.product(grid_thr, grid_merge, grid_enclosed, grid_lone)
        for thr, merge, enclosed, lone in grid:
            settings = DetectorSettings(centre_threshold=thr, merge_edge_threshold=merge,
                                        max_enclosed_card_fraction=enclosed,
                                        lone_card_size_tolerance=lone)
            score = score_cached(cached, settings)
            results[(card_px, sizing, thr, merge, enclosed, lone)] = (
                score.exact_rate, score.recall, score.precision)
        print(f"card_px {card_px} {sizing} done", file=sys.stderr, flush=True)
    for key, (exact, recall, precision) in sorted(results.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] + kv[1][2]))):
        print(f"card_px={key[0]:.0f} sizing={key[1]} centre={key[2]:.2f} merge={key[3]:.1f} "
              f"enclosed={key[4]:.1f} lone={key[5]:.2f}  exact={exact:.3f} recall={recall:.3f} "
              f"precision={precision:.3f}")


if __name__ == "__main__":
    main()
