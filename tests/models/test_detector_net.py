"""The detector network: context blocks added to trained weights start as the identity."""

import pytest

torch = pytest.importorskip("torch")

from cardtally.models.detector.export import export  # noqa: E402
from cardtally.models.detector.net import CardNet  # noqa: E402
from cardtally.models.detector.train import _load_matching  # noqa: E402


def _trained_like(model: CardNet) -> CardNet:
    # Random BatchNorm statistics, as trained weights have, so that the check means something.
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.normal_(0, 0.2, generator=generator)
                module.running_var.uniform_(0.5, 2.0, generator=generator)
    return model.eval()


def test_context_blocks_start_as_the_identity_on_older_weights():
    torch.manual_seed(0)
    plain = _trained_like(CardNet())
    deeper = CardNet(context_blocks=2)
    _load_matching(deeper, plain.state_dict())
    deeper.eval()
    image = torch.rand(1, 3, 128, 160)
    assert torch.equal(plain(image), deeper(image))
    assert sum(p.numel() for p in deeper.parameters()) > sum(p.numel() for p in plain.parameters())


def test_export_reads_the_architecture_from_the_checkpoint(tmp_path):
    onnx = pytest.importorskip("onnx")
    convolutions = {}
    for blocks in (0, 1):
        checkpoint = tmp_path / f"last{blocks}.pt"
        model = CardNet(context_blocks=blocks)
        torch.save({"model": model.state_dict(), "step": 0, "context_blocks": blocks}, checkpoint)
        export(checkpoint, tmp_path / f"model{blocks}.onnx")
        graph = onnx.load(str(tmp_path / f"model{blocks}.onnx")).graph
        convolutions[blocks] = sum(1 for node in graph.node if node.op_type == "Conv")
    # One block at 1/16 and one at 1/32, two convolutions each.
    assert convolutions[1] == convolutions[0] + 4


def test_export_takes_bare_weights_and_reads_their_blocks(tmp_path):
    onnx = pytest.importorskip("onnx")
    convolutions = {}
    for blocks in (0, 1):
        weights = tmp_path / f"weights{blocks}.pt"  # as models/detector/card_detector_run8.pt
        torch.save(CardNet(context_blocks=blocks).state_dict(), weights)
        export(weights, tmp_path / f"bare{blocks}.onnx")
        graph = onnx.load(str(tmp_path / f"bare{blocks}.onnx")).graph
        convolutions[blocks] = sum(1 for node in graph.node if node.op_type == "Conv")
    assert convolutions[1] == convolutions[0] + 4
