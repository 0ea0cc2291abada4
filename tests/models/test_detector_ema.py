"""The moving average of the detector's weights kept during training, and its export."""

import math

import pytest

torch = pytest.importorskip("torch")

from cardtally.models.detector.ema import WeightAverage  # noqa: E402
from cardtally.models.detector.export import export  # noqa: E402
from cardtally.models.detector.net import CardNet  # noqa: E402


def _tiny() -> torch.nn.Module:
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
    return model


def test_average_follows_the_weights_with_the_warm_up_decay():
    model = _tiny()
    average = WeightAverage(model, decay=0.999)
    with torch.no_grad():
        model[0].weight.fill_(1.0)
    model[1].num_batches_tracked.fill_(7)
    for _ in range(3):
        average.update(model)
    # Decays 2/11, 3/12, 4/13 (below 0.999): the starting zeros keep their product's share.
    expected = 1.0 - (2 / 11) * (3 / 12) * (4 / 13)
    assert average.updates == 3
    assert torch.allclose(average.state["0.weight"], torch.full((2, 2), expected))
    assert torch.equal(average.state["0.bias"], torch.zeros(2))
    assert int(average.state["1.num_batches_tracked"]) == 7
    assert math.isclose(float(model[0].weight[0, 0]), 1.0)  # the model itself is untouched


def test_average_resumes_from_a_saved_state():
    model = _tiny()
    saved = WeightAverage(model, decay=0.5)
    resumed = WeightAverage(_tiny(), 0.5, {k: v.clone() for k, v in saved.state.items()}, updates=40)
    with torch.no_grad():
        model[0].weight.fill_(2.0)
    resumed.update(model)
    # After 40 updates the warm-up no longer binds: the decay is 0.5.
    assert torch.allclose(resumed.state["0.weight"], torch.full((2, 2), 1.0))


@pytest.mark.parametrize("decay", [0.0, 1.0, 1.5])
def test_decay_outside_the_open_unit_interval_is_refused(decay):
    with pytest.raises(ValueError, match="decay must lie in"):
        WeightAverage(_tiny(), decay)


def test_export_takes_the_average_only_when_asked(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    torch.manual_seed(0)
    model = CardNet()
    average = WeightAverage(model, 0.9)
    checkpoint = tmp_path / "last.pt"
    torch.save({"model": model.state_dict(), "step": 1, "context_blocks": 0}, checkpoint)
    with pytest.raises(SystemExit, match="keeps no moving average"):
        export(checkpoint, tmp_path / "x.onnx", ema=True)
    shifted = {k: v + 0.01 if v.is_floating_point() else v for k, v in average.state.items()}
    torch.save({"model": model.state_dict(), "ema": shifted, "ema_updates": 5, "step": 1,
                "context_blocks": 0}, checkpoint)
    export(checkpoint, tmp_path / "model.onnx")
    export(checkpoint, tmp_path / "ema.onnx", ema=True)
    image = torch.rand(1, 3, 64, 64)
    outputs = {}
    for name in ("model", "ema"):
        session = ort.InferenceSession(str(tmp_path / f"{name}.onnx"), providers=["CPUExecutionProvider"])
        outputs[name] = torch.from_numpy(session.run(None, {"image": image.numpy()})[0])
    model.eval()
    assert torch.allclose(outputs["model"], model(image), atol=1e-4)
    assert not torch.allclose(outputs["ema"], outputs["model"], atol=1e-4)


def test_a_short_run_with_a_frozen_encoder_keeps_it_and_saves_the_average(tmp_path, monkeypatch):
    import sys

    from cardtally.models.detector import train

    torch.manual_seed(0)
    start = CardNet().state_dict()
    torch.save(start, tmp_path / "start.pt")
    monkeypatch.setattr(sys, "argv", [
        "train", "--out", str(tmp_path / "run"), "--steps", "2", "--batch", "2", "--crop", "64",
        "--workers", "0", "--lr", "1e-3", "--init-from", str(tmp_path / "start.pt"),
        "--ema", "0.9", "--constant-lr", "--freeze-encoder", "--save-every", "1"])
    train.main()
    saved = torch.load(tmp_path / "run" / "last.pt")
    assert saved["step"] == 2 and saved["ema_updates"] == 2
    encoder = ("stem.", "down2.", "down3.", "down4.", "down5.", "context.")
    for name, tensor in start.items():
        frozen = name.startswith(encoder)
        assert torch.equal(saved["model"][name], tensor) == frozen or not tensor.is_floating_point(), name
    # The average moved with the decoder and stayed with the encoder.
    assert torch.equal(saved["ema"]["stem.0.weight"], start["stem.0.weight"])
    assert not torch.equal(saved["ema"]["head.weight"], start["head.weight"])


def test_a_checkpoint_resumes_only_with_the_encoder_as_it_was_trained(tmp_path, monkeypatch):
    import sys

    from cardtally.models.detector import train

    torch.manual_seed(0)
    run = tmp_path / "run"
    flags = ["train", "--out", str(run), "--steps", "1", "--batch", "2", "--crop", "64",
             "--workers", "0", "--save-every", "1"]
    monkeypatch.setattr(sys, "argv", flags)
    train.main()
    monkeypatch.setattr(sys, "argv", [*flags, "--steps", "2", "--freeze-encoder"])
    with pytest.raises(SystemExit) as refused:
        train.main()
    assert str(refused.value) == (
        f"{run / 'last.pt'} was saved without --freeze-encoder and cannot be resumed with it; "
        f"resume it as it was started, or start a new --out with --init-from {run / 'last.pt'}")
    # As the message says: its weights start a new frozen-encoder run.
    monkeypatch.setattr(sys, "argv", ["train", "--out", str(tmp_path / "frozen"), "--steps", "1",
                                      "--batch", "2", "--crop", "64", "--workers", "0",
                                      "--init-from", str(run / "last.pt"), "--freeze-encoder"])
    train.main()
    started = torch.load(run / "last.pt")["model"]
    frozen = torch.load(tmp_path / "frozen" / "last.pt")["model"]
    assert torch.equal(frozen["stem.0.weight"], started["stem.0.weight"])
