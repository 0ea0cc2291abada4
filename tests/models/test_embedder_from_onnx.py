"""A trainable embedder rebuilt from the shipped ONNX file computes what the file computes."""

from importlib import resources

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnxruntime = pytest.importorskip("onnxruntime")

from cardtally.models.embedder.from_onnx import rebuild  # noqa: E402


def test_rebuilt_network_matches_the_shipped_model():
    path = resources.files("cardtally.models").joinpath("back_embedder.onnx")
    rng = np.random.default_rng(5)
    statistics_crops = rng.normal(0, 0.3, (32, 4, 64, 64)).astype(np.float32)
    model = rebuild(path, statistics_crops)
    # Crops other than those the BatchNorm statistics came from: eval mode is exact anyway.
    crops = rng.normal(0, 0.3, (6, 4, 64, 64)).astype(np.float32)
    want = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"crops": crops})
    with torch.no_grad():
        got = model(torch.from_numpy(crops))
    for w, g in zip(want, got, strict=True):
        assert np.abs(w - g.numpy()).max() < 1e-4
    # Every convolution's BatchNorm was rebuilt (no layer left at its fresh initialisation).
    norms = [m for m in model.features.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert len(norms) == 10 and all(not torch.all(m.running_var == 1) for m in norms)
