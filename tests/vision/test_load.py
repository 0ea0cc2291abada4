"""Photo decoding: every odd input either loads upright in 8-bit BGR or gives a clear error."""

import os
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from exif_jpeg import jpeg_with_exif_orientation

from cardtally.errors import CardtallyError
from cardtally.vision import load
from cardtally.vision.decoder_messages import decoder_messages
from cardtally.vision.load import MAX_IMAGE_PIXELS, load_image, resize_to_long_side


def _picture(height: int = 60, width: int = 90) -> np.ndarray:
    image = np.zeros((height, width, 3), np.uint8)
    image[:, : width // 2] = (0, 0, 255)  # left half red
    return image


@pytest.mark.parametrize(
    ("name", "write"),
    [
        ("plain.png", lambda p: cv2.imwrite(str(p), _picture())),
        ("plain.jpg", lambda p: cv2.imwrite(str(p), _picture())),
        ("deep.png", lambda p: cv2.imwrite(str(p), _picture().astype(np.uint16) * 257)),
        ("grey.png", lambda p: cv2.imwrite(str(p), _picture()[:, :, 2])),
        ("alpha.png", lambda p: cv2.imwrite(str(p), np.dstack([_picture(), np.full((60, 90), 255, np.uint8)]))),
    ],
)
def test_formats_load_as_8bit_bgr(tmp_path: Path, name: str, write) -> None:
    path = tmp_path / name
    write(path)
    image = load_image(path)
    assert image.bgr.dtype == np.uint8
    assert image.bgr.shape == (60, 90, 3)
    assert image.image_wh == (90, 60)


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    path = tmp_path / "phone.jpg"
    jpeg_with_exif_orientation(path, _picture(), orientation=6)  # rotate 90 degrees clockwise
    image = load_image(path)
    assert image.image_wh == (60, 90)
    # The red left half of the sensor image ends up at the top after a clockwise turn.
    assert image.bgr[5, 30, 2] > 200 and image.bgr[-5, 30, 2] < 60


def _truncated(path: Path) -> None:
    cv2.imwrite(str(path), np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8))
    path.write_bytes(path.read_bytes()[:600])


def _huge_png(path: Path) -> None:
    # Only the header matters: it claims 20000 x 20000 pixels.
    header = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + (20000).to_bytes(4, "big") * 2
    path.write_bytes(header + b"\x08\x02\x00\x00\x00" + b"\x00" * 64)


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("missing.jpg", lambda p: None, "No such file: {path}"),
        ("folder", lambda p: p.mkdir(), "{path} is a folder, not a photo."),
        ("empty.jpg", lambda p: p.write_bytes(b""), "empty.jpg is empty (0 bytes); it is not a photo."),
        ("notes.jpg", lambda p: p.write_text("hello"), "notes.jpg is not an image cardtally can read (JPEG, PNG, ...)."),
        ("cut.jpg", _truncated, "cut.jpg is truncated (the JPEG data ends early); copy it again."),
        ("dot.png", lambda p: cv2.imwrite(str(p), _picture(1, 1)), "dot.png is only 1x1 pixels; photos must be at least 32 pixels on each side."),
        ("bomb.png", _huge_png, f"bomb.png is 20000x20000 pixels, too large to process safely (limit {MAX_IMAGE_PIXELS // 1_000_000} megapixels); resize it first."),
    ],
)
def test_bad_files_give_clear_errors(tmp_path: Path, name: str, make, message: str) -> None:
    path = tmp_path / name
    make(path)
    with pytest.raises(CardtallyError) as error:
        load_image(path)
    assert str(error.value) == message.format(path=path)


def test_resize_to_long_side_never_upscales() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    same, factor = resize_to_long_side(image, 1000)
    assert same is image and factor == 1.0
    small, factor = resize_to_long_side(image, 200)
    assert small.shape == (150, 200, 3) and factor == 2.0


def test_motion_photo_with_trailing_video_loads(tmp_path: Path) -> None:
    path = tmp_path / "motion.jpg"
    cv2.imwrite(str(path), _picture())
    path.write_bytes(path.read_bytes() + b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 200)
    assert load_image(path).image_wh == (90, 60)


def test_truncated_png_is_reported_as_truncated(tmp_path: Path) -> None:
    path = tmp_path / "cut.png"
    cv2.imwrite(str(path), np.random.default_rng(1).integers(0, 255, (80, 80, 3), np.uint8))
    path.write_bytes(path.read_bytes()[:-200])
    with pytest.raises(CardtallyError) as error:
        load_image(path)
    assert str(error.value) == "cut.png is truncated (the PNG data ends early); copy it again."


def test_png_with_bytes_after_its_end_loads(tmp_path: Path) -> None:
    # Some editors leave a few bytes after IEND; OpenCV and Pillow read such files.
    path = tmp_path / "tail.png"
    cv2.imwrite(str(path), _picture())
    path.write_bytes(path.read_bytes() + b"\x00\x00garbage\n")
    assert load_image(path).image_wh == (90, 60)


SAMPLE_CENTRE = Path(__file__).resolve().parents[2] / "samples" / "round1" / "centre.jpg"


def _damaged_jpeg(path: Path) -> None:
    # The scan's middle third is lost but the end marker is still there: libjpeg decodes it
    # (with made-up pixels) and only says "Corrupt JPEG data" on stderr.
    data = SAMPLE_CENTRE.read_bytes()
    path.write_bytes(data[: len(data) // 3] + data[2 * len(data) // 3 :])


def _damaged_png(path: Path) -> None:
    cv2.imwrite(str(path), _picture())
    data = bytearray(path.read_bytes())
    data[data.index(b"IDAT") + 8] ^= 0xFF  # a pixel byte: the chunk's checksum no longer holds
    path.write_bytes(bytes(data))


def _damaged_png_right_checksum(path: Path) -> None:
    _damaged_png(path)
    data = bytearray(path.read_bytes())
    start = data.index(b"IDAT")
    length = int.from_bytes(data[start - 4 : start], "big")
    crc = zlib.crc32(bytes(data[start : start + 4 + length]))
    data[start + 4 + length : start + 8 + length] = crc.to_bytes(4, "big")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("scan.jpg", _damaged_jpeg, "scan.jpg is damaged (the JPEG data is corrupt); copy it again."),
        ("crc.png", _damaged_png, "crc.png is damaged (the PNG data is corrupt); copy it again."),
        ("zlib.png", _damaged_png_right_checksum, "zlib.png is damaged (the PNG data is corrupt); copy it again."),
    ],
)
def test_damaged_photo_is_refused_without_decoder_lines(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], name: str, make, message: str
) -> None:
    path = tmp_path / name
    make(path)
    with pytest.raises(CardtallyError) as error:
        load_image(path)
    assert str(error.value) == message
    assert capfd.readouterr().err == ""


def test_other_output_while_decoding_still_reaches_stderr(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # While a photo is decoded stderr is diverted; what is not the decoder's goes back to it.
    with decoder_messages() as report:
        os.write(2, b"centre: centre.jpg: 32 cards\nlibpng warning: iCCP: known incorrect sRGB profile\n")
    assert report.lines == ["libpng warning: iCCP: known incorrect sRGB profile"]
    assert not report.png_error and not report.jpeg_corrupt
    assert capfd.readouterr().err == "centre: centre.jpg: 32 cards\n"


HEIC = Path(__file__).resolve().parents[1] / "assets" / "phone.heic"


def test_heic_photo_loads_upright(tmp_path: Path) -> None:
    # Made as an iPhone makes them: the pixels stored as the sensor saw them (90x60, left half
    # red), an `irot` box and EXIF orientation 6 saying to turn them clockwise. Turned once,
    # not twice: the red half is at the top.
    pytest.importorskip("pillow_heif")
    image = load_image(HEIC)
    assert image.bgr.dtype == np.uint8
    assert image.image_wh == (60, 90)
    assert image.bgr[5, 30, 2] > 200 and image.bgr[-5, 30, 2] < 60


def test_heic_without_pillow_heif_says_how_to_read_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pillow_heif", None)  # import fails as when not installed
    with pytest.raises(CardtallyError) as error:
        load_image(HEIC)
    assert str(error.value) == (
        "phone.heic is a HEIC photo; to read it, install HEIC support into cardtally's "
        "environment (pip install pillow-heif), or take JPEG photos (iPhone: Settings > Camera "
        "> Formats > Most Compatible).")


def test_truncated_heic_is_reported_as_damaged(tmp_path: Path) -> None:
    pytest.importorskip("pillow_heif")
    path = tmp_path / "cut.heic"
    path.write_bytes(HEIC.read_bytes()[:500])
    with pytest.raises(CardtallyError) as error:
        load_image(path)
    assert str(error.value) == "cut.heic is a damaged or truncated HEIC photo; copy it again."


def test_a_video_is_not_taken_for_a_heif_photo(tmp_path: Path) -> None:
    path = tmp_path / "clip.jpg"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 200)
    with pytest.raises(CardtallyError) as error:
        load_image(path)
    assert str(error.value) == "clip.jpg is not an image cardtally can read (JPEG, PNG, ...)."


def test_huge_heic_is_refused_before_decoding(monkeypatch) -> None:
    pytest.importorskip("pillow_heif")
    monkeypatch.setattr(load, "MAX_IMAGE_PIXELS", 5_000)  # 60x90 is 5,400
    monkeypatch.setattr(load, "decode_heic", lambda *_: pytest.fail("decoded a refused photo"))
    with pytest.raises(CardtallyError) as error:
        load.load_image(HEIC)
    assert str(error.value) == ("phone.heic is 60x90 pixels, too large to process safely "
                                "(limit 0 megapixels); resize it first.")


def test_avif_this_opencv_cannot_read_is_named(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "photo.avif"
    path.write_bytes(b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + b"\x00" * 200)
    monkeypatch.setattr(load.cv2, "imdecode", lambda *_: None)
    with pytest.raises(CardtallyError) as error:
        load.load_image(path)
    assert str(error.value) == ("photo.avif is an AVIF image, which this installation's OpenCV "
                                "cannot read; save it as JPEG or PNG.")


def test_large_jpeg_is_decoded_at_reduced_size(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(load, "REDUCED_DECODE_LONG_SIDE_PX", 100)  # 400 px is 4 x 100
    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), _picture(300, 400))
    image = load.load_image(path)
    assert image.image_wh == (100, 75)
    assert image.photo_wh == (400, 300)
    assert image.bgr[30, 10, 2] > 200 and image.bgr[30, 90, 2] < 60


def test_reduced_decode_turns_as_exif_says(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(load, "REDUCED_DECODE_LONG_SIDE_PX", 150)  # 400 px: decoded at 1/2
    path = tmp_path / "phone.jpg"
    jpeg_with_exif_orientation(path, _picture(300, 400), orientation=6)
    image = load.load_image(path)
    assert image.image_wh == (150, 200)
    assert image.photo_wh == (300, 400)
    assert image.bgr[5, 75, 2] > 200 and image.bgr[-5, 75, 2] < 60


def test_a_photo_decoded_whole_is_its_own_size(tmp_path: Path) -> None:
    path = tmp_path / "plain.jpg"
    cv2.imwrite(str(path), _picture())
    image = load_image(path)
    assert image.full_wh is None and image.photo_wh == image.image_wh == (90, 60)
