"""Post-training int8 quantisation of the detector (onnxruntime static QDQ, per channel).

    python -m cardtally.models.detector.quantize models/card_detector.onnx runs/det-int8.onnx

Calibration inputs are exactly what the network sees in use: the survey and processing passes
of ``CardDetector`` on rendered mixed scenes from seeds 600,000+, which neither training
(seed * 10,000,000 + index), validation (800,000+) nor the test split (900,000+) uses. The
result is not shipped (the measurement is in the git history of models/MODEL_CARD.md); measure it with
``python benchmarks/detect_bench.py --model PATH``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

CALIBRATION_SEED_BASE = 600_000


def calibration_inputs(n_scenes: int, fp32_path: Path | None = None) -> list[np.ndarray]:
    """The (1, 3, h, w) float inputs the detector runs on for ``n_scenes`` scenes.

    The survey pass of the model being quantised (``fp32_path``; the shipped one without it)
    decides the processing scale, as it will in use.
    """
    from cardtally.models.synth.scene import SceneOptions, render_scene
    from cardtally.vision.detect import CardDetector, network_input
    from cardtally.vision.onnx_session import model_session

    class RecordingDetector(CardDetector):
        """Keeps every network input it is given."""

        def __init__(self, session) -> None:
            super().__init__(session)
            self.seen: list[np.ndarray] = []

        def predict_maps(self, image_bgr: np.ndarray) -> np.ndarray:
            self.seen.append(network_input(image_bgr))
            return super().predict_maps(image_bgr)

    session = model_session(fp32_path.read_bytes(), fp32_path.name) if fp32_path else None
    detector = RecordingDetector(session)
    options = SceneOptions(preset="mixed", n_cards=(3, 120), min_strip_px=12.0)
    for seed in range(CALIBRATION_SEED_BASE, CALIBRATION_SEED_BASE + n_scenes):
        detector.processing_maps(render_scene(seed, options).image)
    return detector.seen


def quantize(fp32_path: Path, int8_path: Path, n_scenes: int, exclude: list[str]) -> None:
    """Write the int8 model; ``exclude`` names nodes kept in float (e.g. ``/head/Conv``)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    inputs = iter(calibration_inputs(n_scenes, fp32_path))

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict | None:
            tensor = next(inputs, None)
            return None if tensor is None else {"image": tensor}

    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / "prepared.onnx"
        quant_pre_process(str(fp32_path), str(prepared))
        # Min-max: the entropy and percentile calibrators need inputs of one size, and the
        # detector runs on every size.
        quantize_static(
            str(prepared), str(int8_path), Reader(), quant_format=QuantFormat.QDQ,
            per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=exclude,
        )
    print(f"wrote {int8_path} ({int8_path.stat().st_size / 1e6:.2f} MB)")


def main() -> None:
    """Quantise an fp32 detector ONNX file to int8."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("fp32", type=Path)
    parser.add_argument("int8", type=Path)
    parser.add_argument("--scenes", type=int, default=16, help="rendered calibration scenes")
    parser.add_argument("--exclude", default="/head/Conv",
                        help="comma-separated node names kept in float")
    args = parser.parse_args()
    quantize(args.fp32, args.int8, args.scenes, [n for n in args.exclude.split(",") if n])


if __name__ == "__main__":
    main()
