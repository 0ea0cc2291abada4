"""Take one sharp photo from a webcam, a phone's camera stream or a video file.

``open_camera`` opens the source behind a watchdog (a worker thread with a deadline) because
OpenCV's capture backends can block for a long time on a dead stream; ``grab_sharpest`` reads a
short burst and keeps the frame with the highest variance of the Laplacian (hand shake and
autofocus hunting blur some frames of every burst); ``save_snapshot`` writes it as a JPEG without
ever overwriting a file.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import cv2
import numpy as np

from ..errors import CardtallyError

DEFAULT_TIMEOUT_S = 5.0
DEFAULT_BURST_FRAMES = 10
#: Live cameras need a moment for auto exposure, and the frames already queued in the driver or
#: the network buffer are stale: read and drop frames for this long before the burst.
LIVE_SETTLE_S = 0.5
SNAPSHOT_JPEG_QUALITY = 95
#: Ask webcams for this much; the driver answers with the nearest size it supports (V4L2 would
#: otherwise deliver 640x480, too coarse for finger-width card strips).
REQUESTED_CAMERA_WH = (3840, 2160)
_DEFAULT_PORTS = {"http": 80, "https": 443, "rtsp": 554, "rtmp": 1935}


@dataclass
class CameraStream:
    """An open capture source; use as a context manager or call :meth:`close`.

    ``kind`` is ``"camera"`` (a device index), ``"url"`` (a network stream) or ``"file"``.
    """

    source: str
    kind: str
    capture: Any  # cv2.VideoCapture
    timeout_s: float = DEFAULT_TIMEOUT_S
    _busy: bool = False  # a read outlived its deadline: the worker thread still owns `capture`

    @property
    def is_live(self) -> bool:
        """A webcam or network stream (it needs settling time), not a video file."""
        return self.kind != "file"

    @property
    def label(self) -> str:
        """How messages name this source ("Camera 0", "The camera stream http://...")."""
        if self.kind == "camera":
            return f"Camera {self.source}"
        if self.kind == "url":
            return f"The camera stream {self.source}"
        return f"The video file {self.source}"

    def read(self) -> np.ndarray | None:
        """The next frame (BGR uint8), or ``None`` at the end of a video file.

        A live source that fails or stays silent past ``timeout_s`` raises
        :class:`CardtallyError`.
        """
        if self._busy:
            raise CardtallyError(f"{self.label} stopped sending pictures.")
        done, result = _call_with_deadline(
            self.capture.read, self.timeout_s, on_late=lambda _: self.capture.release()
        )
        if not done:
            self._busy = True  # the late worker releases the capture itself
            raise CardtallyError(f"{self.label} sent no picture within {self.timeout_s:g} s.")
        ok, frame = result
        if not ok or frame is None:
            if self.is_live:
                raise CardtallyError(f"{self.label} stopped sending pictures.")
            return None
        return frame

    def close(self) -> None:
        """Release the device or stream (safe to call twice)."""
        if not self._busy:
            self.capture.release()

    def __enter__(self) -> CameraStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class Frame:
    """The kept frame of a burst: ``index`` counts frames read since the burst started."""

    bgr: np.ndarray
    sharpness: float
    index: int


def _call_with_deadline(
    fn: Callable[[], Any], timeout_s: float, on_late: Callable[[Any], None]
) -> tuple[bool, Any]:
    """Run ``fn()`` in a daemon thread; return ``(True, result)`` or ``(False, None)`` on timeout.

    A native call cannot be interrupted, so on timeout the thread is abandoned and
    ``on_late(result)`` runs when it finally returns (to release what it opened). An exception
    raised by ``fn`` is re-raised here, in the caller's thread.
    """
    lock = threading.Lock()
    state: dict[str, Any] = {}

    def work() -> None:
        try:
            result: Any = fn()
            failure: BaseException | None = None
        except Exception as exc:  # handed over to the caller's thread, re-raised there
            result, failure = None, exc
        with lock:
            if state.get("abandoned"):
                if failure is None:
                    on_late(result)
                return
            state["result"], state["failure"] = result, failure

    worker = threading.Thread(target=work, name="cardtally-camera", daemon=True)
    with _native_stderr_silenced():
        worker.start()
        worker.join(timeout_s)
    with lock:
        if "result" not in state:
            state["abandoned"] = True
            return False, None
    if state["failure"] is not None:
        raise state["failure"]
    return True, state["result"]


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Mute OpenCV's and FFmpeg's own stderr chatter; the user gets one clear error instead.

    Both libraries write straight to file descriptor 2, below Python's ``sys.stderr``.
    """
    try:
        sys.stderr.flush()
        saved_fd = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved_fd, 2)
        os.close(saved_fd)
        os.close(devnull)


def _source_kind(source: str) -> str:
    if source.isdecimal():
        return "camera"
    if "://" in source:
        return "url"
    return "file"


def _probe_url(url: str, timeout_s: float) -> None:
    """Connect to the stream's host and port first: this tells a refused port, an unknown host
    and a silent address apart, which FFmpeg reports all alike."""
    parts = urlsplit(url)
    port_default = _DEFAULT_PORTS.get(parts.scheme.lower())
    if not parts.hostname or port_default is None:
        return  # udp://, file:// ...: nothing to connect to
    try:
        port = parts.port or port_default
    except ValueError:
        raise CardtallyError(
            f"Cannot open the camera stream {url}: the port is not a number."
        ) from None
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout_s):
            pass
    except socket.gaierror:
        raise CardtallyError(
            f"Cannot open the camera stream {url}: unknown host {parts.hostname}."
        ) from None
    except TimeoutError:
        raise CardtallyError(
            f"Cannot open the camera stream {url}: no answer within {timeout_s:g} s."
        ) from None
    except ConnectionRefusedError:
        raise CardtallyError(
            f"Cannot open the camera stream {url}: connection refused "
            "(is the camera app running, and is the port right?)."
        ) from None
    except OSError as exc:
        raise CardtallyError(f"Cannot open the camera stream {url}: {exc.strerror}.") from None


def _open_capture(source: str, kind: str, timeout_s: float) -> Any:
    """Build the ``cv2.VideoCapture`` (runs in the watchdog's worker thread)."""
    if kind == "camera":
        capture = cv2.VideoCapture(int(source), cv2.CAP_ANY)
        if capture.isOpened():
            # Best effort: backends ignore what they do not support.
            capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, REQUESTED_CAMERA_WH[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, REQUESTED_CAMERA_WH[1])
            capture.set(cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_s * 1000)
        return capture
    if kind == "url":
        # FFmpeg's own timeouts sit a little past the watchdog's, so that the watchdog speaks
        # first and the abandoned worker still ends (and frees the socket) soon after.
        native_ms = int((timeout_s + 1.0) * 1000)
        params = [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
            native_ms,
            cv2.CAP_PROP_READ_TIMEOUT_MSEC,
            native_ms,
        ]
        return cv2.VideoCapture(source, cv2.CAP_FFMPEG, params)
    return cv2.VideoCapture(source, cv2.CAP_ANY)


def open_camera(source: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> CameraStream:
    """Open a webcam by index ("0".."9"), a network stream by URL, or a video file by path.

    Raises :class:`CardtallyError` within about ``timeout_s`` when the source is missing, busy,
    refuses the connection or stays silent.
    """
    source = source.strip()
    kind = _source_kind(source)
    deadline = time.monotonic() + timeout_s
    if kind == "file" and not Path(source).is_file():
        raise CardtallyError(
            f"No such camera or video file: {source} (use a camera number such as 0, or a "
            "stream URL such as http://192.168.1.5:8080/video)."
        )
    if kind == "url":
        _probe_url(source, timeout_s)
    remaining_s = max(0.5, deadline - time.monotonic())
    done, capture = _call_with_deadline(
        lambda: _open_capture(source, kind, timeout_s),
        remaining_s,
        on_late=lambda late: late.release(),
    )
    if not done:
        if kind == "camera":
            raise CardtallyError(
                f"Camera {source} did not answer within {timeout_s:g} s "
                "(is another program using it?)."
            )
        raise CardtallyError(
            f"Cannot open the camera stream {source}: no answer within {timeout_s:g} s."
        )
    if not capture.isOpened():
        capture.release()
        if kind == "camera":
            raise CardtallyError(
                f"Camera {source} is not available (no such device or it is in use)."
            )
        if kind == "url":
            raise CardtallyError(
                f"Cannot open the camera stream {source}: it answered but sent no video "
                "(check the path, e.g. /video)."
            )
        raise CardtallyError(f"{source} is not a video file cardtally can read.")
    return CameraStream(source=source, kind=kind, capture=capture, timeout_s=timeout_s)


def sharpness(bgr: np.ndarray) -> float:
    """Focus measure: variance of the Laplacian of the grey image (higher is sharper)."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    return float(cv2.Laplacian(grey, cv2.CV_64F).var())


def grab_sharpest(
    stream: CameraStream, frames: int = DEFAULT_BURST_FRAMES, settle_s: float | None = None
) -> Frame:
    """Read ``frames`` frames and return the sharpest.

    Live sources first drop frames for ``settle_s`` (default :data:`LIVE_SETTLE_S`; 0 for files).
    A video file shorter than the burst gives the best of the frames it has.
    """
    if frames < 1:
        raise ValueError(f"frames must be >= 1, got {frames}")
    if settle_s is None:
        settle_s = LIVE_SETTLE_S if stream.is_live else 0.0
    index = 0
    settle_until = time.monotonic() + settle_s
    while time.monotonic() < settle_until:
        if stream.read() is None:
            break
        index += 1
    best: Frame | None = None
    for _ in range(frames):
        bgr = stream.read()
        if bgr is None:
            break
        score = sharpness(bgr)
        if best is None or score > best.sharpness:
            best = Frame(bgr=bgr, sharpness=score, index=index)
        index += 1
    if best is None:
        raise CardtallyError(f"{stream.label} holds no frames.")
    return best


def _snapshot_names(now: datetime) -> Iterator[str]:
    stem = f"snap-{now:%Y%m%d-%H%M%S}"
    yield f"{stem}.jpg"
    for n in range(2, 1000):
        yield f"{stem}-{n}.jpg"


def ensure_out_dir(out_dir: str | Path) -> Path:
    """Create ``out_dir`` if needed and check it is a writable folder; return it.

    Commands call this before opening the camera, so a bad ``--out`` fails before the shot.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise CardtallyError(f"Cannot save the photo: {out_dir} is a file, not a folder.")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CardtallyError(f"Cannot create the folder {out_dir}: {exc.strerror}.") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise CardtallyError(f"Cannot save the photo in {out_dir}: the folder is not writable.")
    return out_dir


def save_snapshot(bgr: np.ndarray, out_dir: str | Path, now: datetime | None = None) -> Path:
    """Write ``bgr`` as ``snap-YYYYmmdd-HHMMSS.jpg`` (JPEG quality 95) into ``out_dir``.

    The folder is created if needed. An existing file is never overwritten: the name gets a
    ``-2``, ``-3`` ... suffix instead. Returns the path written.
    """
    folder = ensure_out_dir(out_dir)
    ok, encoded = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, SNAPSHOT_JPEG_QUALITY])
    if not ok:
        raise ValueError("OpenCV could not encode the frame as JPEG")
    for name in _snapshot_names(now or datetime.now()):
        path = folder / name
        try:
            # O_EXCL claims the name atomically: a file appearing meanwhile is not overwritten.
            fd = os.open(
                path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o644
            )
        except FileExistsError:
            continue
        except OSError as exc:
            raise CardtallyError(f"Cannot save the photo in {folder}: {exc.strerror}.") from None
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(encoded.tobytes())
        except OSError as exc:
            path.unlink(missing_ok=True)
            raise CardtallyError(f"Cannot save the photo {path}: {exc.strerror}.") from None
        return path
    raise CardtallyError(f"Cannot save the photo in {folder}: too many snapshots this second.")


def snap_photo(
    source: str,
    out_dir: str | Path,
    frames: int = DEFAULT_BURST_FRAMES,
    prompt: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Path:
    """Take one photo for a command such as ``score --snap``; return the saved path.

    The folder and the camera are checked first, so they fail before the user is asked anything.
    ``prompt`` (e.g. "Photograph the centre cards, then press Enter") goes to stderr; the
    function waits for Enter only when stdin is a terminal, so scripts never block.
    """
    ensure_out_dir(out_dir)
    with open_camera(source, timeout_s=timeout_s) as stream:
        if prompt:
            print(prompt, file=sys.stderr, flush=True)
            if sys.stdin is not None and sys.stdin.isatty():
                sys.stdin.readline()
        frame = grab_sharpest(stream, frames=frames)
    return save_snapshot(frame.bgr, out_dir)
