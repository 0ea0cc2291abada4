"""HEIF photos: HEIC, the iPhone's usual format, decoded through pillow-heif where it is
installed (OpenCV reads no HEIC), and AVIF, which OpenCV builds may or may not read.

Both are ISO base-media files: an ``ftyp`` box at byte 4 names the kind by its brands.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from cardtally.errors import CardtallyError

_HEIC_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs"}
_AVIF_BRANDS = {b"avif", b"avis"}

#: Where to get HEIC support, and how to avoid needing it.
HEIC_ADVICE = ("install HEIC support into cardtally's environment (pip install pillow-heif), "
               "or take JPEG photos (iPhone: Settings > Camera > Formats > Most Compatible)")


def heif_kind(data: bytes) -> str | None:
    """``"HEIC"`` or ``"AVIF"`` for a HEIF image file of that kind, else None (a video's or
    any other file's brands are neither)."""
    if len(data) < 16 or data[4:8] != b"ftyp":
        return None
    box_end = min(int.from_bytes(data[:4], "big"), len(data), 256)
    # The major brand, then the compatible brands after the minor version.
    brands = {data[8:12]} | {data[at:at + 4] for at in range(16, box_end - 3, 4)}
    if brands & _HEIC_BRANDS:
        return "HEIC"
    if brands & _AVIF_BRANDS:
        return "AVIF"
    return None


def open_heic(data: bytes, name: str) -> Any:
    """The primary image of a HEIC file, opened but not yet decoded (``.size`` is its width
    and height, upright); decode it with :func:`decode_heic`."""
    try:
        import pillow_heif
    except ImportError:
        raise CardtallyError(f"{name} is a HEIC photo; to read it, {HEIC_ADVICE}.") from None
    try:
        return pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True, bgr_mode=True)
    except (ValueError, RuntimeError, OSError):
        raise CardtallyError(_damaged(name)) from None


def decode_heic(heic: Any, name: str) -> np.ndarray:
    """The pixels of an image from :func:`open_heic`: 8-bit BGR (BGRA with transparency,
    2-D for grey). libheif applies the file's own rotation and mirroring, as a phone's
    gallery shows the photo, and pillow-heif then marks the EXIF orientation as done."""
    try:
        return np.ascontiguousarray(np.asarray(heic))
    except (ValueError, RuntimeError, OSError):
        raise CardtallyError(_damaged(name)) from None


def _damaged(name: str) -> str:
    return f"{name} is a damaged or truncated HEIC photo; copy it again."
