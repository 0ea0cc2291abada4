"""The shipped impostor cohort is what its recipe makes with the shipped embedder."""

from importlib import resources

import cv2
import numpy as np

from cardtally.models.embedder.background import main
from cardtally.vision.embed import BACKGROUND_FILE, EMBEDDER_FILE


def test_background_recipe_rebuilds_the_shipped_cohort(tmp_path, monkeypatch, capsys):
    models = resources.files("cardtally.models")
    model = tmp_path / "copy.onnx"
    model.write_bytes(models.joinpath(EMBEDDER_FILE).read_bytes())
    monkeypatch.setattr("sys.argv", ["background", str(model)])
    cv2.randn(np.empty((64, 64), np.float32), 0.0, 1.0)  # whatever ran before in the process
    main()
    written = tmp_path / "copy_background.npy"
    assert capsys.readouterr().out == f"wrote {written} (600, 344)\n"
    shipped = np.load(models.joinpath(BACKGROUND_FILE).open("rb"))
    rebuilt = np.load(written)
    assert rebuilt.dtype == shipped.dtype == np.float16
    # Bit-exact on the machine that made it; another CPU or onnxruntime release rounds a few
    # hundred of the 206,400 values differently (seen: up to 7e-4, one float16 step at ~0.5).
    np.testing.assert_allclose(rebuilt.astype(np.float32), shipped.astype(np.float32), atol=2e-3)
    assert np.mean(rebuilt != shipped) < 0.01
