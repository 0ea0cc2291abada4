"""The review image: every card outlined in its deck's colour and numbered, plus a legend.

Made to be checked on a phone: line widths and text scale with the image, each outline has a
dark halo so it stays visible on light and dark tables, unknown cards get a yellow-black warning
outline, face-up cards a white-black dashed one. The photo keeps its aspect ratio; the legend is
a strip added below it, so it never hides a card.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import cv2
import numpy as np

from cardtally.errors import CardtallyError

from .deck_style import BGR, assign_deck_colours, deck_abbreviations, deck_colour
from .detections import FACE_UP, UNKNOWN, CardDetections, CardIdentities
from .label_layout import card_numbers, place_labels

__all__ = [
    "annotate",
    "assign_deck_colours",
    "card_numbers",
    "deck_abbreviations",
    "deck_colour",
    "write_review_image",
]

#: Longer outputs are downscaled: larger files show no more on a phone and are slow to send.
MAX_REVIEW_LONG_SIDE_PX = 2400
REVIEW_JPEG_QUALITY = 90
WARNING_BGR: BGR = (0, 215, 255)  # yellow
FACE_UP_BGR: BGR = (255, 255, 255)
HALO_BGR: BGR = (0, 0, 0)
LEGEND_BACKGROUND_BGR: BGR = (32, 32, 32)
FILL_ALPHA = 0.28
FONT = cv2.FONT_HERSHEY_DUPLEX


class _Style:
    """Line widths and text sizes for one output size: readable at 640 px and at 2400 px."""

    def __init__(self, image_wh: tuple[int, int]) -> None:
        long_side_px = max(image_wh)
        self.line_px = max(2, round(long_side_px / 700))
        self.halo_px = self.line_px + 2 * max(1, self.line_px // 2)
        self.dash_px = max(6, 4 * self.line_px)
        self.label_text_px = max(13, round(long_side_px / 90))
        # The legend must be legible on a phone without zooming: about 2% of the long side.
        self.legend_text_px = max(14, round(long_side_px / 48))

    def font(self, height_px: int) -> tuple[float, int]:
        thickness = max(1, round(height_px / 14))
        return cv2.getFontScaleFromHeight(FONT, height_px, thickness), thickness

    def text_wh(self, text: str, height_px: int) -> tuple[int, int]:
        scale, thickness = self.font(height_px)
        (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
        return width, height_px

    def label_wh(self, text: str, height_px: int) -> tuple[int, int]:
        width, _ = self.text_wh(text, height_px)
        pad = max(2, height_px // 4)
        return width + 2 * pad, height_px + 2 * pad


def _put_text(
    image: np.ndarray,
    text: str,
    org_xy: tuple[int, int],
    height_px: int,
    style: _Style,
    colour: BGR = (255, 255, 255),
) -> None:
    scale, thickness = style.font(height_px)
    cv2.putText(image, text, org_xy, FONT, scale, colour, thickness, cv2.LINE_AA)


def _ink_for(background: BGR) -> BGR:
    """Black or white text, whichever reads better on ``background``."""
    b, g, r = background
    return (0, 0, 0) if 0.114 * b + 0.587 * g + 0.299 * r > 140 else (255, 255, 255)


def _draw_label(
    image: np.ndarray,
    text: str,
    top_left: tuple[int, int],
    fill: BGR,
    height_px: int,
    style: _Style,
) -> None:
    """A filled, black-edged box with ``text``: the same look on the cards and in the legend."""
    box_w, box_h = style.label_wh(text, height_px)
    x0, y0 = top_left
    cv2.rectangle(image, (x0, y0), (x0 + box_w - 1, y0 + box_h - 1), fill, -1)
    cv2.rectangle(image, (x0, y0), (x0 + box_w - 1, y0 + box_h - 1), HALO_BGR, 1)
    _put_text(
        image,
        text,
        (x0 + (box_h - height_px) // 2, y0 + _baseline(box_h, height_px)),
        height_px,
        style,
        _ink_for(fill),
    )


def _baseline(box_h: int, text_px: int) -> int:
    """Offset from a label box's top to the baseline of its vertically centred text."""
    return (box_h - text_px) // 2 + text_px


def _dashed(
    image: np.ndarray, polygon: np.ndarray, colour: BGR, thickness: int, dash_px: int
) -> None:
    """Dashes of ``colour`` along a closed polygon (the halo drawn under it fills the gaps).

    The pattern runs on around the whole perimeter (dash ``k`` covers arc length
    ``[2k, 2k + 1) * dash_px``), so short polygon sides do not restart it.
    """
    points = np.vstack([polygon, polygon[:1]]).astype(np.float64)
    period = 2.0 * dash_px
    arc_start = 0.0
    for a, b in zip(points[:-1], points[1:], strict=True):
        length = float(np.hypot(*(b - a)))
        arc_end = arc_start + length
        k = int(arc_start // period)
        while length > 0 and k * period < arc_end:
            start, end = max(k * period, arc_start), min(k * period + dash_px, arc_end)
            if end > start:
                p = np.round(a + (b - a) * ((start - arc_start) / length)).astype(int)
                q = np.round(a + (b - a) * ((end - arc_start) / length)).astype(int)
                cv2.line(image, tuple(p), tuple(q), colour, thickness, cv2.LINE_AA)
            k += 1
        arc_start = arc_end


def _fit(image_bgr: np.ndarray) -> tuple[np.ndarray, float]:
    height, width = image_bgr.shape[:2]
    scale = min(1.0, MAX_REVIEW_LONG_SIDE_PX / max(width, height))
    if scale == 1.0:
        return image_bgr.copy(), 1.0
    size_wh = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(image_bgr, size_wh, interpolation=cv2.INTER_AREA), scale


def _card_look(
    identities: CardIdentities, i: int, colours: dict[str, BGR], short: dict[str, str]
) -> tuple[str, BGR]:
    """Label text (without the number) and colour of card ``i``."""
    index = int(identities.deck_index[i])
    if index == UNKNOWN:
        return "?", WARNING_BGR
    if index == FACE_UP:
        return "up", FACE_UP_BGR
    name = identities.deck_names[index]
    return short[name], colours[name]


def _legend_columns(widths: list[tuple[int, int]], width_px: int, gap_px: int) -> list[list[int]]:
    """Split entries (box width, text width) into the most columns that fit ``width_px``,
    filled top to bottom; each column is as wide as its own widest entry."""
    for n_columns in range(len(widths), 0, -1):
        rows = -(-len(widths) // n_columns)
        columns = [list(range(c, min(c + rows, len(widths)))) for c in range(0, len(widths), rows)]
        needed = gap_px + sum(
            max(widths[k][0] for k in col) + max(widths[k][1] for k in col) + 4 * gap_px
            for col in columns
        )
        if needed <= width_px:
            return columns
    return [list(range(len(widths)))]


def _legend_strip(
    width_px: int,
    identities: CardIdentities,
    colours: dict[str, BGR],
    short: dict[str, str],
    title: str | None,
    style: _Style,
) -> np.ndarray:
    """A strip for under the photo: a header line, then one entry per deck plus unknown and
    face-up cards, each with a label box like those on the cards, in as many columns as fit."""
    entries = [
        (short[name], colours[name], f"{name}: {count}")
        for name, count in identities.counts().items()
    ]
    entries.append(("?", WARNING_BGR, f"unknown: {identities.unknown_count}"))
    entries.append(("up", FACE_UP_BGR, f"face up: {identities.face_up_count}"))
    text_px = style.legend_text_px
    gap = text_px // 2
    widths = [
        (style.label_wh(tag, text_px)[0], style.text_wh(text, text_px)[0])
        for tag, _, text in entries
    ]
    columns = _legend_columns(widths, width_px, gap)
    line_h = style.label_wh("X", text_px)[1] + gap
    strip_h = 2 * gap + line_h * (1 + max(len(col) for col in columns))
    strip = np.full((strip_h, width_px, 3), LEGEND_BACKGROUND_BGR, np.uint8)
    header = f"{title}  -  {len(identities)} cards" if title else f"{len(identities)} cards"
    # A long title (file name, corrections) on a portrait photo is set smaller, not cut off.
    header_w = style.text_wh(header, text_px)[0]
    header_px = min(text_px, max(8, text_px * (width_px - 4 * gap) // max(header_w, 1)))
    _put_text(strip, header, (2 * gap, gap + _baseline(line_h - gap, text_px)), header_px, style)
    x = 2 * gap
    for col in columns:
        box_w = max(widths[k][0] for k in col)
        for row, k in enumerate(col):
            tag, colour, text = entries[k]
            y = gap + line_h * (1 + row)
            _draw_label(strip, tag, (x, y), colour, text_px, style)
            baseline = y + _baseline(line_h - gap, text_px)
            _put_text(strip, text, (x + box_w + gap, baseline), text_px, style)
        x += box_w + max(widths[k][1] for k in col) + 4 * gap
    return strip


def annotate(
    image_bgr: np.ndarray,
    detections: CardDetections,
    identities: CardIdentities,
    deck_colours: dict[str, BGR] | None = None,
    title: str | None = None,
    show_quads: bool = False,
) -> np.ndarray:
    """Draw the review image for one photo and return it (BGR uint8).

    Every card's visible part is tinted and outlined in its deck's colour and labelled with
    its number (see :func:`card_numbers`) and deck abbreviation; unknown cards get a thick
    yellow-black outline and "?", face-up cards a white-black one and "up". A legend strip
    with the counts is added below the photo, whose aspect ratio is kept.

    Detections may be in a resized copy of the photo (``detections.image_wh``); they are mapped
    onto ``image_bgr``. Photos longer than :data:`MAX_REVIEW_LONG_SIDE_PX` are downscaled first
    so the drawing stays crisp. ``deck_colours`` overrides :func:`assign_deck_colours`;
    ``show_quads`` adds each card's estimated full outline, thin.
    """
    if len(detections) != len(identities):
        raise ValueError(f"{len(detections)} detections but {len(identities)} identities")
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise ValueError(
            f"image_bgr must be (H, W, 3) uint8, got {image_bgr.shape} {image_bgr.dtype}"
        )
    canvas, scale = _fit(image_bgr)
    detections = detections.scaled(scale * image_bgr.shape[1] / max(1, detections.image_wh[0]))
    image_wh = (canvas.shape[1], canvas.shape[0])
    style = _Style(image_wh)
    colours = assign_deck_colours(identities.deck_names)
    colours.update(deck_colours or {})
    short = deck_abbreviations(identities.deck_names)
    looks = [_card_look(identities, i, colours, short) for i in range(len(identities))]
    polygons = [
        np.round(p).astype(np.int32).reshape(-1, 1, 2) for p in detections.visible_polygons_xy
    ]

    # Translucent fills first, so that a glance shows which strips belong to which deck.
    tinted = canvas.copy()
    for i, polygon in enumerate(polygons):
        if identities.deck_index[i] >= 0 and len(polygon) >= 3:
            cv2.fillPoly(tinted, [polygon], looks[i][1], cv2.LINE_AA)
    cv2.addWeighted(tinted, FILL_ALPHA, canvas, 1.0 - FILL_ALPHA, 0.0, dst=canvas)

    # Then every outline (a black halo under each keeps it visible on any table) ...
    for i, polygon in enumerate(polygons):
        index = int(identities.deck_index[i])
        if show_quads:
            quad = np.round(detections.quad_xy[i]).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(canvas, [quad], True, looks[i][1], 1, cv2.LINE_AA)
        if index == UNKNOWN:
            cv2.polylines(canvas, [polygon], True, HALO_BGR, 2 * style.line_px, cv2.LINE_AA)
            _dashed(canvas, polygon.reshape(-1, 2), WARNING_BGR, 2 * style.line_px, style.dash_px)
        elif index == FACE_UP:
            cv2.polylines(canvas, [polygon], True, HALO_BGR, style.halo_px, cv2.LINE_AA)
            _dashed(canvas, polygon.reshape(-1, 2), FACE_UP_BGR, style.line_px, style.dash_px)
        else:
            cv2.polylines(canvas, [polygon], True, HALO_BGR, style.halo_px, cv2.LINE_AA)
            cv2.polylines(canvas, [polygon], True, looks[i][1], style.line_px, cv2.LINE_AA)

    # ... and the labels on top of all outlines.
    numbers = card_numbers(detections)
    texts = [f"{numbers[i]} {looks[i][0]}" for i in range(len(looks))]
    sizes_wh = [style.label_wh(t, style.label_text_px) for t in texts]
    corners = place_labels(
        sizes_wh,
        [p.reshape(-1, 2) for p in polygons],
        detections.centre_xy,
        np.argsort(numbers),
        image_wh,
    )
    for i, text in enumerate(texts):
        _draw_label(canvas, text, corners[i], looks[i][1], style.label_text_px, style)

    legend = _legend_strip(image_wh[0], identities, colours, short, title, style)
    return np.vstack([canvas, legend])


def write_review_image(path: str | Path, image_bgr: np.ndarray) -> Path:
    """Write a review image as JPEG (quality 90), atomically: a temp file, then a rename.

    A reader never sees a half-written file, and a failed write leaves the old file in place.
    """
    path = Path(path)
    ok, encoded = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, REVIEW_JPEG_QUALITY])
    if not ok:
        raise ValueError("OpenCV could not encode the review image as JPEG")
    if path.parent.exists() and not path.parent.is_dir():
        raise CardtallyError(
            f"Cannot write the review image {path}: {path.parent} is a file, not a folder."
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".jpg.tmp", dir=path.parent)
    except OSError as exc:
        raise CardtallyError(f"Cannot write the review image {path}: {exc.strerror}.") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(encoded.tobytes())
        os.chmod(tmp_name, 0o644)  # mkstemp makes it owner-only; a photo should be shareable
        os.replace(tmp_name, path)
    except OSError as exc:
        Path(tmp_name).unlink(missing_ok=True)
        raise CardtallyError(f"Cannot write the review image {path}: {exc.strerror}.") from None
    return path
