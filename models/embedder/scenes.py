"""Rendered scenes as identification test material: ground-truth detections and expected owners.

Used by the identification benchmark and the tests; imports the renderer but not torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ...vision.calibrate import (
    Calibration,
    build_calibration,
    calibration_crops,
    calibration_version,
)
from ...vision.calibration_cards import with_second_try
from ...vision.decks import DeckSet
from ...vision.detections import FACE_UP, CardDetections
from ...vision.embed import BackEmbedder
from ...vision.geometry import quad_long_axis_deg
from ..synth.scene import Scene

REAL_BACKS_DIR = Path("/work/shared/data/backs")


def gt_detections(scene: Scene) -> CardDetections:
    """The renderer's labels as a perfect detector's output."""
    cards = scene.cards
    height, width = scene.image.shape[:2]
    if not cards:
        return CardDetections.empty((width, height))
    return CardDetections(
        quad_xy=np.stack([c.quad_xy for c in cards]).astype(np.float32),
        visible_polygons_xy=tuple(np.asarray(c.visible_polygon_xy, np.float32) for c in cards),
        centre_xy=np.stack([c.centre_xy for c in cards]).astype(np.float32),
        angle_deg=np.array([quad_long_axis_deg(c.quad_xy) for c in cards], np.float32),
        score=np.ones((len(cards),), np.float32),
        image_wh=(width, height),
        strip_px=np.array([c.strip_px for c in cards], np.float32),
    )


def cards_under_centres(scene: Scene, detections: CardDetections) -> np.ndarray:
    """Per detection, the index of the rendered card under its centre point (-1: the table or
    outside the image): how the benchmarks and the training bank match detections to cards."""
    height, width = scene.owner_map.shape
    x, y = np.round(detections.centre_xy).astype(int).reshape(-1, 2).T
    inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    owners = np.full(len(x), -1, np.int64)
    owners[inside] = scene.owner_map[y[inside], x[inside]]
    return owners


def expected_owner(scene: Scene, deck_order: list[str]) -> np.ndarray:
    """Per card: index into ``deck_order``, FACE_UP, or -1 for a deck not in ``deck_order``."""
    out = []
    for card in scene.cards:
        if card.face_up:
            out.append(FACE_UP)
        elif card.deck_name in deck_order:
            out.append(deck_order.index(card.deck_name))
        else:
            out.append(-1)
    return np.array(out, np.int64)


def calibrate_from_scene(name: str, photo: Scene | Sequence[Scene], existing: DeckSet,
                         embedder: BackEmbedder,
                         detections: CardDetections | Sequence[CardDetections] | None = None,
                         second_try: bool = False,
                         find_shapes: Callable[[np.ndarray], CardDetections] | None = None
                         ) -> Calibration:
    """Enrol a deck from one or several rendered calibration photos, with ground-truth card
    outlines unless ``detections`` (e.g. the shipped detector's, as `cardtally calibrate` finds
    them; one per photo) are given. With ``second_try``, a refused calibration is tried again
    with the cards found by their shape (``find_shapes``, by default in the shipped calibration
    network's map), as `cardtally calibrate` does
    (:func:`~cardtally.vision.calibration_cards.with_second_try`)."""
    photos = [photo] if isinstance(photo, Scene) else list(photo)
    if detections is None:
        found = [gt_detections(p) for p in photos]
    else:
        found = [detections] if isinstance(detections, CardDetections) else list(detections)
    images = [p.image for p in photos]
    files = [f"{name}.png"] if len(photos) == 1 else [f"{name}-{k + 1}.png" for k in range(len(photos))]

    def calibrate_cards(cards: list[CardDetections]) -> Calibration:
        crops = calibration_crops(images, cards)
        embeddings = embedder.embed(crops.pixels)
        return build_calibration(name, crops, embeddings, existing, files,
                                 calibration_version(embedder), embeddings.background_vectors())

    if not second_try:
        return calibrate_cards(found)
    return with_second_try(calibrate_cards, images, found, find_shapes)


def real_back_paths() -> list[Path]:
    """Real card-back images (test only, never for training), one per distinct file content."""
    seen: set[bytes] = set()
    paths = []
    for path in sorted(REAL_BACKS_DIR.rglob("back*")):
        if path.suffix.lower() not in (".gif", ".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".xpm"):
            continue
        data = path.read_bytes()
        if data in seen:
            continue
        seen.add(data)
        paths.append(path)
    return paths
