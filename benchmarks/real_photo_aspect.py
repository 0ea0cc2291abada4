"""How the detector counts the real photos when their aspect is undone.

    python benchmarks/real_photo_aspect.py [--model CANDIDATE.onnx]

The real photos are all 640x640, but the webcam ones (``WIN_*``) were 16:9 frames and the phone
ones (``IMG_*``) 4:3: the dataset stretched them to squares, so their cards are squashed. Each
"sure" photo is counted as stored and widened by 16/9 and by 4/3 (and heightened by 4/3, a
control), per camera: if undoing the stretch helps, the detector has not learned squashed cards.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import cv2

from cardtally.vision.detect import CardDetector
from cardtally.vision.onnx_session import model_session

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detect_bench import real_photos  # noqa: E402

#: (name, x factor, y factor)
ASPECTS = (("as stored", 1.0, 1.0), ("x 16/9", 16 / 9, 1.0), ("x 4/3", 4 / 3, 1.0),
           ("y 4/3", 1.0, 4 / 3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None, help="a detector ONNX file instead of the shipped one")
    args = parser.parse_args()
    detector = CardDetector(model_session(args.model.read_bytes(), args.model.name) if args.model else None)
    errors: dict[tuple[str, str], list[int]] = defaultdict(list)
    for row, image in real_photos():
        if row["confidence"] != "sure":
            continue
        height, width = image.shape[:2]
        camera = "webcam (WIN_)" if row["file"].startswith("WIN_") else "phone (IMG_)"
        for name, fx, fy in ASPECTS:
            resized = cv2.resize(image, (round(width * fx), round(height * fy)), interpolation=cv2.INTER_CUBIC)
            errors[(camera, name)].append(len(detector.detect(resized)) - int(row["total_cards"]))
    print(f"model: {args.model or 'shipped'}\n")
    print("| photos | aspect | exact | MAE | over / under |\n|---|---|---|---|---|")
    for (camera, name), errs in sorted(errors.items()):
        exact = sum(e == 0 for e in errs)
        print(f"| {camera}, {len(errs)} | {name} | {exact} ({exact / len(errs):.1%}) | "
              f"{sum(map(abs, errs)) / len(errs):.2f} | {sum(max(e, 0) for e in errs)} / "
              f"{sum(max(-e, 0) for e in errs)} |")


if __name__ == "__main__":
    main()
