"""Layout network (version 2) benchmark: edge-vs-print separation, counts, card size.

    python benchmarks/layout_bench.py --model models/card_layout.onnx --scenes 120 \\
        --out docs/bench/layout.json

Rendered test scenes (seeds from 900_000 on, whole photos at 1600x1200; training renders are
256 px crops drawn from other seeds) in six layouts, each on a plain or a hard table, with
procedural designs, one Ligretto-like family, or real back designs of the sets in
../shared/data/backs/TEST.txt (never trained on). Each photo is processed at the scale where a
card's long side is ``--card-px`` pixels: read from the truth (``oracle scale``) and from the
network's own size reading on a first pass (``own scale``).

``--oracle-maps`` replaces the network by a perfect one (maps from the renderer's labels): what
the decoding loses by itself.

Figures per scene kind:
- edge AUC: the edge head's response on true card boundaries against cells inside a card that
  carry strong printed gradients (>= 2 cells from any boundary); ``between`` uses only the
  boundaries where two cards meet (the hard part of a shingled row);
- counts: exact-count share, mean |error|, recall and precision of card centres (a found centre
  within 0.3 of a short side of a true card's centre, one to one);
- card size read / true (median and worst).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.layout.data import back_design_paths
from cardtally.models.layout.targets import oracle_maps
from cardtally.models.synth.designs import load_design
from cardtally.models.synth.scene import Scene, SceneOptions, render_scene
from cardtally.vision.layout.cards import CARD_ASPECT, card_long_cells, read_cards
from cardtally.vision.layout.maps import LAYOUT_STRIDE, LayoutNetwork
from cardtally.vision.onnx_session import model_session

TEST_SEED0 = 900_000
LAYOUTS = ("sorted", "rows", "mixed", "fan", "pile", "spread")
DESIGNS = ("procedural", "family", "real-test")
TABLES = (None, "tablecloth", "knit", "cloth")
#: A first pass reads the card size from the photo at this long side (pixels).
SURVEY_LONG_PX = 1024
PRINT_GRADIENT = 60.0  # Sobel magnitude (grey levels / px) that counts as a printed line


def test_scene(index: int) -> tuple[Scene, dict]:
    """The ``index``-th test scene and what kind it is."""
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
    scene = render_scene(TEST_SEED0 + index, options)
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
    from cardtally.models.synth.targets import any_at_stride, boundary_map

    s = LAYOUT_STRIDE
    h, w = edge_prob.shape
    edge_all = any_at_stride(boundary_map(owner), s)[:h, :w]
    edge_between = any_at_stride(boundary_map(owner, cards_only=True), s)[:h, :w]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    grad = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    grad_cells = grad[: h * s, : w * s].reshape(h, s, w, s).max(axis=(1, 3))
    on_card = (owner[: h * s, : w * s].reshape(h, s, w, s) >= 0).all(axis=(1, 3))
    near_edge = cv2.dilate(edge_all.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    printed = on_card & ~near_edge & (grad_cells >= PRINT_GRADIENT)
    return {"edge": edge_prob[edge_all], "between": edge_prob[edge_between],
            "print": edge_prob[printed]}


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


def run_scene(network: LayoutNetwork | None, scene: Scene, card_px: float) -> dict:
    """All figures of one scene; with no network, a perfect network's maps (the decoder's
    ceiling)."""
    read = network.read if network else None
    true_long = true_card_long_px(scene)
    survey_scale = SURVEY_LONG_PX / max(scene.image.shape[:2])
    survey_scene = scaled_scene(scene, survey_scale)
    survey = read(survey_scene.image) if read else oracle_maps(survey_scene)
    survey_long = card_long_cells(survey) * LAYOUT_STRIDE / survey_scale
    out: dict = {"n_true": len(scene.cards), "size_ratio": survey_long / true_long}
    for name, long_px in (("oracle", true_long), ("own", survey_long)):
        scale = card_px / long_px if long_px > 0 else survey_scale
        scaled = scaled_scene(scene, scale)
        image, owner = scaled.image, scaled.owner_map
        t0 = time.perf_counter()
        maps = read(image) if read else oracle_maps(scaled)
        cards = read_cards(maps)
        seconds = time.perf_counter() - t0
        true_xy = np.array([np.asarray(c.quad_xy).mean(axis=0) for c in scaled.cards]).reshape(-1, 2)
        short_px = card_px / CARD_ASPECT
        matched = match_centres(cards.centre_xy, true_xy, 0.3 * short_px)
        out[name] = {"n_found": len(cards), "matched": matched, "seconds": seconds,
                     "image_wh": [image.shape[1], image.shape[0]]}
        if name == "oracle":
            out["edge_samples"] = edge_samples(image, owner, maps.edge)
    return out


def summarise(rows: list[dict]) -> dict:
    """Aggregate figures over scenes."""
    def count_figures(key: str) -> dict:
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
    ratios = np.array([r["size_ratio"] for r in rows])
    size_err = np.abs(ratios - 1)
    return {
        "scenes": len(rows),
        "edge_auc": auc(pooled_arr["edge"], pooled_arr["print"]),
        "between_auc": auc(pooled_arr["between"], pooled_arr["print"]),
        "oracle_scale": count_figures("oracle"),
        "own_scale": count_figures("own"),
        "size_ratio_median": float(np.median(ratios)),
        "size_ratio_worst": float(ratios[np.argmax(size_err)]),
        "size_within_10pct": float(np.mean(size_err <= 0.10)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=Path("models/card_layout.onnx"))
    parser.add_argument("--scenes", type=int, default=120)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--card-px", type=float, default=140.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--oracle-maps", action="store_true",
                        help="a perfect network's maps instead of the model: the decoder's ceiling")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    network = None if args.oracle_maps else LayoutNetwork(
        model_session(args.model.read_bytes(), args.model.name, args.threads))
    rows = []
    for index in range(args.first, args.first + args.scenes):
        scene, kind = test_scene(index)
        if not scene.cards:
            continue
        row = run_scene(network, scene, args.card_px)
        row.update(kind)
        rows.append(row)
    groups: dict[str, dict] = {"all": summarise(rows)}
    for field in ("layout", "design", "table"):
        for value in sorted({r[field] for r in rows}):
            groups[f"{field}={value}"] = summarise([r for r in rows if r[field] == value])
    print(f"{'group':<22} {'n':>4} {'edgeAUC':>8} {'betwAUC':>8} {'exact':>6} {'MAE':>6} "
          f"{'recall':>7} {'prec':>6} | {'own exact':>9} {'own MAE':>8} {'size med':>8} {'<=10%':>6}")
    for name, g in groups.items():
        o, s = g["oracle_scale"], g["own_scale"]
        print(f"{name:<22} {g['scenes']:>4} {g['edge_auc']:>8.3f} {g['between_auc']:>8.3f} "
              f"{o['exact']:>6.2f} {o['mae']:>6.2f} {o['recall']:>7.3f} {o['precision']:>6.3f} | "
              f"{s['exact']:>9.2f} {s['mae']:>8.2f} {g['size_ratio_median']:>8.2f} "
              f"{g['size_within_10pct']:>6.2f}")
    if args.out:
        for r in rows:
            r.pop("edge_samples")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                        "groups": groups, "scenes": rows}, indent=1))


if __name__ == "__main__":
    main()
