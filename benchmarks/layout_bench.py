"""Layout network (version 2) benchmark: edge-vs-print separation, counts, card size.

    python benchmarks/layout_bench.py --model models/card_layout.onnx --scenes 144 --v1 --real \\
        --out docs/bench/layout.json

Rendered test scenes (seeds from 900_000 on, whole photos at 1600x1200; training renders are
256 px crops drawn from other seeds) in six layouts, each on a plain or a hard table, with
procedural designs, one Ligretto-like family, or real back designs of the sets in
../shared/data/backs/TEST.txt (never trained on). Each photo is processed at the scale where a
card's long side is 140 px (``vision.layout.photo``), the card size read from the truth
(``oracle scale``) or by the network's own survey pass (``own scale``). ``--v1`` counts with the
shipped detector beside it, ``--real`` counts the hand-counted real photos.

``--split val --tune`` chooses the decoder's settings (vision.layout.cards.DecodeSettings) on
validation scenes (seeds from 800_000 on). ``--oracle-maps`` replaces the network by a perfect one (maps from the renderer's labels): what
the decoding loses by itself.

Figures per scene kind:
- edge AUC: the edge head's response on true card boundaries against cells inside a card that
  carry strong printed gradients (>= 2 cells from any boundary); ``between`` uses only the
  boundaries where two cards meet (the hard part of a shingled row);
- counts: exact-count share, mean |error|, recall and precision of card centres (a found centre
  within 0.3 of a short side of a true card's centre, one to one);
- card size read / true (median and worst); the share of centre votes within one map cell of
  the true centre (the offset head's precision).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np
from detect_bench import match_cards, real_count_summary, real_photos  # benchmarks/ sibling

from cardtally.models.layout.data import back_design_paths
from cardtally.models.layout.targets import oracle_maps, printed_cells
from cardtally.models.synth.designs import load_design
from cardtally.models.synth.scene import Scene, SceneOptions, render_scene
from cardtally.models.synth.targets import any_at_stride, boundary_map
from cardtally.vision.detect import CardDetector
from cardtally.vision.layout.cards import (
    LONG_OVER_SHORT,
    SHARP_VOTES,
    DecodeSettings,
    card_long_cells,
    read_cards,
)
from cardtally.vision.layout.maps import LAYOUT_STRIDE, LayoutNetwork
from cardtally.vision.layout.photo import PROCESS_CARD_LONG_PX, SURVEY_LONG_PX, find_cards
from cardtally.vision.onnx_session import model_session

TEST_SEED0 = 900_000
#: Decoder settings are chosen on these scenes, never on the test split.
VAL_SEED0 = 800_000
LAYOUTS = ("sorted", "rows", "mixed", "fan", "pile", "spread")
DESIGNS = ("procedural", "family", "real-test")
TABLES = (None, "tablecloth", "knit", "cloth")


def test_scene(index: int, seed0: int = TEST_SEED0) -> tuple[Scene, dict]:
    """The ``index``-th test scene (validation scenes: ``seed0=VAL_SEED0``) and its kind."""
    layout = LAYOUTS[index % len(LAYOUTS)]
    design = DESIGNS[(index // len(LAYOUTS)) % len(DESIGNS)]
    table = TABLES[(index // (len(LAYOUTS) * len(DESIGNS))) % len(TABLES)]
    rng = np.random.default_rng([index, 11])
    n_decks = 4
    designs = None
    if design == "real-test":
        paths = back_design_paths("TEST")
        designs = [load_design(paths[int(i)]) for i in rng.choice(len(paths), n_decks, replace=False)]
    options = SceneOptions(preset=layout, n_decks=n_decks, families=design == "family",
                           designs=designs, n_cards=(10, 60), image_wh=(1600, 1200),
                           table_kind=table)
    scene = render_scene(seed0 + index, options)
    return scene, {"layout": layout, "design": design, "table": table or "random"}


def true_card_long_px(scene: Scene) -> float:
    """Median long side of the scene's card quads (pixels)."""
    quads = np.stack([c.quad_xy for c in scene.cards])
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=-1)
    return float(np.median(sides.max(axis=1)))


def scaled_scene(scene: Scene, scale: float) -> Scene:
    """The scene as a photo resized by ``scale``: image, owner map and card quads."""
    h, w = scene.image.shape[:2]
    size = (max(32, round(w * scale)), max(32, round(h * scale)))
    image = cv2.resize(scene.image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    owner = cv2.resize(scene.owner_map.astype(np.int32), size, interpolation=cv2.INTER_NEAREST)
    sx, sy = size[0] / w, size[1] / h
    cards = tuple(dataclasses.replace(c, quad_xy=(np.asarray(c.quad_xy) * (sx, sy)).astype(np.float32))
                  for c in scene.cards)
    return dataclasses.replace(scene, image=image, owner_map=owner, cards=cards)


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a random positive scores above a random negative (ties count half)."""
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    values = np.concatenate([pos, neg])
    ranks = np.empty(len(values))
    order = np.argsort(values, kind="mergesort")
    ranks[order] = np.arange(1, len(values) + 1)
    # average ranks of ties
    sorted_vals = values[order]
    _, first, counts = np.unique(sorted_vals, return_index=True, return_counts=True)
    for f, c in zip(first[counts > 1], counts[counts > 1], strict=True):
        ranks[order[f:f + c]] = ranks[order[f:f + c]].mean()
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def edge_samples(image: np.ndarray, owner: np.ndarray, edge_prob: np.ndarray
                 ) -> dict[str, np.ndarray]:
    """Edge-head values on true boundaries (all, between cards) and on printed lines."""

    s = LAYOUT_STRIDE
    h, w = edge_prob.shape
    edge_all = any_at_stride(boundary_map(owner), s)[:h, :w]
    edge_between = any_at_stride(boundary_map(owner, cards_only=True), s)[:h, :w]
    printed = printed_cells(image, owner, edge_all, s)
    return {"edge": edge_prob[edge_all], "between": edge_prob[edge_between],
            "print": edge_prob[printed]}


def vote_errors(scene: Scene, maps) -> np.ndarray:
    """Per foreground cell of a card with a usable outline, how far (cells) its centre vote
    lands from the true centre: the offset head's precision."""
    truth = oracle_maps(scene)
    h, w = maps.foreground.shape
    th, tw = truth.foreground.shape
    h, w = min(h, th), min(w, tw)
    cells = (truth.foreground[:h, :w] > 0) & (truth.card_long_cells[:h, :w] > 1.5)
    diff = maps.offset_xy[:, :h, :w] - truth.offset_xy[:, :h, :w]
    return np.hypot(diff[0], diff[1])[cells]


def match_centres(found_xy: np.ndarray, true_xy: np.ndarray, tolerance_px: float) -> int:
    """How many found centres match a true centre within ``tolerance_px``, one to one."""
    if len(found_xy) == 0 or len(true_xy) == 0:
        return 0
    d = np.linalg.norm(found_xy[:, None] - true_xy[None], axis=-1)
    pairs = np.argwhere(d <= tolerance_px)
    pairs = pairs[np.argsort(d[pairs[:, 0], pairs[:, 1]])]
    used_f, used_t = set(), set()
    for f, t in pairs:
        if f not in used_f and t not in used_t:
            used_f.add(int(f))
            used_t.add(int(t))
    return len(used_f)


def run_scene(network: LayoutNetwork | None, scene: Scene, v1=None) -> dict:
    """All figures of one scene; with no network, a perfect network's maps (the decoder's
    ceiling); with ``v1`` (the shipped detector's ``detect``), its count too."""
    true_long = true_card_long_px(scene)
    true_xy = np.array([np.asarray(c.quad_xy).mean(axis=0) for c in scene.cards]).reshape(-1, 2)
    tolerance = 0.3 * true_long / LONG_OVER_SHORT
    out: dict = {"n_true": len(scene.cards)}
    if network is None:
        survey_scale = SURVEY_LONG_PX / max(scene.image.shape[:2])
        survey_long = card_long_cells(oracle_maps(scaled_scene(scene, survey_scale))) \
            * LAYOUT_STRIDE / survey_scale
        runs = {}
        for name, long_px in (("oracle", true_long), ("own", survey_long)):
            scale = PROCESS_CARD_LONG_PX / long_px
            maps = oracle_maps(scaled_scene(scene, scale))
            cards = read_cards(maps, settings=SHARP_VOTES)
            runs[name] = (cards.centre_xy / scale, 0.0, scale, None)
    else:
        runs = {}
        for name, long_px in (("oracle", true_long), ("own", None)):
            t0 = time.perf_counter()
            found = find_cards(network, scene.image, long_px)
            runs[name] = (found.cards.centre_xy, time.perf_counter() - t0, found.scale, found)
        survey_long = runs["own"][3].card_long_px
    out["size_ratio"] = survey_long / true_long
    for name, (centres, seconds, scale, _found) in runs.items():
        out[name] = {"n_found": len(centres), "seconds": seconds, "scale": scale,
                     "matched": match_centres(centres, true_xy, tolerance)}
    oracle_scale = runs["oracle"][2]
    scaled = scaled_scene(scene, oracle_scale)
    maps = runs["oracle"][3].maps if network else oracle_maps(scaled)
    out["edge_samples"] = edge_samples(scaled.image, scaled.owner_map, maps.edge)
    out["vote_error_cells"] = vote_errors(scaled, maps)
    if v1 is not None:
        detections = v1(scene.image)
        out["v1"] = {"n_found": len(detections),
                     "matched": int(match_cards(scene.owner_map, detections.centre_xy,
                                                len(scene.cards))[0].sum())}
    return out


def run_real(network: LayoutNetwork) -> dict:
    """Total counts on the hand-counted real photos (every card, face up or down)."""
    photos = real_photos()
    counts = [len(find_cards(network, image).cards) for _, image in photos]
    return real_count_summary([row for row, _ in photos], counts)


def tune_decoder(network: LayoutNetwork, scenes: list[Scene]) -> list[tuple[dict, dict]]:
    """Counts at the true scale for a grid of decoder settings (the network runs once a scene)."""
    cases = []
    for scene in scenes:
        true_long = true_card_long_px(scene)
        found = find_cards(network, scene.image, true_long)
        true_xy = np.array([np.asarray(c.quad_xy).mean(axis=0) for c in scene.cards])
        cases.append((found, true_xy * found.scale, 0.3 * PROCESS_CARD_LONG_PX / LONG_OVER_SHORT))
    results = []
    for mass, separation, sigma, bins in itertools.product(
            (0.05, 0.1, 0.2), (1.5, 2.5), (0.8, 1.5), (1, 22)):
        settings = DecodeSettings(min_mass_fraction=mass, min_peak_separation_cells=separation,
                                  peak_sigma_cells=sigma, turn_bins=bins,
                                  same_turn_bins=0 if bins == 1 else 1,
                                  assign_turn_bins=0 if bins == 1 else 2)
        n_true = n_found = matched = exact = 0
        for found, true_xy, tolerance in cases:
            cards = read_cards(found.maps, settings=settings)
            n_true += len(true_xy)
            n_found += len(cards)
            matched += match_centres(cards.centre_xy, true_xy, tolerance)
            exact += len(cards) == len(true_xy)
        results.append((dataclasses.asdict(settings), {
            "exact": exact / len(cases), "recall": matched / max(1, n_true),
            "precision": matched / max(1, n_found)}))
    return sorted(results, key=lambda r: (-r[1]["exact"], -r[1]["recall"] - r[1]["precision"]))


def summarise(rows: list[dict]) -> dict:
    """Aggregate figures over scenes."""
    def count_figures(key: str) -> dict:
        if key not in rows[0]:
            return {}
        n_true = np.array([r["n_true"] for r in rows])
        n_found = np.array([r[key]["n_found"] for r in rows])
        matched = np.array([r[key]["matched"] for r in rows])
        return {
            "exact": float(np.mean(n_found == n_true)),
            "mae": float(np.mean(np.abs(n_found - n_true))),
            "recall": float(matched.sum() / max(1, n_true.sum())),
            "precision": float(matched.sum() / max(1, n_found.sum())),
        }
    pooled = defaultdict(list)
    for r in rows:
        for k, v in r["edge_samples"].items():
            pooled[k].append(v)
    pooled_arr = {k: np.concatenate(v) if v else np.zeros(0) for k, v in pooled.items()}
    vote_err = np.concatenate([r["vote_error_cells"] for r in rows])
    ratios = np.array([r["size_ratio"] for r in rows])
    size_err = np.abs(ratios - 1)
    return {
        "scenes": len(rows),
        "edge_auc": auc(pooled_arr["edge"], pooled_arr["print"]),
        "between_auc": auc(pooled_arr["between"], pooled_arr["print"]),
        "oracle_scale": count_figures("oracle"),
        "own_scale": count_figures("own"),
        "v1": count_figures("v1"),
        "vote_error_median_cells": float(np.median(vote_err)) if len(vote_err) else float("nan"),
        "votes_within_1_cell": float(np.mean(vote_err <= 1.0)) if len(vote_err) else float("nan"),
        "size_ratio_median": float(np.median(ratios)),
        "size_ratio_worst": float(ratios[np.argmax(size_err)]),
        "size_within_10pct": float(np.mean(size_err <= 0.10)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=Path("models/card_layout.onnx"))
    parser.add_argument("--scenes", type=int, default=120)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--v1", action="store_true", help="also count with the shipped detector")
    parser.add_argument("--real", action="store_true", help="also count the real photos")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--split", choices=("test", "val"), default="test")
    parser.add_argument("--tune", action="store_true",
                        help="grid over the decoder's settings (use with --split val)")
    parser.add_argument("--oracle-maps", action="store_true",
                        help="a perfect network's maps instead of the model: the decoder's ceiling")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    network = None if args.oracle_maps else LayoutNetwork(
        model_session(args.model.read_bytes(), args.model.name, args.threads))
    seed0 = VAL_SEED0 if args.split == "val" else TEST_SEED0
    if args.tune:
        scenes = [test_scene(i, seed0)[0] for i in range(args.first, args.first + args.scenes)]
        for settings, figures in tune_decoder(network, [s for s in scenes if s.cards])[:15]:
            print(json.dumps(figures), json.dumps(settings))
        return
    v1 = CardDetector().detect if args.v1 else None
    rows = []
    for index in range(args.first, args.first + args.scenes):
        scene, kind = test_scene(index, seed0)
        if not scene.cards:
            continue
        row = run_scene(network, scene, v1)
        row.update(kind)
        rows.append(row)
    groups: dict[str, dict] = {"all": summarise(rows)}
    for field in ("layout", "design", "table"):
        for value in sorted({r[field] for r in rows}):
            groups[f"{field}={value}"] = summarise([r for r in rows if r[field] == value])
    print(f"{'group':<22} {'n':>4} {'edgeAUC':>8} {'betwAUC':>8} {'exact':>6} {'MAE':>6} "
          f"{'recall':>7} {'prec':>6} | {'own exact':>9} {'own MAE':>8} {'size med':>8} {'<=10%':>6}"
          + f" | {'vote<=1':>7}" + (f" | {'v1 exact':>8} {'v1 MAE':>7}" if v1 else ""))
    for name, g in groups.items():
        o, s = g["oracle_scale"], g["own_scale"]
        line = (f"{name:<22} {g['scenes']:>4} {g['edge_auc']:>8.3f} {g['between_auc']:>8.3f} "
                f"{o['exact']:>6.2f} {o['mae']:>6.2f} {o['recall']:>7.3f} {o['precision']:>6.3f} | "
                f"{s['exact']:>9.2f} {s['mae']:>8.2f} {g['size_ratio_median']:>8.2f} "
                f"{g['size_within_10pct']:>6.2f} | {g['votes_within_1_cell']:>7.2f}")
        if v1:
            line += f" | {g['v1']['exact']:>8.2f} {g['v1']['mae']:>7.2f}"
        print(line)
    if args.real and network:
        groups["real_photos"] = run_real(network)
        sure = groups["real_photos"]["sure"]
        print(f"real photos, sure: {sure['photos']} photos, exact {sure['exact_rate']:.2f}, "
              f"MAE {sure['mean_abs_error']:.2f}, worst {sure['max_abs_error']}")
    if args.out:
        for r in rows:
            r.pop("edge_samples")
            r.pop("vote_error_cells")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                        "groups": groups, "scenes": rows}, indent=1))


if __name__ == "__main__":
    main()
