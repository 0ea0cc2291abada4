"""Decode a photo file into a bounded-size 8-bit BGR image, with clear errors for bad files.

Handles EXIF orientation (phone photos), 16-bit, greyscale and alpha images, and HEIC photos
where pillow-heif is installed (``heif.py``); decodes large JPEGs at reduced size; refuses
files that are not images, truncated, damaged (the decoder reports corrupt data: such a photo
would be counted from made-up pixels), empty, too small, or so large that decoding them would
exhaust memory (the header is read before any pixel is decoded).
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from cardtally.errors import CardtallyError

from .decoder_messages import decoder_messages
from .heif import decode_heic, heif_kind, open_heic

#: Larger photos are refused before decoding (a 48 MP phone photo is 48e6 pixels).
MAX_IMAGE_PIXELS = 120_000_000
#: Smaller images cannot show a card strip of useful width.
MIN_IMAGE_SIDE_PX = 32
#: JPEGs at least twice this long are decoded at 1/2, 1/4 or 1/8 of their size (libjpeg
#: scales while decoding: less time and memory) down to no less than this long side, a 12 MP
#: phone photo's, the size identification is measured at; detection reads at most 3072 px.
REDUCED_DECODE_LONG_SIDE_PX = 4000
_REDUCED_JPEG_FLAGS = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
                       8: cv2.IMREAD_REDUCED_COLOR_8}


@dataclass(frozen=True)
class LoadedImage:
    """A decoded photo: ``bgr`` is (H, W, 3) uint8, upright as the camera saw it."""

    path: Path
    bgr: np.ndarray
    #: The photo's own upright width and height: larger than ``image_wh`` where a large JPEG
    #: was decoded at reduced size (None: the same).
    full_wh: tuple[int, int] | None = None

    @property
    def image_wh(self) -> tuple[int, int]:
        """Width and height of the decoded image ``bgr``, pixels."""
        return int(self.bgr.shape[1]), int(self.bgr.shape[0])

    @property
    def photo_wh(self) -> tuple[int, int]:
        """The photo's own upright width and height, whatever size it was decoded at."""
        return self.full_wh or self.image_wh


def _png_size(head: bytes) -> tuple[int, int] | None:
    if head[:8] != b"\x89PNG\r\n\x1a\n" or len(head) < 24:
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first SOF marker, without decoding."""
    if data[:2] != b"\xff\xd8":
        return None
    pos = 2
    while pos + 9 < len(data):
        if data[pos] != 0xFF:
            pos += 1
            continue
        marker = data[pos + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            pos += 1 if marker == 0xFF else 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def _jpeg_complete(data: bytes) -> bool:
    """Whether the main image's scan ends with an end-of-image marker.

    Only the marker after the first start-of-scan counts (an EXIF thumbnail has its own), and
    data after it is allowed: phones append motion-photo videos to the JPEG.
    """
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return False
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker == 0xDA:  # start of scan: entropy-coded data follows until EOI
            return data.find(b"\xff\xd9", pos) != -1
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        pos += 2 + length
    return False


def _header_size(data: bytes) -> tuple[int, int] | None:
    return _png_size(data[:32]) or _jpeg_size(data)


def decode_image(data: bytes, path: Path) -> LoadedImage:
    """Decode image bytes (any format OpenCV reads, and HEIC) into a :class:`LoadedImage`."""
    name = path.name
    if not data:
        raise CardtallyError(f"{name} is empty (0 bytes); it is not a photo.")
    kind = heif_kind(data)
    if kind == "HEIC":
        heic = open_heic(data, name)
        _check_pixels(name, *heic.size)
        return _checked(decode_heic(heic, name), name, path)
    size = _header_size(data)
    if size is not None:
        _check_pixels(name, *size)
    buffer = np.frombuffer(data, np.uint8)
    is_jpeg = data[:2] == b"\xff\xd8"
    if is_jpeg and not _jpeg_complete(data):
        raise CardtallyError(f"{name} is truncated (the JPEG data ends early); copy it again.")
    is_png = data[:8] == b"\x89PNG\r\n\x1a\n"
    if is_png:
        _check_png_chunks(data, name)
    image = None
    if is_jpeg and size is not None and (reduction := _jpeg_reduction(size)) > 1:
        # Applies the EXIF orientation as IMREAD_COLOR does.
        image = _imdecode(buffer, _REDUCED_JPEG_FLAGS[reduction], name)
        if image is not None:
            return _checked(image, name, path, _upright(size, image))
    elif not is_jpeg:
        # JPEG never carries alpha; for the others peek at the channels to composite alpha.
        raw = _imdecode(buffer, cv2.IMREAD_UNCHANGED, name)
        if raw is not None and raw.ndim == 3 and raw.shape[2] == 4:
            image = _composite_alpha(raw)
    if image is None:
        # IMREAD_COLOR applies the EXIF orientation; ANYDEPTH keeps 16-bit precision.
        image = _imdecode(buffer, cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH, name)
    if image is None and kind == "AVIF":
        raise CardtallyError(f"{name} is an AVIF image, which this installation's OpenCV cannot "
                             "read; save it as JPEG or PNG.")
    if image is None:
        raise CardtallyError(f"{name} is not an image cardtally can read (JPEG, PNG, ...).")
    return _checked(image, name, path)


def _damaged(name: str, kind: str) -> CardtallyError:
    return CardtallyError(f"{name} is damaged (the {kind} data is corrupt); copy it again.")


def _imdecode(buffer: np.ndarray, flags: int, name: str) -> np.ndarray | None:
    """``cv2.imdecode``, refusing what the decoder reports as corrupt instead of printing it."""
    with decoder_messages() as report:
        image = cv2.imdecode(buffer, flags)
    if report.jpeg_corrupt:
        if any(line.startswith("Premature end of JPEG file") for line in report.lines):
            raise CardtallyError(f"{name} is truncated (the JPEG data ends early); copy it again.")
        raise _damaged(name, "JPEG")
    if report.png_error:
        raise _damaged(name, "PNG")
    return image


def _check_png_chunks(data: bytes, name: str) -> None:
    """Walk the PNG chunks up to IEND: refuse a file that ends before it, or a critical chunk
    (header, palette, pixels) that fails its checksum. Bytes after IEND are allowed (other
    readers ignore them too)."""
    pos = 8
    while pos + 12 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            break
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if kind[:1].isupper() and zlib.crc32(data[pos + 4 : end - 4]) != crc:
            raise _damaged(name, "PNG")
        if kind == b"IEND":
            return
        pos = end
    raise CardtallyError(f"{name} is truncated (the PNG data ends early); copy it again.")


def _check_pixels(name: str, width: int, height: int) -> None:
    if width * height > MAX_IMAGE_PIXELS:
        raise CardtallyError(
            f"{name} is {width}x{height} pixels, too large to process safely "
            f"(limit {MAX_IMAGE_PIXELS // 1_000_000} megapixels); resize it first."
        )


def _jpeg_reduction(size_wh: tuple[int, int]) -> int:
    """1, 2, 4 or 8: how many times smaller to decode a JPEG of this size."""
    for factor in (8, 4, 2):
        if max(size_wh) >= factor * REDUCED_DECODE_LONG_SIDE_PX:
            return factor
    return 1


def _upright(size_wh: tuple[int, int], decoded: np.ndarray) -> tuple[int, int]:
    """The stored size turned as the EXIF orientation turned the decoded image."""
    width, height = size_wh
    turned = (width > height) != (decoded.shape[1] > decoded.shape[0])
    return (height, width) if turned else (width, height)


def _checked(image: np.ndarray, name: str, path: Path,
             full_wh: tuple[int, int] | None = None) -> LoadedImage:
    """A decoded image of any depth and channel count as 8-bit BGR, if its size is usable."""
    image = _to_uint8(image)
    height, width = image.shape[:2]
    if min(width, height) < MIN_IMAGE_SIDE_PX:
        raise CardtallyError(
            f"{name} is only {width}x{height} pixels; photos must be at least "
            f"{MIN_IMAGE_SIDE_PX} pixels on each side."
        )
    _check_pixels(name, width, height)
    return LoadedImage(path=path, bgr=np.ascontiguousarray(image), full_wh=full_wh)


def _composite_alpha(bgra: np.ndarray) -> np.ndarray:
    """Put a transparent image on a neutral grey table so transparency is not black."""
    bgra = _depth_to_uint8(bgra)
    alpha = bgra[:, :, 3:4].astype(np.float32) / 255.0
    grey = np.full_like(bgra[:, :, :3], 128, dtype=np.float32)
    out = bgra[:, :, :3].astype(np.float32) * alpha + grey * (1.0 - alpha)
    return out.round().astype(np.uint8)


def _depth_to_uint8(image: np.ndarray) -> np.ndarray:
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        image = np.clip(image.astype(np.float32) * (255.0 if image.max() <= 1.0 else 1.0), 0, 255)
        image = image.astype(np.uint8)
    return image


def _to_uint8(image: np.ndarray) -> np.ndarray:
    """Any depth and channel count to 8-bit BGR."""
    image = _depth_to_uint8(image)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = _composite_alpha(image)
    return image


def check_photo_path(path: Path) -> None:
    """Fail early, before any work, for a path that cannot be a photo file."""
    if not path.exists():
        raise CardtallyError(f"No such file: {path}")
    if path.is_dir():
        raise CardtallyError(f"{path} is a folder, not a photo.")


def read_photo_bytes(path: Path) -> bytes:
    """The bytes of a photo file, with clear errors for paths that cannot be one."""
    check_photo_path(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CardtallyError(f"Cannot read {path}: {exc.strerror}.") from None


def load_image(path: str | Path) -> LoadedImage:
    """Read and decode a photo file; raise :class:`CardtallyError` with a clear reason if not."""
    path = Path(path)
    return decode_image(read_photo_bytes(path), path)


def load_distinct_images(paths: list[Path], what: str = "photo") -> list[LoadedImage]:
    """:func:`load_image` for each path, refusing a photo given twice, by name or as a copy
    under another name (``what`` names the photos in the message). Each file is read once."""
    images: list[LoadedImage] = []
    first_of: dict[str, Path] = {}
    for path in map(Path, paths):
        data = read_photo_bytes(path)
        digest = hashlib.sha256(data).hexdigest()
        if digest in first_of:
            first = first_of[digest]
            said = (f"{path} is given twice" if first.resolve() == path.resolve()
                    else f"{path} is the same photo as {first}")
            raise CardtallyError(f"{said}; give each {what} once.")
        first_of[digest] = path
        images.append(decode_image(data, path))
    return images


def resize_to_long_side(bgr: np.ndarray, long_side_px: int) -> tuple[np.ndarray, float]:
    """Downscale (never upscale) so the long side is at most ``long_side_px``.

    Returns the image and the factor ``original / resized`` to map coordinates back.
    """
    height, width = bgr.shape[:2]
    scale = long_side_px / max(width, height)
    if scale >= 1.0:
        return bgr, 1.0
    size_wh = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(bgr, size_wh, interpolation=cv2.INTER_AREA), 1.0 / scale
