"""Camera capture without a camera: video files, a closed loopback port and a silent server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import cv2
import numpy as np
import pytest

from cardtally.capture.camera import (
    ensure_out_dir,
    grab_sharpest,
    open_camera,
    save_snapshot,
    sharpness,
    snap_photo,
)
from cardtally.errors import CardtallyError

SHARP_INDEX = 3
FRAME_WH = (160, 120)


def _textured_frame(seed: int = 0) -> np.ndarray:
    """Card-like rectangles with hard edges: plenty of Laplacian energy when sharp."""
    rng = np.random.default_rng(seed)
    image = np.full((FRAME_WH[1], FRAME_WH[0], 3), 90, np.uint8)
    for _ in range(12):
        x, y = int(rng.integers(0, 140)), int(rng.integers(0, 100))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        cv2.rectangle(image, (x, y), (x + 20, y + 30), colour, -1)
    return image


def write_burst_video(path: Path, n_frames: int = 6, sharp_index: int = SHARP_INDEX) -> Path:
    """An MJPG .avi whose frames are all blurred except ``sharp_index``."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, FRAME_WH)
    assert writer.isOpened()
    base = _textured_frame()
    for i in range(n_frames):
        # Blur grows with the distance from the sharp frame, so the ranking is unambiguous.
        sigma = 0 if i == sharp_index else 1.0 + abs(i - sharp_index)
        writer.write(base if sigma == 0 else cv2.GaussianBlur(base, (0, 0), sigma))
    writer.release()
    return path


@pytest.fixture
def burst_video(tmp_path: Path) -> Path:
    return write_burst_video(tmp_path / "burst.avi")


class LoopbackStream:
    """A phone-camera-app stand-in on 127.0.0.1: an MJPEG stream over HTTP, like IP Webcam's
    /video. It sends ``jpegs`` to every client, then hangs up or (``stall``) goes silent; with
    ``status`` other than 200 it answers with that error instead."""

    def __init__(self, jpegs: list[bytes], stall: bool = False, status: int = 200) -> None:
        self.jpegs, self.stall, self.status = jpegs, stall, status
        self.stop = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/video"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            try:
                if not conn.recv(4096):
                    return  # open_camera's connection probe
                if self.status != 200:
                    conn.sendall(b"HTTP/1.0 %d Nope\r\nContent-Length: 0\r\n\r\n" % self.status)
                    return
                conn.sendall(
                    b"HTTP/1.0 200 OK\r\n"
                    b"Content-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"
                )
                for jpeg in self.jpegs:
                    head = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                    conn.sendall(head % len(jpeg) + jpeg + b"\r\n")
                    time.sleep(0.02)
                if self.stall:
                    self.stop.wait(10)
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.server.close()


@pytest.fixture
def stream_jpegs() -> list[bytes]:
    base = _textured_frame()
    frames = [cv2.GaussianBlur(base, (0, 0), 2.0) for _ in range(12)]
    frames[6] = base
    return [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes() for f in frames]


@pytest.fixture
def loopback() -> Iterator[list[LoopbackStream]]:
    servers: list[LoopbackStream] = []
    yield servers
    for server in servers:
        server.close()


def test_sharpness_prefers_the_sharp_image():
    image = _textured_frame()
    assert sharpness(image) > 4 * sharpness(cv2.GaussianBlur(image, (0, 0), 2.0))
    assert sharpness(np.full((50, 50, 3), 128, np.uint8)) == 0.0


def test_grab_sharpest_picks_the_sharp_frame_of_a_video(burst_video: Path):
    with open_camera(str(burst_video)) as stream:
        assert stream.kind == "file" and not stream.is_live
        frame = grab_sharpest(stream, frames=6)
    assert frame.index == SHARP_INDEX
    assert frame.bgr.shape == (FRAME_WH[1], FRAME_WH[0], 3)
    assert frame.sharpness == pytest.approx(sharpness(frame.bgr))


def test_a_burst_longer_than_the_video_uses_the_frames_it_has(burst_video: Path):
    with open_camera(str(burst_video)) as stream:
        assert grab_sharpest(stream, frames=100).index == SHARP_INDEX


def test_a_burst_of_zero_frames_is_a_programming_error(burst_video: Path):
    with open_camera(str(burst_video)) as stream, pytest.raises(ValueError, match="frames"):
        grab_sharpest(stream, frames=0)


def test_missing_camera_index_fails_fast():
    started = time.monotonic()
    with pytest.raises(CardtallyError) as caught:
        open_camera("9")
    assert str(caught.value) == "Camera 9 is not available (no such device or it is in use)."
    assert time.monotonic() - started < 5.0


def test_closed_port_fails_fast():
    started = time.monotonic()
    with pytest.raises(CardtallyError) as caught:
        open_camera("http://127.0.0.1:9/video")
    assert str(caught.value) == (
        "Cannot open the camera stream http://127.0.0.1:9/video: connection refused "
        "(is the camera app running, and is the port right?)."
    )
    assert time.monotonic() - started < 3.0


def test_a_silent_stream_times_out():
    # A loopback server that accepts connections and never answers: the hang the watchdog is for.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        url = f"http://127.0.0.1:{port}/video"
        started = time.monotonic()
        with pytest.raises(CardtallyError) as caught:
            open_camera(url, timeout_s=1.0)
        elapsed_s = time.monotonic() - started
    assert str(caught.value) == f"Cannot open the camera stream {url}: no answer within 1 s."
    assert 0.9 < elapsed_s < 3.0


def test_a_phone_style_mjpeg_stream_gives_its_sharpest_frame(stream_jpegs, loopback, tmp_path):
    loopback.append(server := LoopbackStream(stream_jpegs))
    with open_camera(server.url, timeout_s=2.0) as stream:
        assert stream.kind == "url" and stream.is_live
        frame = grab_sharpest(stream, frames=8, settle_s=0.0)
    assert frame.sharpness > 2 * sharpness(cv2.GaussianBlur(_textured_frame(), (0, 0), 2.0))


@pytest.mark.parametrize(
    ("stall", "message"),
    [(False, "stopped sending pictures."), (True, "sent no picture within 1 s.")],
)
def test_a_stream_that_stops_mid_burst(stream_jpegs, loopback, stall: bool, message: str):
    loopback.append(server := LoopbackStream(stream_jpegs, stall=stall))
    started = time.monotonic()
    with open_camera(server.url, timeout_s=1.0) as stream, pytest.raises(CardtallyError) as caught:
        grab_sharpest(stream, frames=50, settle_s=0.0)
    assert str(caught.value) == f"The camera stream {server.url} {message}"
    assert time.monotonic() - started < 4.0


def test_a_url_that_answers_without_video(loopback):
    loopback.append(server := LoopbackStream([], status=404))
    with pytest.raises(CardtallyError) as caught:
        open_camera(server.url, timeout_s=2.0)
    assert str(caught.value) == (
        f"Cannot open the camera stream {server.url}: it answered but sent no video "
        "(check the path, e.g. /video)."
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "no-such-clip.avi",
            "No such camera or video file: no-such-clip.avi (use a camera number such as 0, "
            "or a stream URL such as http://192.168.1.5:8080/video).",
        ),
        (
            "http://127.0.0.1:notaport/video",
            "Cannot open the camera stream "
            "http://127.0.0.1:notaport/video: the port is not a number.",
        ),
    ],
)
def test_bad_sources(source: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CardtallyError) as caught:
        open_camera(source)
    assert str(caught.value) == message


def test_a_file_that_is_not_a_video(tmp_path: Path):
    text = tmp_path / "notes.txt"
    text.write_text("not a video")
    with pytest.raises(CardtallyError) as caught:
        open_camera(str(text))
    assert str(caught.value) == f"{text} is not a video file cardtally can read."


def test_save_snapshot_names_by_time_and_never_overwrites(tmp_path: Path):
    image = _textured_frame()
    when = datetime(2024, 5, 17, 21, 4, 9)
    first = save_snapshot(image, tmp_path / "photos", now=when)
    second = save_snapshot(image, tmp_path / "photos", now=when)
    assert first.name == "snap-20240517-210409.jpg"
    assert second.name == "snap-20240517-210409-2.jpg"
    decoded = cv2.imread(str(first))
    assert decoded.shape == image.shape
    assert np.abs(decoded.astype(int) - image).mean() < 3  # quality 95: close to the original


def test_out_dir_that_is_a_file(tmp_path: Path):
    blocker = tmp_path / "photos"
    blocker.write_text("")
    with pytest.raises(CardtallyError) as caught:
        ensure_out_dir(blocker)
    assert str(caught.value) == f"Cannot save the photo: {blocker} is a file, not a folder."
    with pytest.raises(CardtallyError) as caught:
        ensure_out_dir(blocker / "sub")
    assert str(caught.value) == f"Cannot create the folder {blocker / 'sub'}: Not a directory."


def test_snap_photo_prompts_without_waiting_when_not_a_terminal(
    burst_video: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = snap_photo(
        str(burst_video),
        tmp_path / "out",
        frames=6,
        prompt="Photograph the centre cards, then press Enter",
    )
    assert path.parent == tmp_path / "out" and path.suffix == ".jpg"
    assert capsys.readouterr().err == "Photograph the centre cards, then press Enter\n"
    assert sharpness(cv2.imread(str(path))) > 0.5 * sharpness(_textured_frame())
