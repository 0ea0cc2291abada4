"""Why cards come out UNKNOWN or on a wrong deck: the detector's outline of each, against the truth.

    python benchmarks/identify_outlines.py --trials 16 [--only "4 procedural"] [--first-trial 48]

Runs identify_bench's scenarios through the shipped detector (calibration as `cardtally
calibrate` does it) and, for every identified backs-up card of a calibrated deck, compares the
detected outline with the rendered card's visible part (``Scene.owner_map``):

- purity: the share of the outline that lies on its own card (the rest spills onto other cards
  or the table);
- coverage: the share of the card's visible part inside this outline;
- split: another detection on the same card (its centre on that card too) holds >= 20% of the
  card's visible part: the detector cut the card in pieces, each identified on its own;
- taken: other cards' detections hold >= 20% of it (their outlines spilled over it).

Prints, per outcome (right, UNKNOWN, wrong deck), how many cards and the medians and shares.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import dataclass

import cv2
import numpy as np
from identify_bench import SCENARIOS, Tally, TrialPhoto, run_trial

from cardtally.models.synth.photo import Lighting
from cardtally.vision.detections import UNKNOWN, CardDetections
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.identify import IdentifySettings

#: A share of a card's visible part at least this large held elsewhere counts as split / taken.
HELD_SHARE = 0.2


@dataclass(frozen=True)
class OutlineRecord:
    """One identified card's outcome and how its outline fits its card."""

    outcome: str
    purity: float
    coverage: float
    split: bool
    taken: bool


def polygon_mask(shape: tuple[int, int], polygon_xy: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(polygon_xy).astype(np.int32)], 1)
    return mask.astype(bool)


def outline_records(owner_map: np.ndarray, all_detections: tuple[CardDetections, np.ndarray],
                    detections: CardDetections, cards: np.ndarray, got: np.ndarray,
                    want: np.ndarray) -> list[OutlineRecord]:
    """The records of one game photo's identified backs-up cards of calibrated decks."""
    every, every_card = all_detections
    masks = [polygon_mask(owner_map.shape, p) for p in every.visible_polygons_xy]
    records = []
    for i in np.flatnonzero(want >= 0):
        card = int(cards[i])
        own = polygon_mask(owner_map.shape, detections.visible_polygons_xy[i])
        region = owner_map == card
        inside = owner_map[own]
        # Pieces of the same card: detections whose centre lies on it, other than this one.
        pieces = [m for m, c in zip(masks, every_card, strict=True) if c == card and not np.array_equal(m, own)]
        others = [m for m, c in zip(masks, every_card, strict=True) if c != card]
        held_by_pieces = np.logical_or.reduce(pieces)[region].mean() if pieces else 0.0
        held_by_others = np.logical_or.reduce(others)[region].mean() if others else 0.0
        outcome = "right" if got[i] == want[i] else "UNKNOWN" if got[i] == UNKNOWN else "wrong deck"
        records.append(OutlineRecord(
            outcome=outcome,
            purity=float(np.mean(inside == card)) if len(inside) else 0.0,
            coverage=float(own[region].mean()) if region.any() else 0.0,
            split=bool(held_by_pieces >= HELD_SHARE),
            taken=bool(held_by_others >= HELD_SHARE),
        ))
    return records


def summary(records: list[OutlineRecord]) -> str:
    """A markdown table: per outcome, the cards and how their outlines fit."""
    by_outcome: dict[str, list[OutlineRecord]] = defaultdict(list)
    for record in records:
        by_outcome[record.outcome].append(record)
    lines = ["| outcome | cards | purity: median / share < 0.8 | coverage: median / share < 0.6 "
             "| split in pieces | taken by other cards' outlines |", "|---|---|---|---|---|---|"]
    for outcome in ("right", "UNKNOWN", "wrong deck"):
        rows = by_outcome.get(outcome, [])
        if not rows:
            continue
        purity = np.array([r.purity for r in rows])
        coverage = np.array([r.coverage for r in rows])
        lines.append(
            f"| {outcome} | {len(rows)} | {np.median(purity):.2f} / {np.mean(purity < 0.8):.0%} "
            f"| {np.median(coverage):.2f} / {np.mean(coverage < 0.6):.0%} "
            f"| {np.mean([r.split for r in rows]):.0%} | {np.mean([r.taken for r in rows]):.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=16, help="scenes per scenario")
    parser.add_argument("--first-trial", type=int, default=0)
    parser.add_argument("--only", default="", help="run scenarios whose name contains this")
    args = parser.parse_args()
    embedder = BackEmbedder()
    records: list[OutlineRecord] = []

    def observe(photo: TrialPhoto) -> None:
        records.extend(outline_records(
            photo.scene.owner_map, (photo.all_detections, photo.all_matched), photo.detections,
            photo.matched, photo.got, photo.want))

    for name, (kind, n, uncal, face_up) in SCENARIOS.items():
        if args.only and args.only not in name:
            continue
        for trial in range(args.first_trial, args.first_trial + args.trials):
            run_trial(Tally(), trial, kind, n, uncal, face_up, embedder, "real",
                      Lighting().white_balance, settings=IdentifySettings(), observe=observe)
    scenes = f"scenes {args.first_trial}-{args.first_trial + args.trials - 1}"
    print(f"{args.only or 'every scenario'}, {scenes}, through the detector\n")
    print(summary(records))


if __name__ == "__main__":
    main()
