"""``cardtally snap``: take one sharp photo of the cards with a webcam or a phone's camera stream."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import cv2
import numpy as np
import typer

from ..capture.camera import (
    DEFAULT_BURST_FRAMES,
    CameraStream,
    ensure_out_dir,
    grab_sharpest,
    open_camera,
    save_snapshot,
    sharpness,
)
from ..errors import CardtallyError
from .app import app

MAX_BURST_FRAMES = 300
#: Below this long side a 60 cm layout gives under ~1 px/mm: finger-width strips get too thin.
LOW_RESOLUTION_LONG_SIDE_PX = 1280
PREVIEW_WINDOW = "cardtally snap - Space or Enter: take the photo, Esc or q: cancel"
PREVIEW_LONG_SIDE_PX = 1280
_TAKE_KEYS = {ord(" "), 13, 10}
_CANCEL_KEYS = {27, ord("q"), ord("Q")}


def has_display() -> bool:
    """Whether a window can be shown: on Linux and the BSDs only with an X11 or Wayland display.

    Checked before touching the GUI because OpenCV's Qt backend aborts the whole process when it
    cannot reach a display.
    """
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _preview_frame(bgr: np.ndarray) -> np.ndarray:
    height, width = bgr.shape[:2]
    scale = min(1.0, PREVIEW_LONG_SIDE_PX / max(width, height))
    view = cv2.resize(
        bgr, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA
    )
    # The live sharpness number helps to hold still and to wait for the autofocus.
    text = f"{width}x{height}  sharpness {sharpness(bgr):.0f}"
    for colour, thickness in (((0, 0, 0), 4), ((255, 255, 255), 1)):
        cv2.putText(
            view, text, (10, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, thickness, cv2.LINE_AA
        )
    return view


def _preview_until_key(stream: CameraStream) -> bool:
    """Show the live picture until the user takes the photo (True) or cancels (False)."""
    try:
        cv2.namedWindow(PREVIEW_WINDOW, cv2.WINDOW_NORMAL)
    except cv2.error:
        typer.echo(
            "This OpenCV has no window support; taking the photo without a preview.", err=True
        )
        return True
    typer.echo(
        "Preview open: press Space or Enter to take the photo, Esc or q to cancel.", err=True
    )
    try:
        while True:
            bgr = stream.read()
            if bgr is None:  # the end of a video file: take what is left
                return True
            cv2.imshow(PREVIEW_WINDOW, _preview_frame(bgr))
            key = cv2.waitKey(1) & 0xFF
            if key in _TAKE_KEYS:
                return True
            if (
                key in _CANCEL_KEYS
                or cv2.getWindowProperty(PREVIEW_WINDOW, cv2.WND_PROP_VISIBLE) < 1
            ):
                return False
    finally:
        cv2.destroyWindow(PREVIEW_WINDOW)
        cv2.waitKey(1)  # let the GUI loop actually close the window


@app.command("snap")
def snap(
    camera: Annotated[
        str,
        typer.Option(
            "--camera",
            "-c",
            help="Camera number (0 is the first webcam), a phone camera stream URL such as "
            "http://192.168.1.5:8080/video, or a video file.",
        ),
    ] = "0",
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for the photo (created if missing).")
    ] = Path("."),
    frames: Annotated[
        int,
        typer.Option(
            "--frames",
            "-n",
            min=1,
            max=MAX_BURST_FRAMES,
            help="Frames in the burst; the sharpest one is kept.",
        ),
    ] = DEFAULT_BURST_FRAMES,
    preview: Annotated[
        bool,
        typer.Option("--preview", help="Show the live picture first; Space takes the photo."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the photo's path, size and sharpness as JSON.")
    ] = False,
) -> None:
    """Take a photo: keep the sharpest frame of a short burst, save it as snap-DATE-TIME.jpg
    and print its path."""
    ensure_out_dir(out)
    if preview and not has_display():
        typer.echo(
            "No display found (DISPLAY and WAYLAND_DISPLAY are unset); taking the photo without a preview.",
            err=True,
        )
        preview = False
    with open_camera(camera) as stream:
        if preview and not _preview_until_key(stream):
            raise CardtallyError("Cancelled; no photo was taken.")
        frame = grab_sharpest(stream, frames=frames)
    path = save_snapshot(frame.bgr, out)
    height, width = frame.bgr.shape[:2]
    typer.echo(
        f"Kept frame {frame.index} ({width}x{height} px, sharpness {frame.sharpness:.0f}).",
        err=True,
    )
    if max(width, height) < LOW_RESOLUTION_LONG_SIDE_PX:
        typer.echo(
            f"Warning: {width}x{height} px is low for counting cards; use a phone's camera "
            "stream or a better camera, or photograph a smaller layout.",
            err=True,
        )
    if as_json:
        typer.echo(json.dumps({"path": str(path), "width": width, "height": height,
                               "frame": frame.index, "sharpness": round(frame.sharpness, 1)}))
    else:
        typer.echo(str(path))
