"""Speed of the scene engine on one core: ``python -m cardtally.models.synth.bench``.

Measures (OpenCV limited to one thread, so the figures are per core):
- training crops: render_scene at 512x512 with 10-40 cards, plus dense_targets, per second;
- a 1920x1080 photo with 60 cards placed (mixed preset), seconds per scene.

Figures are CPU seconds of this process (``time.process_time``), which stay meaningful on a
shared machine; wall-clock figures are printed too. :func:`.speed.tune_malloc` is applied unless
``--no-tune-malloc``.
"""

from __future__ import annotations

import argparse
import json
import time

import cv2
import numpy as np

from .scene import SceneOptions, render_scene
from .speed import tune_malloc
from .targets import dense_targets


def _time(fn, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Wall and CPU seconds per call; CPU time is what counts on a shared machine."""
    wall, cpu = [], []
    for k in range(n):
        t, c = time.perf_counter(), time.process_time()
        fn(k)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return np.asarray(wall), np.asarray(cpu)


def run(n_train: int = 40, n_large: int = 8, tune: bool = True) -> dict:
    """Run both measurements; returns the figures as a dict."""
    cv2.setNumThreads(1)
    tuned = tune_malloc() if tune else False
    train = SceneOptions(image_wh=(512, 512), n_cards=(10, 40))
    render_scene(10**6, train)  # warm-up: imports, caches
    w_train, c_train = _time(lambda k: dense_targets(render_scene(1000 + k, train)), n_train)
    large = SceneOptions(image_wh=(1920, 1080), n_cards=(60, 60))
    w_large, c_large = _time(lambda k: render_scene(2000 + k, large), n_large)
    return {
        "train_512_scenes_per_cpu_s": round(1.0 / float(c_train.mean()), 1),
        "train_512_cpu_ms_mean": round(1000 * float(c_train.mean()), 1),
        "train_512_cpu_ms_p90": round(1000 * float(np.percentile(c_train, 90)), 1),
        "train_512_wall_ms_mean": round(1000 * float(w_train.mean()), 1),
        "photo_1920x1080_60_cards_cpu_s_mean": round(float(c_large.mean()), 3),
        "photo_1920x1080_60_cards_cpu_s_max": round(float(c_large.max()), 3),
        "photo_1920x1080_60_cards_wall_s_mean": round(float(w_large.mean()), 3),
        "opencv_threads": cv2.getNumThreads(),
        "malloc_tuned": tuned,
    }


def main() -> None:
    """Time the renderer and print the figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train", type=int, default=40, help="512x512 scenes to time")
    p.add_argument("--large", type=int, default=8, help="1920x1080 scenes to time")
    p.add_argument("--no-tune-malloc", action="store_true", help="keep glibc's defaults")
    a = p.parse_args()
    print(json.dumps(run(a.train, a.large, not a.no_tune_malloc), indent=1))


if __name__ == "__main__":
    main()
