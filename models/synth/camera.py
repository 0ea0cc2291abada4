"""Camera geometry: a pinhole camera over the table plane plus slight radial lens distortion.

Rendering happens in an undistorted "canvas" (the output size plus a margin); one remap then
applies the lens distortion to the colour image (bilinear) and to the card-id buffer
(nearest-neighbour) with the same maps, so labels stay exact after the warp. Label points (card
corners) go through :meth:`Camera.project_mm`, the same chain in closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Camera:
    """Table plane (mm) -> output image (px).

    canvas_H: 3x3 homography from table mm to undistorted canvas pixels.
    margin_px: canvas border on each side (the canvas is image_wh + 2 * margin).
    k1: radial distortion, r normalised by the half diagonal; > 0 barrel, < 0 pincushion.
    """

    image_wh: tuple[int, int]
    canvas_H: np.ndarray
    margin_px: int
    k1: float
    params: dict

    @property
    def canvas_wh(self) -> tuple[int, int]:
        """The canvas size: the image plus the lens-distortion margin on every side."""
        return self.image_wh[0] + 2 * self.margin_px, self.image_wh[1] + 2 * self.margin_px

    def _centre_norm(self) -> tuple[float, float, float]:
        w, h = self.image_wh
        return (w - 1) / 2, (h - 1) / 2, math.hypot(w, h) / 2

    def canvas_to_image(self, pts_xy: np.ndarray) -> np.ndarray:
        """Undistorted canvas px -> output px (inverts the remap's radial model)."""
        cx, cy, rn = self._centre_norm()
        p = np.asarray(pts_xy, np.float64) - self.margin_px
        d = (p - (cx, cy)) / rn
        rs = np.hypot(d[..., 0], d[..., 1])
        r = rs.copy()
        for _ in range(8):  # fixed point of r * (1 + k1 r^2) = rs, converges for small k1
            r = rs / (1 + self.k1 * r * r)
        scale = np.where(rs > 1e-12, r / np.maximum(rs, 1e-12), 1.0)
        return d * scale[..., None] * rn + (cx, cy)

    def project_mm(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table mm (..., 2) -> output image px (..., 2)."""
        return self.canvas_to_image(to_canvas(self.canvas_H, pts_mm))

    def remap_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Maps for ``cv2.remap`` (output pixel -> canvas pixel); None without distortion.

        The maps are smooth, so they are evaluated on a grid every 8 px and interpolated
        (error < 0.01 px); colour and ids use the very same maps.
        """
        if self.k1 == 0.0:
            return None
        w, h = self.image_wh
        cx, cy, rn = self._centre_norm()
        step = 8
        gw, gh = (w - 1) // step + 2, (h - 1) // step + 2
        y, x = np.mgrid[0:gh, 0:gw].astype(np.float64) * step
        dx, dy = (x - cx) / rn, (y - cy) / rn
        f = 1 + self.k1 * (dx * dx + dy * dy)
        mx = (dx * f * rn + cx + self.margin_px).astype(np.float32)
        my = (dy * f * rn + cy + self.margin_px).astype(np.float32)
        # resize maps grid points k*step onto pixel k*step exactly (align corners)
        big = ((gw - 1) * step + 1, (gh - 1) * step + 1)
        mx = _resize_aligned(mx, big)[:h, :w]
        my = _resize_aligned(my, big)[:h, :w]
        return np.ascontiguousarray(mx), np.ascontiguousarray(my)

    def apply(self, canvas: np.ndarray, maps) -> np.ndarray:
        """Canvas (colour) -> output image through the lens, bilinear."""
        if maps is None:
            m = self.margin_px
            w, h = self.image_wh
            return canvas[m:m + h, m:m + w].copy()
        return cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)


def _resize_aligned(grid: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    """Bilinear upsampling that maps the corner samples onto the corner pixels."""
    gh, gw = grid.shape
    w, h = size_wh
    M = np.array([[(w - 1) / (gw - 1), 0, 0], [0, (h - 1) / (gh - 1), 0]], np.float64)
    return cv2.warpAffine(grid, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def to_canvas(H: np.ndarray, pts_mm: np.ndarray) -> np.ndarray:
    """Table points (mm) mapped to canvas pixels by the homography ``H``."""
    p = np.asarray(pts_mm, np.float64)
    q = p @ H[:, :2].T + H[:, 2]
    return q[..., :2] / q[..., 2:3]


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def make_camera(
    rng: np.random.Generator,
    image_wh: tuple[int, int],
    bbox_mm: np.ndarray,
    tilt_deg: tuple[float, float] = (0.0, 35.0),
    fill: float | None = None,
    px_per_mm: float | None = None,
    distortion: float = 0.04,
    hfov_deg: tuple[float, float] = (55.0, 75.0),
) -> Camera:
    """A random camera that looks at the layout ``bbox_mm`` (x0, y0, x1, y1).

    ``fill``: fraction of the image the layout spans (random by default, > 1 crops it).
    ``px_per_mm``: fixed scale at the image centre instead (used for fixed card sizes).
    ``hfov_deg``: the horizontal field of view's range; phones and webcams by default, a few
    degrees for an image that stands for a crop of a large photo.
    """
    w, h = image_wh
    hfov = math.radians(rng.uniform(*hfov_deg))
    f = (max(w, h) / 2) / math.tan(hfov / 2)
    tilt = math.radians(rng.uniform(*tilt_deg))
    centre = np.array([(bbox_mm[0] + bbox_mm[2]) / 2, (bbox_mm[1] + bbox_mm[3]) / 2])
    ext = np.array([bbox_mm[2] - bbox_mm[0], bbox_mm[3] - bbox_mm[1]])
    if rng.random() < 0.7:
        # people frame the cards: the layout's long side mostly along the photo's long side
        aligned = 0.0 if (ext[0] >= ext[1]) == (w >= h) else math.pi / 2
        rot = aligned + math.pi * int(rng.integers(2)) + rng.normal(0, math.radians(20))
    else:
        rot = rng.uniform(0, 2 * math.pi)
    R = _rx(-tilt) @ _rz(rot)  # minus: the top of the photo is the far side of the table
    # the layout's extent along the image axes after the in-plane rotation
    c, s = abs(math.cos(rot)), abs(math.sin(rot))
    ext_img = np.array([ext[0] * c + ext[1] * s, ext[0] * s + ext[1] * c * math.cos(tilt)])
    if px_per_mm is None:
        fill = rng.uniform(0.75, 1.3) if fill is None else fill
        px_per_mm = fill * min(w / max(ext_img[0], 1), h / max(ext_img[1], 1))
    d = f / px_per_mm
    if fill is None and px_per_mm is not None:  # fixed scale: a crop anywhere in the layout
        pan = rng.uniform(-0.4, 0.4, 2) * ext
    else:
        pan = rng.normal(0, 0.06 if fill <= 1 else 0.15, 2) * ext
    target = centre + pan
    t = -R @ np.array([target[0], target[1], 0.0]) + np.array([0, 0, d])
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]])
    H = K @ np.column_stack([R[:, 0], R[:, 1], t])
    k1 = float(rng.uniform(-distortion, distortion))
    if abs(k1) < 0.002:  # below a tenth of a pixel or so: skip the remap entirely
        k1 = 0.0
    rn = math.hypot(w, h) / 2
    margin = int(math.ceil(max(0.0, k1) * rn)) + 4
    Hc = np.array([[1, 0, margin], [0, 1, margin], [0, 0, 1]]) @ H
    params = {"tilt_deg": math.degrees(tilt), "rotation_deg": math.degrees(rot),
              "hfov_deg": math.degrees(hfov), "px_per_mm": float(px_per_mm), "k1": k1,
              "distance_mm": float(d)}
    return Camera(image_wh, Hc / Hc[2, 2], margin, k1, params)
