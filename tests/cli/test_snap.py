"""``cardtally snap`` with a video file standing in for the camera."""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from cardtally.capture.camera import sharpness
from cardtally.cli import app

runner = CliRunner()
SHARP_INDEX = 2


def write_burst_video(path: Path, n_frames: int = 6) -> Path:
    """An MJPG .avi of 160x120 frames, all blurred except frame ``SHARP_INDEX``."""
    base = np.full((120, 160, 3), 90, np.uint8)
    for i in range(8):
        cv2.rectangle(
            base,
            (12 + 17 * i, 10 + 9 * i),
            (30 + 17 * i, 50 + 9 * i),
            (40 * i, 200, 255 - 30 * i),
            -1,
        )
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (160, 120))
    for i in range(n_frames):
        blurred = cv2.GaussianBlur(base, (0, 0), 1.0 + abs(i - SHARP_INDEX))
        writer.write(base if i == SHARP_INDEX else blurred)
    writer.release()
    return path


@pytest.fixture
def burst_video(tmp_path: Path) -> Path:
    return write_burst_video(tmp_path / "burst.avi")


def test_snap_saves_the_sharpest_frame_and_prints_its_path(burst_video: Path, tmp_path: Path):
    out = tmp_path / "photos"
    result = runner.invoke(
        app, ["snap", "--camera", str(burst_video), "--out", str(out), "-n", "6"]
    )
    assert result.exit_code == 0, result.output
    saved = Path(result.stdout.strip())
    assert saved.parent == out
    assert saved.name.startswith("snap-") and saved.suffix == ".jpg"
    assert result.stderr.startswith(f"Kept frame {SHARP_INDEX} (160x120 px, sharpness ")
    assert "Warning: 160x120 px is low for counting cards" in result.stderr
    video = cv2.VideoCapture(str(burst_video))
    frames = [video.read()[1] for _ in range(6)]
    video.release()
    best = max(range(6), key=lambda i: sharpness(frames[i]))
    assert best == SHARP_INDEX
    assert abs(sharpness(cv2.imread(str(saved))) - sharpness(frames[best])) < 0.2 * sharpness(
        frames[best]
    )


def test_snap_json(burst_video: Path, tmp_path: Path):
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "-o", str(tmp_path), "-n", "6",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert Path(data["path"]).parent == tmp_path and Path(data["path"]).is_file()
    assert (data["width"], data["height"], data["frame"]) == (160, 120, SHARP_INDEX)
    assert data["sharpness"] == pytest.approx(sharpness(cv2.imread(data["path"])), rel=0.2)


def test_snap_twice_in_one_second_keeps_both(burst_video: Path, tmp_path: Path):
    args = ["snap", "-c", str(burst_video), "-o", str(tmp_path), "-n", "2"]
    paths = {runner.invoke(app, args).stdout.strip() for _ in range(3)}
    assert len(paths) == 3 and all(Path(p).is_file() for p in paths)


def test_snap_missing_camera(tmp_path: Path):
    started = time.monotonic()
    result = runner.invoke(app, ["snap", "--camera", "9", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr == "Error: Camera 9 is not available (no such device or it is in use).\n"
    assert result.stdout == ""
    assert time.monotonic() - started < 5.0


def test_snap_dead_url(tmp_path: Path):
    started = time.monotonic()
    result = runner.invoke(
        app, ["snap", "--camera", "http://127.0.0.1:9/video", "-o", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: Cannot open the camera stream http://127.0.0.1:9/video: connection refused "
        "(is the camera app running, and is the port right?).\n"
    )
    assert time.monotonic() - started < 5.0


@pytest.mark.parametrize("frames", ["0", "-1", "301", "many"])
def test_snap_bad_frame_count_is_a_usage_error(frames: str, burst_video: Path):
    result = runner.invoke(app, ["snap", "--camera", str(burst_video), "--frames", frames])
    assert result.exit_code == 2
    assert "--frames" in result.stderr


def test_snap_out_is_a_file(burst_video: Path, tmp_path: Path):
    blocker = tmp_path / "photos.jpg"
    blocker.write_bytes(b"")
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "--out", str(blocker)])
    assert result.exit_code == 1
    assert result.stderr == f"Error: Cannot save the photo: {blocker} is a file, not a folder.\n"


def test_snap_out_cannot_be_created(burst_video: Path, tmp_path: Path):
    blocker = tmp_path / "photos.jpg"
    blocker.write_bytes(b"")
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "--out", str(blocker / "sub")])
    assert result.exit_code == 1
    assert result.stderr == f"Error: Cannot create the folder {blocker / 'sub'}: Not a directory.\n"


def test_snap_preview_without_display_takes_the_photo_anyway(
    burst_video: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "-o", str(tmp_path), "--preview"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        "No display found (DISPLAY and WAYLAND_DISPLAY are unset); "
        "taking the photo without a preview.\n"
    )
    assert Path(result.stdout.strip()).is_file()


class FakeWindow:
    """Stands in for OpenCV's window functions; ``keys`` are what the user presses."""

    def __init__(self, keys: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
        self.keys, self.shown = list(keys), 0
        monkeypatch.setattr("cardtally.cli.snap.has_display", lambda: True)
        monkeypatch.setattr(cv2, "namedWindow", lambda *a: None)
        monkeypatch.setattr(cv2, "imshow", self.imshow)
        monkeypatch.setattr(cv2, "waitKey", lambda *a: self.keys.pop(0) if self.keys else -1)
        monkeypatch.setattr(cv2, "getWindowProperty", lambda *a: 1.0)
        monkeypatch.setattr(cv2, "destroyWindow", lambda *a: None)

    def imshow(self, name: str, image: np.ndarray) -> None:
        assert image.ndim == 3 and max(image.shape[:2]) <= 1280
        self.shown += 1


def test_preview_space_takes_the_photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    video = write_burst_video(tmp_path / "long.avi", n_frames=12)
    window = FakeWindow([-1, ord(" ")], monkeypatch)
    result = runner.invoke(
        app, ["snap", "-c", str(video), "-o", str(tmp_path), "--preview", "-n", "5"]
    )
    assert result.exit_code == 0, result.output
    assert window.shown == 2
    assert result.stderr.startswith(
        "Preview open: press Space or Enter to take the photo, Esc or q to cancel.\n"
    )
    assert Path(result.stdout.strip()).is_file()


def test_preview_escape_cancels(burst_video: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    FakeWindow([27], monkeypatch)
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "-o", str(tmp_path), "--preview"])
    assert result.exit_code == 1
    assert result.stderr.endswith("Error: Cancelled; no photo was taken.\n")
    assert result.stdout == ""
    assert not list(tmp_path.glob("snap-*.jpg"))


def test_preview_without_gui_support(
    burst_video: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def no_gui(*args: object) -> None:
        raise cv2.error("The function is not implemented")

    FakeWindow([], monkeypatch)
    monkeypatch.setattr(cv2, "namedWindow", no_gui)
    result = runner.invoke(app, ["snap", "-c", str(burst_video), "-o", str(tmp_path), "--preview"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        "This OpenCV has no window support; taking the photo without a preview.\n"
    )
