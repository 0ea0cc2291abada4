"""JPEG files with an EXIF orientation tag, as phones write them (shared by the test folders)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def jpeg_with_exif_orientation(path: Path, stored_bgr: np.ndarray, orientation: int) -> Path:
    """Write ``stored_bgr`` as a JPEG whose EXIF orientation tag (0x0112) is ``orientation``."""
    ok, encoded = cv2.imencode(".jpg", stored_bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    data = encoded.tobytes()
    # Minimal APP1 Exif segment: TIFF header (little endian) + one IFD entry (0x0112).
    tiff = (
        b"II*\x00\x08\x00\x00\x00"
        + b"\x01\x00"
        + b"\x12\x01\x03\x00\x01\x00\x00\x00"
        + orientation.to_bytes(2, "little")
        + b"\x00\x00"
        + b"\x00\x00\x00\x00"
    )
    payload = b"Exif\x00\x00" + tiff
    app1 = b"\xff\xe1" + (len(payload) + 2).to_bytes(2, "big") + payload
    path.write_bytes(data[:2] + app1 + data[2:])
    return path
