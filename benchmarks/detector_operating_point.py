"""Compare the detector's survey sizing and processing scale on fresh validation scenes.

    python benchmarks/detector_operating_point.py --set mixed --scenes 60
    python benchmarks/detector_operating_point.py --set big-rows --scenes 16

Each operating point (``SurveyPoint``) is how the survey reads the card size (over all card
pixels, or at its centre peaks; optionally a second survey at 1280 px for large photos, whose
reading, taken at its peaks, replaces the first under the checks of
``CardDetector._checked_by_fine_survey``) and the card length the photo is processed at; on each
point's maps, the centre threshold and the lone-card rule (docs/BENCHMARKS.md) are varied. Sets
(none meets the test split, seeds 900,000+, or the 30 tuning scenes of tune_detector.py):

- ``mixed``: mixed layouts, random photo sizes, seeds 800,050+ (``mixed-2``: 800,110+,
  ``mixed-3``: 800,210+);
- ``fan``, ``pile``, ``spread``, ``rows``: one layout, seeds 810,020+;
- ``big-rows``: 100 cards in shingled rows on 4032x3024 photos (as a phone sees a round's
  centre), seeds 820,000+;
- ``knit``: mixed layouts on a chunky knit blanket, seeds 830,000+; ``knit-close``: 640x640
  close-ups of 3-12 mostly face-up cards on one, like the real blanket photos, seeds 840,000+;
  ``pale-close``: the same close-ups of ordinary white fronts on laminate (half of its tones
  white or pale grey), like the real desk photos, seeds 850,000+.

Prints recall, precision, their harmonic mean (F1), the exact-count rate and the mean absolute
count error per point, and each scene where a point finds fewer than half of the cards.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

import cardtally.vision.detect as detect_module
from cardtally.models.synth.scene import SceneOptions, render_scene
from cardtally.vision.detect import CardDetector, survey_detector
from cardtally.vision.onnx_session import model_session
from cardtally.vision.watershed_cards import DetectorSettings, cards_from_maps

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import match_cards  # noqa: E402


@dataclass(frozen=True)
class SurveyPoint:
    """How the survey reads the card size (``vision/detect.py``'s constants of those names)."""

    # Defaults: the shipped values (read before any point is applied).
    size_at_peaks: bool = detect_module.SURVEY_SIZE_AT_PEAKS  # first survey: peaks, not all pixels
    fine_long_side_px: int = detect_module.FINE_SURVEY_LONG_SIDE_PX  # 0: no fine survey
    fine_max_ratio: float = detect_module.FINE_SURVEY_MAX_RATIO
    fine_max_card_px: float = detect_module.FINE_SURVEY_MAX_CARD_PX
    fine_reading_scale: float = detect_module.FINE_SURVEY_READING_SCALE
    fine_max_peak_ratio: float = detect_module.FINE_SURVEY_MAX_PEAK_RATIO
    fine_min_photo_px: int = detect_module.FINE_SURVEY_MIN_PHOTO_PX
    card_long_px: float = detect_module.TARGET_CARD_LONG_PX  # the card length processed at


#: Every map-to-cards setting below is tried on each point's maps.
POINTS = {
    "one survey (session 9)": SurveyPoint(fine_long_side_px=0),
    "guarded fine survey": SurveyPoint(),
    "guarded fine survey from 1920 px": SurveyPoint(fine_min_photo_px=1920),
    "guarded, first version": SurveyPoint(fine_reading_scale=1.0, fine_max_peak_ratio=1e9),
    "peaks + smaller of two, 100 px": SurveyPoint(True, fine_max_ratio=1.0, fine_max_card_px=1e9,
                                                  fine_reading_scale=1.0, fine_max_peak_ratio=1e9,
                                                  card_long_px=100.0),
    "peaks + smaller of two, 110 px": SurveyPoint(True, fine_max_ratio=1.0, fine_max_card_px=1e9,
                                                  fine_reading_scale=1.0, fine_max_peak_ratio=1e9,
                                                  card_long_px=110.0),
}
# The rows before session 17 keep their meaning: no small-part rule.
_NO_SMALL = {"small_part_max_width_share": 0.0}
_NO_SPREAD = {"spread_centre_threshold": 0.0, **_NO_SMALL}
SETTINGS = {
    "centre 0.16, lone cards off (session 11)":
        DetectorSettings(centre_threshold=0.16, lone_card_size_tolerance=0.0, **_NO_SPREAD),
    "centre 0.20, lone cards off":
        DetectorSettings(centre_threshold=0.20, lone_card_size_tolerance=0.0, **_NO_SPREAD),
    "centre 0.16, lone cards 0.15 without the edge check":
        DetectorSettings(centre_threshold=0.16, lone_card_max_boundary_edge=1.0, **_NO_SPREAD),
    "centre 0.16, lone cards 0.15 with the edge check 0.45":
        DetectorSettings(centre_threshold=0.16, **_NO_SPREAD),
    "the above, spread layouts at centre 0.20 however many cards that drops":
        DetectorSettings(spread_min_kept=0.0, **_NO_SMALL),
    "session 12: the above, if it keeps 80% of the cards": DetectorSettings(**_NO_SMALL),
    "the above, clusters of parts under 0.5 card widths dropped, touching or not":
        DetectorSettings(small_part_max_width_share=0.5, small_part_sparing_widths=float("inf")),
    "the above, spared when touching a part over 0.5 card widths":
        DetectorSettings(small_part_max_width_share=0.5, small_part_sparing_widths=0.5),
    "the above, spared when touching a part over 1.2 card widths":
        DetectorSettings(small_part_max_width_share=0.5),
    "the above at parts under 0.6 card widths":
        DetectorSettings(small_part_max_width_share=0.6),
    "shipped: the above at parts under 0.4 card widths (session 17)": DetectorSettings(),
    "the shipped settings, centre map smoothed (sigma 0.7 output px; session 19)":
        DetectorSettings(centre_blur_px=0.7),
}


def scene_set(name: str, n_scenes: int) -> tuple[SceneOptions, range]:
    """The options and seeds of a named validation set."""
    if name in ("mixed", "mixed-2", "mixed-3"):
        seed0 = {"mixed": 800_050, "mixed-2": 800_110, "mixed-3": 800_210}[name]
        return SceneOptions(preset="mixed", n_cards=(3, 120), min_strip_px=12.0), range(seed0, seed0 + n_scenes)
    if name in ("fan", "pile", "spread", "rows"):
        return SceneOptions(preset=name, n_cards=(3, 120), min_strip_px=12.0), range(810_020, 810_020 + n_scenes)
    if name == "knit":  # mixed layouts on a chunky knit blanket (the renderer's opt-in table)
        options = SceneOptions(preset="mixed", n_cards=(3, 120), min_strip_px=12.0, table_kind="knit")
        return options, range(830_000, 830_000 + n_scenes)
    if name == "knit-close":  # like the real blanket photos: 640x640, large, mostly face-up cards
        options = SceneOptions(preset="mixed", n_cards=(3, 12), image_wh=(640, 640),
                               card_px=(150.0, 260.0), table_kind="knit", face_up_fraction=0.9,
                               court_style="figure", min_strip_px=12.0)
        return options, range(840_000, 840_000 + n_scenes)
    if name == "pale-close":  # like the real desk photos: white fronts, mostly on pale laminate
        options = SceneOptions(preset="mixed", n_cards=(3, 12), image_wh=(640, 640),
                               card_px=(150.0, 260.0), table_kind="laminate", face_up_fraction=0.9,
                               ordinary_front_share=1.0, court_style="figure", min_strip_px=12.0)
        return options, range(850_000, 850_000 + n_scenes)
    if name == "big-rows":
        options = SceneOptions(preset="rows", n_decks=4, n_cards=(100, 100), image_wh=(4032, 3024),
                               face_up_fraction=0.0, min_strip_px=16.0)
        return options, range(820_000, 820_000 + n_scenes)
    raise SystemExit(f"unknown set {name!r}")


def use_point(point: SurveyPoint) -> None:
    """Set the detector module's survey sizing and processing card length."""
    detect_module.SURVEY_SIZE_AT_PEAKS = point.size_at_peaks
    detect_module.FINE_SURVEY_LONG_SIDE_PX = point.fine_long_side_px
    detect_module.FINE_SURVEY_MAX_RATIO = point.fine_max_ratio
    detect_module.FINE_SURVEY_MAX_CARD_PX = point.fine_max_card_px
    detect_module.FINE_SURVEY_READING_SCALE = point.fine_reading_scale
    detect_module.FINE_SURVEY_MAX_PEAK_RATIO = point.fine_max_peak_ratio
    detect_module.FINE_SURVEY_MIN_PHOTO_PX = point.fine_min_photo_px
    detect_module.TARGET_CARD_LONG_PX = point.card_long_px


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="mixed",
                        choices=("mixed", "mixed-2", "mixed-3", "fan", "pile", "spread", "rows", "big-rows",
                                 "knit", "knit-close", "pale-close"))
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--point", action="append", choices=tuple(POINTS),
                        help="only this operating point (repeatable; default: all)")
    parser.add_argument("--model", type=Path, default=None,
                        help="a detector ONNX file instead of the shipped model")
    parser.add_argument("--survey-model", type=Path, default=None,
                        help="run the survey passes with this ONNX file (\"shipped\": the shipped "
                             "survey model) and the processing pass with --model (without it, "
                             "--model surveys for itself)")
    parser.add_argument("--card-px", type=float, nargs="+", default=None,
                        help="run each chosen point at these processing card lengths instead")
    args = parser.parse_args()
    points = {name: POINTS[name] for name in args.point or POINTS}
    if args.card_px:
        points = {f"{name}, {card_px:.0f} px": replace(point, card_long_px=card_px)
                  for name, point in points.items() for card_px in args.card_px}
    options, seeds = scene_set(args.set, args.scenes)
    surveyor = None
    if args.survey_model:
        shipped = str(args.survey_model) == "shipped"
        surveyor = survey_detector() if shipped else CardDetector(
            model_session(args.survey_model.read_bytes(), args.survey_model.name))
    detector = CardDetector(model_session(args.model.read_bytes(), args.model.name) if args.model else None,
                            surveyor)
    # (point, setting) -> [matched, true cards, false detections, detections, exact scenes,
    # sum |error|]
    totals: dict[tuple[str, str], np.ndarray] = {}
    for seed in seeds:
        scene = render_scene(seed, options)
        n_cards = len(scene.cards)
        for name, point in points.items():
            use_point(point)
            maps, work_wh, (factor, offset_xy) = detector.processing_maps(scene.image)
            for setting, settings in SETTINGS.items():
                cards = cards_from_maps(maps, work_wh, settings)
                points_xy = cards.centre_xy * factor + np.asarray(offset_xy, np.float32)
                matched, false_pos = match_cards(scene.owner_map, points_xy, n_cards)
                error = len(cards) - n_cards
                row = totals.setdefault((name, setting), np.zeros(6))
                row += [matched.sum(), n_cards, false_pos, len(cards), error == 0, abs(error)]
                if matched.mean() < 0.5:
                    print(f"seed {seed}: {name}, {setting} finds "
                          f"{int(matched.sum())} of {n_cards} cards", flush=True)
    print(f"\n{args.set}: {len(seeds)} scenes, seeds {seeds.start}-{seeds.stop - 1}\n")
    print("| point | settings | recall | precision | F1 | exact | MAE |\n|---|---|---|---|---|---|---|")
    for (name, setting), (hit, n, false, found, exact, abs_error) in totals.items():
        print(f"| {name} | {setting} | {hit / n:.1%} | {1 - false / max(1, found):.1%} "
              f"| {2 * hit / (n + found):.3f} | {exact / len(seeds):.1%} | {abs_error / len(seeds):.2f} |")


if __name__ == "__main__":
    main()
