"""Typed results passed between the vision stages.

Modelled on supervision's ``Detections``: parallel numpy arrays whose shapes are checked on
construction, filtered with a boolean mask or an index array (``dets[dets.score > 0.5]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FACE_UP = -2
UNKNOWN = -1


def _check_shape(name: str, array: np.ndarray, shape: tuple[int | None, ...]) -> None:
    ok = array.ndim == len(shape) and all(
        want is None or got == want for got, want in zip(array.shape, shape, strict=True)
    )
    if not ok:
        pretty = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {pretty}, got {array.shape}")


@dataclass(frozen=True)
class CardDetections:
    """Every card found in one image, one entry per physical card.

    ``quad_xy`` is the estimated full-card outline (corners in order around the card),
    ``visible_polygons_xy`` the outline of the part that is actually visible (ragged, one
    ``(k, 2)`` array per card), ``centre_xy`` a point inside the visible part, ``angle_deg``
    the card's long-axis orientation in the image and ``score`` the detector's confidence.
    All coordinates are pixels of the image given to the detector (``image_wh``).
    """

    quad_xy: np.ndarray
    visible_polygons_xy: tuple[np.ndarray, ...]
    centre_xy: np.ndarray
    angle_deg: np.ndarray
    score: np.ndarray
    image_wh: tuple[int, int]
    strip_px: np.ndarray = field(default_factory=lambda: np.zeros((0,), np.float32))

    def __post_init__(self) -> None:
        n = len(self.score)
        _check_shape("quad_xy", self.quad_xy, (n, 4, 2))
        _check_shape("centre_xy", self.centre_xy, (n, 2))
        _check_shape("angle_deg", self.angle_deg, (n,))
        _check_shape("score", self.score, (n,))
        if len(self.strip_px) != n:
            if len(self.strip_px) == 0:
                object.__setattr__(self, "strip_px", np.zeros((n,), np.float32))
            else:
                _check_shape("strip_px", self.strip_px, (n,))
        if len(self.visible_polygons_xy) != n:
            raise ValueError(
                f"visible_polygons_xy must hold {n} polygons, got {len(self.visible_polygons_xy)}"
            )
        for i, poly in enumerate(self.visible_polygons_xy):
            if poly.ndim != 2 or poly.shape[1] != 2:
                raise ValueError(f"visible_polygons_xy[{i}] must have shape (k, 2), got {poly.shape}")

    @classmethod
    def empty(cls, image_wh: tuple[int, int]) -> CardDetections:
        """No cards (an empty table is a valid result, not an error)."""
        return cls(
            quad_xy=np.zeros((0, 4, 2), np.float32),
            visible_polygons_xy=(),
            centre_xy=np.zeros((0, 2), np.float32),
            angle_deg=np.zeros((0,), np.float32),
            score=np.zeros((0,), np.float32),
            image_wh=image_wh,
        )

    def __len__(self) -> int:
        return len(self.score)

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> CardDetections:
        picked = np.arange(len(self))[index]
        return CardDetections(
            quad_xy=self.quad_xy[picked],
            visible_polygons_xy=tuple(self.visible_polygons_xy[i] for i in picked),
            centre_xy=self.centre_xy[picked],
            angle_deg=self.angle_deg[picked],
            score=self.score[picked],
            image_wh=self.image_wh,
            strip_px=self.strip_px[picked],
        )

    def scaled(self, factor: float) -> CardDetections:
        """The same detections in an image resized by ``factor`` (e.g. back to the original)."""
        width, height = self.image_wh
        return self.placed(factor, (0.0, 0.0), (round(width * factor), round(height * factor)))

    def placed(
        self, factor: float, offset_xy: tuple[float, float], image_wh: tuple[int, int]
    ) -> CardDetections:
        """The detections of a resized crop, in the photo the crop was taken from.

        A point ``p`` of this image lands at ``p * factor + offset_xy`` in the photo, whose
        size is ``image_wh``.
        """
        offset = np.asarray(offset_xy, np.float32)
        return CardDetections(
            quad_xy=(self.quad_xy * factor + offset).astype(np.float32),
            visible_polygons_xy=tuple(
                (p * factor + offset).astype(np.float32) for p in self.visible_polygons_xy
            ),
            centre_xy=(self.centre_xy * factor + offset).astype(np.float32),
            angle_deg=self.angle_deg.copy(),
            score=self.score.copy(),
            image_wh=image_wh,
            strip_px=(self.strip_px * factor).astype(np.float32),
        )


@dataclass(frozen=True)
class CardIdentities:
    """Whose deck each detected card belongs to, parallel to a :class:`CardDetections`.

    ``deck_index`` indexes ``deck_names``; :data:`UNKNOWN` (-1) for a back that matches no
    calibrated deck well enough, :data:`FACE_UP` (-2) for a card lying face up. ``tied_decks``
    (n, 2), where given, names the two sibling decks an UNKNOWN card could equally be (its
    distinguishing symbol does not show); -1 for every other card. ``similarity`` (n, decks),
    where given, is each card's best cosine similarity to each deck's prototypes (what the
    doubtful cards' candidates are ranked by, ``vision.doubt``).
    """

    deck_index: np.ndarray
    confidence: np.ndarray
    deck_names: tuple[str, ...]
    tied_decks: np.ndarray | None = None
    similarity: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.deck_index)
        _check_shape("deck_index", self.deck_index, (n,))
        _check_shape("confidence", self.confidence, (n,))
        if n and (self.deck_index.max() >= len(self.deck_names) or self.deck_index.min() < FACE_UP):
            raise ValueError("deck_index out of range for deck_names")
        if self.tied_decks is not None:
            _check_shape("tied_decks", self.tied_decks, (n, 2))
        if self.similarity is not None:
            _check_shape("similarity", self.similarity, (n, len(self.deck_names)))

    def ties(self, i: int) -> tuple[str, str] | None:
        """The two decks UNKNOWN card ``i`` could equally be, or ``None``."""
        if self.tied_decks is None or self.deck_index[i] != UNKNOWN or self.tied_decks[i, 0] < 0:
            return None
        first, second = (int(k) for k in self.tied_decks[i])
        return self.deck_names[first], self.deck_names[second]

    def __len__(self) -> int:
        return len(self.deck_index)

    def deck_name(self, i: int) -> str | None:
        """The deck name of card ``i``, or ``None`` when unknown or face up."""
        index = int(self.deck_index[i])
        return self.deck_names[index] if index >= 0 else None

    def counts(self) -> dict[str, int]:
        """Cards per calibrated deck (every deck listed, zero included)."""
        return {
            name: int(np.count_nonzero(self.deck_index == k)) for k, name in enumerate(self.deck_names)
        }

    @property
    def unknown_count(self) -> int:
        """Cards no calibrated deck claims."""
        return int(np.count_nonzero(self.deck_index == UNKNOWN))

    @property
    def face_up_count(self) -> int:
        """Cards lying face up."""
        return int(np.count_nonzero(self.deck_index == FACE_UP))
