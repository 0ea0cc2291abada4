"""The fit stage on rows of sorted photos: does the row program count each row and name its deck?

    python benchmarks/fit_bench.py --scenes 30 --edges none,oracle,model \\
        --model runs/layout/a3.onnx --out docs/bench/fit_rows.json

Scenes: the renderer's ``sorted`` preset (2-6 rows a photo, 3-40 cards a row, every row one
deck), seeds 900_000 + i (``--split val``: 800_000 + i, where settings are tuned), the back
designs cycling procedural / one family of four / real designs of ../shared/data/backs/TEST.txt.
The geometry is the renderer's true card outlines (the layout stage is measured on its own by
layout_bench.py): each row that lies wholly inside the photo and has no card hidden below the
12 px strip limit is rectified into a band and fitted. The calibrated backs are the designs the
scene was rendered from (``CalibratedBack`` at the card frame), so this measures the program and
its edge cue, not calibration.

Edge cues, each fitted on the same bands: ``none`` (appearance alone), ``oracle`` (the true
owner map's card boundaries: the ceiling a perfect edge head would give) and ``model`` (the
layout network's edge head, read along the band).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.layout.data import back_design_paths
from cardtally.models.synth.designs import load_design
from cardtally.models.synth.scene import Scene, SceneOptions, render_scene
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.fit.backs import CalibratedBack
from cardtally.vision.fit.band import EDGE_TRIM, RowBand, row_band
from cardtally.vision.fit.face_up import mark_face_up
from cardtally.vision.fit.photo import edge_across, fit_regions
from cardtally.vision.fit.rows import RowFitSettings, fit_row
from cardtally.vision.fit.siblings import SiblingWindows, decide_siblings
from cardtally.vision.layout.maps import LayoutNetwork
from cardtally.vision.layout.photo import find_cards
from cardtally.vision.onnx_session import model_session
from cardtally.vision.rectify import CARD_FRAME_WH

TEST_SEED0 = 900_000
VAL_SEED0 = 800_000
DESIGNS = ("procedural", "family", "real-test")


def sorted_scene(index: int, seed0: int) -> tuple[Scene, str]:
    """The ``index``-th sorted photo of the split and its design kind."""
    design = DESIGNS[index % len(DESIGNS)]
    rng = np.random.default_rng([index, 17])
    designs = None
    if design == "real-test":
        paths = back_design_paths("TEST")
        designs = [load_design(paths[int(i)]) for i in rng.choice(len(paths), 4, replace=False)]
    options = SceneOptions(preset="sorted", n_decks=4, families=design == "family",
                           designs=designs)
    return render_scene(seed0 + index, options), design


def true_rows(scene: Scene) -> tuple[list[tuple[list[int], list[np.ndarray], list[int]]], int]:
    """Rows fit to measure (deck ids, quads and card ids in order along the row) and how many
    rows were left out (partly outside the photo, or a card hidden below the strip limit)."""
    groups: dict[int, list] = defaultdict(list)
    for card in scene.cards:
        if scene.params["group_kind"][card.card_id] == "rows":
            groups[scene.params["group_of_card"][card.card_id]].append(card)
    placed = np.bincount(np.asarray(scene.params["group_of_card"]))
    height, width = scene.image.shape[:2]
    rows, left_out = [], 0
    for group, cards in groups.items():
        quads = [np.asarray(c.quad_xy, np.float64) for c in cards]
        inside = all((q >= 0).all() and (q[:, 0] < width).all() and (q[:, 1] < height).all()
                     for q in quads)
        if not inside or len(cards) != placed[group]:
            left_out += 1
            continue
        centres = np.array([q.mean(axis=0) for q in quads])
        if len(cards) >= 2:
            axis = np.linalg.svd(centres - centres.mean(axis=0))[2][0]
            order = np.argsort((centres - centres.mean(axis=0)) @ axis)
        else:
            order = np.zeros(1, np.int64)
        rows.append(([cards[i].deck_id for i in order], [quads[i] for i in order],
                     [cards[i].card_id for i in order]))
    return rows, left_out


def oracle_edge(scene: Scene, band: RowBand) -> np.ndarray:
    """Share of band rows where the true owner changes to a card between column x - 1 and x
    (spread over two columns: an edge rarely falls on one)."""
    owner = cv2.remap(scene.owner_map.astype(np.float32), band.map_xy, None, cv2.INTER_NEAREST,
                      borderValue=-1)
    trim = int(owner.shape[0] * EDGE_TRIM)
    mid = owner[trim: owner.shape[0] - trim]
    edge = np.zeros(owner.shape[1])
    edge[1:] = ((mid[:, 1:] != mid[:, :-1]) & (mid[:, 1:] >= 0)).mean(axis=0)
    edge[1:] = np.minimum(1.0, edge[1:] + edge[:-1])
    return edge


def scene_backs(scene: Scene) -> list[CalibratedBack]:
    """The scene's own designs as calibrated backs (no spread known: zeros)."""
    width, height = CARD_FRAME_WH
    return [CalibratedBack(name, cv2.resize(design, (width, height), interpolation=cv2.INTER_AREA),
                           np.zeros((height, width), np.float32))
            for name, design in zip(scene.deck_names, scene.deck_designs, strict=True)]


def photo_counts(scene: Scene, network: LayoutNetwork, settings: RowFitSettings,
                 embedder: BackEmbedder | None) -> tuple[Counter, float]:
    """Cards per deck name ("" for no known deck) through the whole chain (``fit_regions`` on
    the layout network's maps: a sorted photo holds only rows, each its own region) and the
    seconds the bands and fits took."""
    layout = find_cards(network, scene.image)
    started = time.perf_counter()
    fitted = fit_regions(scene.image, layout, scene_backs(scene), settings, embedder)
    return fitted.counts(), time.perf_counter() - started


def layout_chain(args: argparse.Namespace, network: LayoutNetwork, seed0: int) -> dict:
    """Photo-level figures of the whole chain (layout network -> groups -> row fit)."""
    settings = RowFitSettings(card_cost=args.card_cost, edge_weight=args.edge_weight,
                              edge_level=args.edge_level,
                              unknown_cost=args.unknown_cost)
    tallies: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    embedder = None if args.no_face_up else BackEmbedder()
    for index in range(args.first, args.first + args.scenes):
        scene, design = sorted_scene(index, seed0)
        truth = Counter(card.deck_name for card in scene.cards)
        counts, seconds = photo_counts(scene, network, settings, embedder)
        off = sum(abs(counts[name] - truth[name]) for name in set(counts) | set(truth))
        for key in ("all", design):
            tally = tallies[key]
            tally["photos"] += 1
            tally["total_exact"] += sum(counts.values()) == sum(truth.values())
            tally["deck_exact"] += off == 0
            tally["cards_off"] += off
            tally["total_off"] += abs(sum(counts.values()) - sum(truth.values()))
            tally["cards"] += sum(truth.values())
            tally["seconds"] += seconds
        if args.verbose:
            print(index, design, dict(truth), dict(counts))
    return {f"layout-chain/{key}": {
        "photos": int(t["photos"]), "total_exact": round(t["total_exact"] / t["photos"], 3),
        "deck_exact": round(t["deck_exact"] / t["photos"], 3),
        "cards_off_per_photo": round(t["cards_off"] / t["photos"], 2),
        "total_off_per_photo": round(t["total_off"] / t["photos"], 2),
        "cards_per_photo": round(t["cards"] / t["photos"], 1),
        "fit_seconds_per_photo": round(t["seconds"] / t["photos"], 2)}
        for key, t in sorted(tallies.items())}


def markdown(record: dict) -> str:
    """The record's figures as a Markdown table (the form docs/BENCHMARKS.md shows)."""
    rows = list(record["figures"].items())
    keys = [k for k in rows[0][1] if k != "rows" and k != "photos"]
    for _, figures in rows[1:]:
        keys += [k for k in figures if k not in keys and k not in ("rows", "photos")]
    count_key = "rows" if "rows" in rows[0][1] else "photos"
    lines = ["| cue / designs | " + count_key + " | " + " | ".join(keys) + " |",
             "|---" * (len(keys) + 2) + "|"]
    for name, figures in rows:
        cells = [str(figures.get(k, 0)) for k in keys]
        lines.append(f"| {name} | {figures[count_key]} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--split", choices=("test", "val"), default="test")
    parser.add_argument("--edges", default="none,oracle,model")
    parser.add_argument("--model", type=Path, default=Path("runs/layout/a3.onnx"))
    parser.add_argument("--card-cost", type=float, default=RowFitSettings.card_cost)
    parser.add_argument("--edge-weight", type=float, default=RowFitSettings.edge_weight)
    parser.add_argument("--edge-level", type=float, default=RowFitSettings.edge_level)
    parser.add_argument("--unknown-cost", type=float, default=RowFitSettings.unknown_cost)
    parser.add_argument("--geometry", choices=("true", "layout"), default="true",
                        help="rows from the renderer's outlines, or the whole chain from the "
                             "layout network's cards and groups (photo-level counts)")
    parser.add_argument("--no-face-up", action="store_true",
                        help="leave out the face-up test (the embedder's head on each strip)")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--markdown", type=Path, metavar="RECORD",
                        help="print a run record's figures as the docs' table, and stop")
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())))
        return
    edges = args.edges.split(",")
    network = (LayoutNetwork(model_session(args.model.read_bytes(), args.model.name, 2))
               if "model" in edges else None)
    seed0 = VAL_SEED0 if args.split == "val" else TEST_SEED0
    if args.geometry == "layout":
        if network is None:
            parser.error("--geometry layout needs the model edge cue (--edges model)")
        report(args, {"figures": layout_chain(args, network, seed0)})
        return
    tallies: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    left_out_rows = 0
    embedder = None if args.no_face_up else BackEmbedder()
    for index in range(args.first, args.first + args.scenes):
        scene, design = sorted_scene(index, seed0)
        rows, left_out = true_rows(scene)
        left_out_rows += left_out
        backs = scene_backs(scene)
        windows = SiblingWindows(backs)
        layout = find_cards(network, scene.image) if network is not None else None
        for deck_ids, quads, _card_ids in rows:
            band = row_band(scene.image, quads)
            truth = [scene.deck_names[d] if d >= 0 else "" for d in deck_ids]
            for edge_kind in edges:
                edge = (None if edge_kind == "none" else oracle_edge(scene, band)
                        if edge_kind == "oracle" else edge_across(layout, band))
                settings = RowFitSettings(card_cost=args.card_cost, edge_weight=args.edge_weight,
                                          edge_level=args.edge_level,
                                          unknown_cost=args.unknown_cost)
                started = time.perf_counter()
                fit = decide_siblings(band, fit_row(band, backs, edge, settings), backs,
                                      windows=windows)
                if embedder is not None:
                    fit = mark_face_up(band, fit, embedder)
                seconds = time.perf_counter() - started
                names = [s.deck_name for s in fit.strips][::-1 if fit.reversed else 1]
                exact = fit.count == len(quads)
                right = sum(t == n for t, n in zip(truth, names, strict=False)) if exact else 0
                strip_kinds = Counter()
                if exact:
                    for t, n in zip(truth, names, strict=True):
                        strip_kinds["right" if t == n else "back_unknown" if t and not n
                                    else "face_up_named" if not t else "wrong_deck"] += 1
                for key in ((edge_kind, "all"), (edge_kind, design)):
                    tally = tallies[key]
                    for kind, n in strip_kinds.items():
                        tally["strips_" + kind] += n
                    tally["rows"] += 1
                    tally["exact"] += exact
                    tally["deck_exact"] += exact and right == len(truth)
                    tally["abs_error"] += abs(fit.count - len(quads))
                    tally["seconds"] += seconds
                if args.verbose:
                    print(index, design, edge_kind, len(quads), fit.count,
                          "rev" if fit.reversed else "fwd", f"{fit.count_margin:.2f}")
    figures = {f"{edge}/{design}": {
        "rows": int(t["rows"]), "rows_exact": round(t["exact"] / t["rows"], 3),
        "rows_deck_exact": round(t["deck_exact"] / t["rows"], 3),
        "mean_abs_count_error": round(t["abs_error"] / t["rows"], 2),
        # strips of exactly counted rows: right, on a wrong deck, a back left unknown, a face-up
        # card given a deck
        **{k: int(v) for k, v in t.items() if k.startswith("strips_")},
        "fit_seconds_per_row": round(t["seconds"] / t["rows"], 3)}
        for (edge, design), t in sorted(tallies.items())}
    report(args, {"rows_left_out": left_out_rows, "figures": figures})


def report(args: argparse.Namespace, results: dict) -> None:
    """Print the run record (with the command that made it) and write it to ``--out``."""
    record = {"command": "python benchmarks/fit_bench.py " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()
        if v not in (None, False) and k != "out"), **results}
    print(json.dumps(record, indent=1))
    if args.out:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
