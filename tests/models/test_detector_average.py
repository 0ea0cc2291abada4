"""Averaging detector weights: the shipped game-photo model is the average of runs 19 and 21."""

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from cardtally.models.detector.average import average_weights, load_weights  # noqa: E402
from cardtally.models.detector.export import export  # noqa: E402
from cardtally.vision.onnx_session import model_session  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_the_average_of_runs_19_and_21_is_the_shipped_model(tmp_path):
    average = average_weights([load_weights(MODELS / "detector" / f"card_detector_run{run}.pt")
                               for run in (19, 21)])
    torch.save(average, tmp_path / "average.pt")
    export(tmp_path / "average.pt", tmp_path / "average.onnx")
    image = np.random.default_rng(0).random((1, 3, 64, 96), dtype=np.float32)
    outputs = [model_session(path.read_bytes(), path.name).run(None, {"image": image})[0]
               for path in (tmp_path / "average.onnx", MODELS / "card_detector.onnx")]
    np.testing.assert_allclose(outputs[0], outputs[1], atol=1e-5)


def test_a_training_checkpoint_gives_its_weights(tmp_path):
    weights = {"w": torch.ones(2), "n": torch.tensor(3)}
    torch.save({"model": weights, "optimiser": {}, "step": 5}, tmp_path / "last.pt")
    torch.save({"w": torch.zeros(2), "n": torch.tensor(4)}, tmp_path / "bare.pt")
    average = average_weights([load_weights(tmp_path / "last.pt"), load_weights(tmp_path / "bare.pt")])
    assert torch.equal(average["w"], torch.full((2,), 0.5))
    assert int(average["n"]) == 4  # integer tensors come from the last input
