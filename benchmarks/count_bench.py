"""End-to-end speed of ``cardtally count``: one and ten 4032x3024 photos of ~100 cards.

    python benchmarks/count_bench.py --runs 3

Renders the photos and calibration photos (fixed seeds), calibrates their decks in a temporary
data home, then times the real command in a fresh process (start-up and decoding included) and
reports peak RSS. The split (start-up, decode, detect, identify, annotate) is measured in-process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cardtally.models.synth.scene import SceneOptions, render_calibration_photo, render_scene

PHOTO_SEED = 970_000


def _run(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cardtally-bench-"))
    env = {**os.environ, "CARDTALLY_HOME": str(work / "home")}
    options = SceneOptions(preset="rows", n_decks=4, n_cards=(100, 100), image_wh=(4032, 3024),
                           face_up_fraction=0.0, min_strip_px=16.0)
    scene = render_scene(PHOTO_SEED, options)
    photo = work / "photo.jpg"
    photo.write_bytes(scene.jpeg_bytes)
    calibrated: list[str] = []
    refused: list[str] = []
    for k, (design, name) in enumerate(zip(scene.deck_designs, scene.deck_names, strict=True)):
        calib = render_calibration_photo(PHOTO_SEED + 1 + k, design, image_wh=(1600, 1200))
        path = work / f"{name}.jpg"
        path.write_bytes(calib.jpeg_bytes)
        # A refused calibration (too few cards found) only makes that deck's cards unknown;
        # the timing is still the command's.
        done = subprocess.run([sys.executable, "-m", "cardtally", "calibrate", name, str(path)],
                              env=env, capture_output=True, text=True)
        calibrated.append(name) if done.returncode == 0 else refused.append(name)
    count = [sys.executable, "-m", "cardtally", "count", "--json"]
    startup = [_run([sys.executable, "-m", "cardtally", "--version"], env) for _ in range(args.runs)]
    one = [_run(count + [str(photo)], env) for _ in range(args.runs)]
    # Ten different photos (the same photo twice is refused as double counting).
    photos = [photo]
    for k in range(1, 10):
        other = work / f"photo-{k}.jpg"
        other.write_bytes(render_scene(PHOTO_SEED + 100 + k, options).jpeg_bytes)
        photos.append(other)
    ten = [_run(count + [str(p) for p in photos], env) for _ in range(max(1, args.runs // 2))]
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    # In-process split of one photo.
    from cardtally.vision.annotate import annotate
    from cardtally.vision.count import count_photo
    from cardtally.vision.decks import load_decks

    os.environ["CARDTALLY_HOME"] = env["CARDTALLY_HOME"]
    decks = load_decks()
    count_photo(photo, decks)  # warm the sessions
    splits = []
    for _ in range(args.runs):
        result, image = count_photo(photo, decks)
        start = time.perf_counter()
        annotate(image, result.detections, result.identities)
        splits.append({**result.stage_s, "annotate": time.perf_counter() - start})
    report = {
        "photo": "4032x3024 JPEG, rendered rows, 4 decks, " f"{len(scene.cards)} cards",
        "cards_found": len(result.detections),
        "decks_calibrated": calibrated,
        "calibration_refused": refused,
        "startup_s": round(statistics.median(startup), 3),
        "count_one_photo_s": round(statistics.median(one), 3),
        "count_ten_photos_s": round(statistics.median(ten), 3),
        "peak_rss_mb": round(rss_mb, 1),
        "split_s": {k: round(statistics.median(s[k] for s in splits), 3) for k in splits[0]},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
