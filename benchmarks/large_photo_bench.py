"""Large phone photos (48 MP and up): JPEGs decoded at reduced size against at full size.

    python benchmarks/large_photo_bench.py --photos 8 --image-wh 8064 6048

Renders ``--photos`` rows photos of 100 cards of 4 decks at ``--image-wh`` (as count_bench's
photos, larger), calibrates each photo's own decks from one rendered calibration photo in a
data home of its own, then runs ``cardtally count --json`` on every photo in a fresh process
twice: as shipped, where a JPEG of 8000 px or more is decoded at 1/2, 1/4 or 1/8 of its size
(``vision.load.REDUCED_DECODE_LONG_SIDE_PX``), and with that turned off. Prints per photo the
cards found, UNKNOWN cards, how many cards the decks' counts are off from the rendered truth,
the command's wall time and its own peak RSS (measured as count_bench measures them), and the
totals.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

from count_bench import calibrate_scene_decks, run_measured

from cardtally.models.synth.scene import SceneOptions, render_scene

PHOTO_SEED = 971_000
CALIBRATION_SEED = 971_500

#: Counts one photo with the reduced decode's limit set to ``limit``.
_COUNT = ("import sys; from cardtally.vision import load; load.REDUCED_DECODE_LONG_SIDE_PX = {limit}; "
          "from cardtally.cli import app; sys.argv = ['cardtally', 'count', '--json', {photo!r}]; app()")


def main() -> None:
    """Count the rendered large photos with reduced and full decoding; print each photo."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=8)
    parser.add_argument("--image-wh", type=int, nargs=2, default=(8064, 6048), metavar=("W", "H"))
    args = parser.parse_args()
    image_wh = tuple(args.image_wh)
    work = Path(tempfile.mkdtemp(prefix="cardtally-large-"))
    options = SceneOptions(preset="rows", n_decks=4, n_cards=(100, 100), image_wh=image_wh,
                           face_up_fraction=0.0, min_strip_px=16.0 * image_wh[0] / 4032)
    photos = []
    for k in range(args.photos):
        scene = render_scene(PHOTO_SEED + k, options)
        path = work / f"photo-{k}.jpg"
        path.write_bytes(scene.jpeg_bytes)
        env = {**os.environ, "CARDTALLY_HOME": str(work / f"home-{k}")}
        (work / f"decks-{k}").mkdir()
        # A refused calibration leaves that deck's cards UNKNOWN in both settings alike.
        calibrate_scene_decks(scene, CALIBRATION_SEED + 10 * k, work / f"decks-{k}", env)
        photos.append((path, Counter(card.deck_name for card in scene.cards), env))
    print(f"{args.photos} rendered rows photos, {image_wh[0]}x{image_wh[1]}, 100 cards of 4 decks")
    for label, limit in (("reduced decode (shipped)", "load.REDUCED_DECODE_LONG_SIDE_PX"),
                         ("full decode", "10**9")):
        off_total, walls, peaks = 0, [], []
        print(label)
        for path, truth, env in photos:
            wall_s, peak_mb, stdout = run_measured(
                [sys.executable, "-c", _COUNT.format(limit=limit, photo=str(path))], env)
            result = json.loads(stdout)
            found = result["photos"][0]
            off = sum(abs(result["counts"].get(deck, 0) - truth.get(deck, 0))
                      for deck in set(truth) | set(result["counts"]))
            off_total += off
            walls.append(wall_s)
            peaks.append(peak_mb)
            print(f"  {path.name} {found['width']}x{found['height']}: found {len(found['cards'])}, "
                  f"unknown {result['unknown']}, decks' counts off by {off}, "
                  f"{wall_s:.2f} s, {peak_mb:.0f} MB")
        print(f"  decks' counts off in all: {off_total}; median {statistics.median(walls):.2f} s, "
              f"peak RSS median {statistics.median(peaks):.0f} MB, largest {max(peaks):.0f} MB")


if __name__ == "__main__":
    main()
