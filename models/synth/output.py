"""Write scenes to disk: the photo's JPEG bytes and a JSON label file beside it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from .scene import CardLabel, Scene

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff")


def _xy(a: np.ndarray, nd: int = 2) -> list:
    return np.round(np.asarray(a, np.float64), nd).tolist()


def card_to_dict(card: CardLabel) -> dict:
    """A card's label as JSON-ready values."""
    return {
        "card_id": card.card_id, "deck_id": card.deck_id, "deck_name": card.deck_name,
        "face_up": card.face_up, "quad_xy": _xy(card.quad_xy),
        "visible_fraction": round(card.visible_fraction, 4), "visible_px": card.visible_px,
        "centroid_xy": _xy(card.centroid_xy), "centre_xy": _xy(card.centre_xy),
        "strip_px": round(card.strip_px, 2), "visible_polygon_xy": _xy(card.visible_polygon_xy, 1),
    }


def scene_to_dict(scene: Scene, image_name: str) -> dict:
    """The JSON label document for ``scene`` (format described in docs/SYNTH.md)."""
    h, w = scene.image.shape[:2]
    return {
        "image": image_name, "image_wh": [w, h], "layout": scene.layout,
        "deck_names": scene.deck_names, "counts": scene.counts(),
        "face_up_count": scene.face_up_count, "params": scene.params,
        "cards": [card_to_dict(c) for c in scene.cards],
    }


def write_scene(scene: Scene, out_dir: Path, stem: str) -> Path:
    """Write ``stem.jpg`` (the exact JPEG bytes rendered) and ``stem.json``; returns the image."""
    out_dir.mkdir(parents=True, exist_ok=True)
    img_path = out_dir / f"{stem}.jpg"
    img_path.write_bytes(scene.jpeg_bytes)
    doc = scene_to_dict(scene, img_path.name)
    (out_dir / f"{stem}.json").write_text(json.dumps(doc, indent=1, default=_jsonable))
    return img_path


def _jsonable(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o)}")


def write_design(design: np.ndarray, path: Path) -> None:
    """Save a back design image, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), design)


def image_files(folder: Path) -> list[Path]:
    """Image files under ``folder`` (recursively), sorted for determinism."""
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_EXTENSIONS
                  and p.is_file())
