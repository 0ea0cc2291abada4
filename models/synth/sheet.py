"""Contact sheets: a grid of rendered photos in one JPEG, for people to judge realism."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def contact_sheet(images: list[np.ndarray], path: Path, cols: int = 4, tile_wh=(480, 360),
                  quality: int = 80) -> np.ndarray:
    """Letterbox each image into a tile, grid them, write a JPEG to ``path``; returns the sheet."""
    tw, th = tile_wh
    tiles = []
    for im in images:
        h, w = im.shape[:2]
        s = min(tw / w, th / h)
        small = cv2.resize(im, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        tile = np.full((th, tw, 3), 24, np.uint8)
        y, x = (th - small.shape[0]) // 2, (tw - small.shape[1]) // 2
        tile[y:y + small.shape[0], x:x + small.shape[1]] = small
        tiles.append(tile)
    while len(tiles) % cols:
        tiles.append(np.full((th, tw, 3), 24, np.uint8))
    rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    sheet = np.vstack(rows)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return sheet
