"""One photo's cards (detections and identities) kept beside its review image, as ``.npz``.

A saved round's review image is drawn from its photo and the cards counted in it. To draw it
again after a correction (``round edit --card``), the cards must be the same ones, numbered the
same way; counting the photo again could find other cards. So the cards are written once, next
to the review image, and read back to draw it again.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import numpy as np

from cardtally.errors import CardtallyError

from .detections import CardDetections, CardIdentities


def save_cards(path: Path, detections: CardDetections, identities: CardIdentities) -> Path:
    """Write the cards to ``path`` atomically (a temp file, then a rename)."""
    polygons = detections.visible_polygons_xy
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        quad_xy=detections.quad_xy,
        centre_xy=detections.centre_xy,
        angle_deg=detections.angle_deg,
        score=detections.score,
        strip_px=detections.strip_px,
        image_wh=np.asarray(detections.image_wh, np.int64),
        polygon_xy=(np.concatenate(polygons) if polygons else np.zeros((0, 2), np.float32)),
        polygon_len=np.asarray([len(p) for p in polygons], np.int64),
        deck_index=identities.deck_index,
        confidence=identities.confidence,
        deck_names=np.asarray(identities.deck_names, dtype=str),
        tied_decks=(
            np.zeros((0, 2), np.int64) if identities.tied_decks is None else identities.tied_decks
        ),
        similarity=(
            np.zeros((0, len(identities.deck_names)), np.float32)
            if identities.similarity is None else identities.similarity
        ),
    )
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(buffer.getvalue())
            os.replace(tmp_name, path)
        except OSError:
            Path(tmp_name).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise CardtallyError(f"Cannot write {path}: {exc.strerror}.") from None
    return path


def load_cards(path: Path) -> tuple[CardDetections, CardIdentities]:
    """The cards written by :func:`save_cards`; a clear error when the file is gone or bad."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        bounds = np.cumsum(arrays["polygon_len"])[:-1]
        polygons = tuple(np.split(arrays["polygon_xy"], bounds)) if len(arrays["score"]) else ()
        detections = CardDetections(
            quad_xy=arrays["quad_xy"],
            visible_polygons_xy=polygons,
            centre_xy=arrays["centre_xy"],
            angle_deg=arrays["angle_deg"],
            score=arrays["score"],
            image_wh=(int(arrays["image_wh"][0]), int(arrays["image_wh"][1])),
            strip_px=arrays["strip_px"],
        )
        tied = arrays["tied_decks"]
        n = len(arrays["deck_index"])
        # Files written before the similarities were kept have none.
        similarity = arrays.get("similarity")
        identities = CardIdentities(
            arrays["deck_index"],
            arrays["confidence"],
            tuple(str(name) for name in arrays["deck_names"]),
            tied if len(tied) == n and len(tied) else None,
            similarity if similarity is not None and len(similarity) == n and n else None,
        )
    except FileNotFoundError:
        raise CardtallyError(f"{path} is missing.") from None
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise CardtallyError(f"{path} cannot be read ({exc}).") from None
    return detections, identities
