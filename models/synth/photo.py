"""Light and sensor: illumination gradient, hand/phone shadows, glare, colour temperature,
vignetting, blur, noise, tone curve and JPEG.

Everything low-frequency is computed on a coarse grid and upsampled (cheap, and real light fields
are smooth). These effects change pixels only, never geometry, so labels are unaffected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Lighting:
    """Ranges the light and sensor effects are drawn from (``SceneOptions.lighting``)."""

    colour_temp_k: tuple[float, float] = (2700.0, 6500.0)
    white_balance: tuple[float, float] = (0.5, 0.95)  # fraction of the colour cast removed
    exposure: tuple[float, float] = (0.75, 1.2)
    gradient: tuple[float, float] = (0.0, 0.45)  # brightness drop across the image
    vignetting: tuple[float, float] = (0.0, 0.4)
    glare_prob: float = 0.3
    shadow_prob: float = 0.3  # hand or phone shadow
    noise_sigma: tuple[float, float] = (1.0, 7.0)  # 8-bit units, at mid grey
    defocus_prob: float = 0.35
    motion_blur_prob: float = 0.12


def kelvin_to_bgr_gain(kelvin: float) -> np.ndarray:
    """Relative BGR gains of black-body light at ``kelvin`` (Tanner Helland's fit), 6500 K = 1."""

    def rgb(k: float) -> np.ndarray:
        t = k / 100.0
        r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
        g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (
            t - 60) ** -0.0755148492
        b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10)
                                   - 305.0447927307)
        return np.clip(np.array([b, g, r]), 1, 255)

    return (rgb(kelvin) / rgb(6500.0)).astype(np.float32)


def _coarse_grid(wh: tuple[int, int], cells: int = 48):
    w, h = wh
    gw = cells if w >= h else max(4, cells * w // h)
    gh = cells if h > w else max(4, cells * h // w)
    y, x = np.mgrid[0:gh, 0:gw].astype(np.float32)
    return x / (gw - 1), y / (gh - 1)


def _hand_or_phone_mask(rng, gw: int, gh: int) -> np.ndarray:
    """A blurred silhouette of a hand (palm + fingers) or a phone, entering from an edge."""
    m = np.zeros((gh, gw), np.float32)
    cx, cy = rng.uniform(0, gw), rng.uniform(0, gh)
    size = rng.uniform(0.25, 0.6) * max(gw, gh)
    angle = rng.uniform(0, 360)
    if rng.random() < 0.6:  # hand: palm ellipse with fingers
        cv2.ellipse(m, (int(cx), int(cy)), (int(size * 0.35), int(size * 0.45)), angle, 0, 360,
                    1.0, -1)
        a = math.radians(angle)
        for k in range(4):
            off = (k - 1.5) * size * 0.16
            bx = cx + math.cos(a) * off - math.sin(a) * size * 0.45
            by = cy + math.sin(a) * off + math.cos(a) * size * 0.45
            ex = bx - math.sin(a) * size * 0.45
            ey = by + math.cos(a) * size * 0.45
            cv2.line(m, (int(bx), int(by)), (int(ex), int(ey)), 1.0, max(1, int(size * 0.1)))
    else:
        box = cv2.boxPoints(((cx, cy), (size * 0.5, size), angle)).astype(np.int32)
        cv2.fillPoly(m, [box], 1.0)
    k = max(1.0, size * rng.uniform(0.05, 0.25))
    return cv2.GaussianBlur(m, (0, 0), k)


def light_fields(rng, image_wh, lighting: Lighting) -> tuple[np.ndarray, np.ndarray, dict]:
    """Multiplicative (HxW) and additive glare (HxW) fields at full size, plus parameters."""
    w, h = image_wh
    x, y = _coarse_grid(image_wh)
    gh, gw = x.shape
    params: dict = {}
    # illumination gradient from a random direction
    g = rng.uniform(*lighting.gradient)
    a = rng.uniform(0, 2 * math.pi)
    ramp = (x - 0.5) * math.cos(a) + (y - 0.5) * math.sin(a)
    mult = 1.0 + g * ramp / 0.7
    params["gradient"] = float(g)
    # vignetting: cos^4-like fall-off to the corners
    v = rng.uniform(*lighting.vignetting)
    r2 = ((x - 0.5) ** 2 + ((y - 0.5) * gh / gw) ** 2) / (0.25 + 0.25 * (gh / gw) ** 2)
    mult *= 1.0 - v * r2
    params["vignetting"] = float(v)
    if rng.random() < lighting.shadow_prob:
        depth = rng.uniform(0.25, 0.6)
        mult *= 1.0 - depth * _hand_or_phone_mask(rng, gw, gh)
        params["shadow_depth"] = float(depth)
    add = np.zeros_like(x)
    if rng.random() < lighting.glare_prob:  # specular reflections of a lamp or window
        n = int(rng.integers(1, 3))
        for _ in range(n):
            gx, gy = rng.uniform(0.1, 0.9, 2)
            sx, sy = rng.uniform(0.03, 0.2, 2)
            ang = rng.uniform(0, math.pi)
            dx, dy = x - gx, (y - gy) * gh / gw
            u = dx * math.cos(ang) + dy * math.sin(ang)
            t = -dx * math.sin(ang) + dy * math.cos(ang)
            add += rng.uniform(0.15, 0.6) * np.exp(-0.5 * ((u / sx) ** 2 + (t / sy) ** 2))
        params["glare_blobs"] = n
    mult = cv2.resize(np.clip(mult, 0.05, 2.0), (w, h), interpolation=cv2.INTER_LINEAR)
    add = cv2.resize(add, (w, h), interpolation=cv2.INTER_LINEAR)
    return mult, add, params


def _noise(rng, image_wh) -> np.ndarray:
    """Sensor noise after demosaicing and denoising: luma grain at half resolution plus coarser
    chroma blotches, combined at half resolution and upsampled once (cheap, and grain in phone
    photos is about 2 px anyway)."""
    w, h = image_wh
    hw, hh = (w + 1) // 2, (h + 1) // 2
    luma = rng.standard_normal((hh, hw, 1), dtype=np.float32)
    chroma = rng.standard_normal((max(2, hh // 2), max(2, hw // 2), 3), dtype=np.float32)
    half = cv2.resize(chroma, (hw, hh), interpolation=cv2.INTER_LINEAR)
    half *= np.float32(0.7)
    half += luma * np.float32(1.8)
    return cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)


def apply_photo(rng, img: np.ndarray, lighting: Lighting) -> tuple[np.ndarray, dict]:
    """Light, optics and sensor on a float32 BGR radiance image (0..255); returns uint8 BGR."""
    h, w = img.shape[:2]
    mult, add, params = light_fields(rng, (w, h), lighting)
    kelvin = rng.uniform(*lighting.colour_temp_k)
    wb = rng.uniform(*lighting.white_balance)
    gain = kelvin_to_bgr_gain(kelvin) ** (1 - wb)  # auto white balance removes most of the cast
    gain = gain / gain.mean() * rng.uniform(*lighting.exposure)
    params.update(colour_temp_k=float(kelvin), white_balance=float(wb))
    sat = rng.uniform(0.7, 1.1)
    lift = rng.uniform(0, 14)
    params.update(saturation=float(sat), black_lift=float(lift))
    # cv2 ops writing into two scratch buffers: numpy broadcasting over HxWx3 is several times
    # slower, and every fresh full-size array costs page faults
    out = img
    buf = np.empty_like(img)
    cv2.merge([mult, mult, mult], dst=buf)
    cv2.multiply(out, buf, dst=out)
    if "glare_blobs" in params:
        glare = add * np.float32(255)
        cv2.merge([glare, glare, glare], dst=buf)
        cv2.add(out, buf, dst=out)
    # illuminant gain, then the camera's saturation and black lift, as one 3x4 colour matrix
    luma_w = np.array([[0.114, 0.587, 0.299]])
    sat_m = sat * np.eye(3) + (1 - sat) * np.ones((3, 1)) @ luma_w
    M = (1 - lift / 255) * sat_m @ np.diag(gain.astype(np.float64))
    cv2.transform(out, np.hstack([M, np.full((3, 1), lift)]).astype(np.float32), dst=buf)
    out, buf = buf, out
    if rng.random() < lighting.defocus_prob:
        sigma = rng.uniform(0.4, 1.6) * max(1.0, max(w, h) / 1500)
        cv2.GaussianBlur(out, (0, 0), sigma, dst=buf)
        out, buf = buf, out
        params["defocus_sigma_px"] = float(sigma)
    if rng.random() < lighting.motion_blur_prob:
        length = int(rng.integers(3, 4 + int(max(w, h) / 300)))
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (length, length))
        cv2.filter2D(out, -1, k / max(k.sum(), 1e-6), dst=buf)
        out, buf = buf, out
        params["motion_blur_px"] = length
    sigma_n = rng.uniform(*lighting.noise_sigma)
    if sigma_n > 0:
        # shot noise grows with brightness: scale by a smooth local brightness, not per pixel
        lum = cv2.resize(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), ((w + 7) // 8, (h + 7) // 8),
                         interpolation=cv2.INTER_AREA)
        amp = np.float32(sigma_n) * np.sqrt(np.clip(lum, 0, 255) / np.float32(128) + np.float32(0.15))
        amp = cv2.resize(amp, (w, h), interpolation=cv2.INTER_LINEAR)
        noise = _noise(rng, (w, h))
        cv2.merge([amp, amp, amp], dst=buf)
        cv2.multiply(noise, buf, dst=noise)
        cv2.add(out, noise, dst=out)
    params["noise_sigma"] = float(sigma_n)
    if rng.random() < 0.4:  # phone-style sharpening
        cv2.GaussianBlur(out, (0, 0), 1.2, dst=buf)
        cv2.addWeighted(out, 1.4, buf, -0.4, 0, dst=out)
    # soft knee instead of hard clipping above 200, as camera tone curves do
    if float(out.max()) > 200:
        cv2.subtract(out, (200.0,) * 4, dst=buf)
        cv2.max(buf, 0.0, dst=buf)
        cv2.scaleAdd(buf, -0.55, out, dst=out)
    # (abs folds the rare slightly negative noise values of black pixels back up: harmless)
    return cv2.convertScaleAbs(out), params


def jpeg_roundtrip(img: np.ndarray, quality: int) -> tuple[np.ndarray, bytes]:
    """Encode as JPEG at ``quality`` and decode again; returns the decoded image and the bytes."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), data
