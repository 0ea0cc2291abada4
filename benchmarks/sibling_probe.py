"""Can the embedder tell Ligretto-style siblings apart? Nearest-neighbour accuracy among a family.

    python benchmarks/sibling_probe.py [MODEL.onnx]     # default: the shipped embedder

24 families of 4 siblings (same base design and colour, another symbol; ``design_family``), 8
training-style views of each sibling (``models/embedder/views.py``: cards on top, the camera,
the detector's outline errors). For each view, is its nearest other view (runtime descriptor,
``vision.embed``) among its family's 32 a view of the same sibling? Chance is about 1 in 4 (a bit
less, as the view itself is left out). Printed by how much of the card shows (whole >= 80%,
part >= 30%, sliver below), and, over a second set of views, among only the views that show
at least 40% of one of their symbols (``batches.SHOWS_SYMBOL_SHARE``): the views a person could
tell apart. Designs from seed 123, never used in training.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from cardtally.models.embedder.batches import SHOWS_SYMBOL_SHARE, telling_masks
from cardtally.models.embedder.views import render_view
from cardtally.models.synth.designs import design_family
from cardtally.vision.embed import BackEmbedder
from cardtally.vision.onnx_session import model_session

FAMILIES = 24
VIEWS = 8
SIBLINGS = 4


def nearest_is_sibling(vectors: np.ndarray, labels: np.ndarray, among: np.ndarray) -> np.ndarray:
    """For each view, whether its nearest other view in ``among`` has its label."""
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -2)
    similarity[:, ~among] = -2
    return labels[similarity.argmax(axis=1)] == labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=None)
    args = parser.parse_args()
    embedder = (BackEmbedder(model_session(args.model.read_bytes(), str(args.model)))
                if args.model else BackEmbedder())
    rng = np.random.default_rng(123)
    cv2.setRNGSeed(1)
    hits: dict[str, list[bool]] = {"whole": [], "part": [], "sliver": [], "shows its symbol": []}
    labels = np.repeat(np.arange(SIBLINGS), VIEWS)
    for family_index in range(FAMILIES):
        family = design_family(rng, n=SIBLINGS)
        views = [render_view(rng, design, family) for design in family for _ in range(VIEWS)]
        vectors = embedder.embed(np.stack([crop for crop, _ in views])).vectors
        right = nearest_is_sibling(vectors, labels, np.ones(len(labels), bool))
        for (_, visible), hit in zip(views, right, strict=True):
            kind = "whole" if visible >= 0.8 else "part" if visible >= 0.3 else "sliver"
            hits[kind].append(bool(hit))
        # The same kind of views again, each with the share of its symbols left in sight.
        places = telling_masks(family)
        view_rng = np.random.default_rng([123, family_index])
        told = [render_view(view_rng, design, family, telling_masks=places)
                for design in family for _ in range(VIEWS)]
        shows = np.array([share >= SHOWS_SYMBOL_SHARE for _, share in told])
        vectors = embedder.embed(np.stack([crop for crop, _ in told])).vectors
        hits["shows its symbol"] += nearest_is_sibling(vectors, labels, shows)[shows].tolist()
    print(f"model: {args.model or 'shipped'}")
    for kind, kind_hits in hits.items():
        print(f"{kind}: {len(kind_hits)} views, nearest view of the same sibling "
              f"{np.mean(kind_hits):.3f} (chance about 0.23)")


if __name__ == "__main__":
    main()
