"""Rebuild a trainable checkpoint of the back embedder from its exported ONNX file.

Training checkpoints live in git-ignored folders and do not outlive the machine that trained them; the shipped
``back_embedder.onnx`` does. Its export folded every BatchNorm into the convolution before it,
so the convolutions come back with the folded weights and each BatchNorm is set to pass its
input through plus the folded bias: its running statistics are those of a batch of training
views, with scale and shift chosen so that the eval-mode network reproduces the ONNX outputs
exactly, and training-mode batch statistics start close to them.

    python -m cardtally.models.embedder.from_onnx models/back_embedder.onnx runs/embedder_init.pt
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper
from torch import nn

from .batches import make_batch
from .net import BackEmbedder

#: Seed of the training views whose statistics the rebuilt BatchNorm layers take.
CALIBRATION_SEED = 424242
#: Largest difference from the ONNX outputs the rebuilt network may show.
MAX_DIFFERENCE = 1e-3


def _folded_convolutions(proto: onnx.ModelProto,
                         weights: dict[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """(weight, bias) of every Conv node, in graph order (``weights``: initializers by name)."""
    return [(weights[node.input[1]], weights[node.input[2]])
            for node in proto.graph.node if node.op_type == "Conv"]


def _conv_bn_pairs(model: BackEmbedder) -> list[tuple[nn.Conv2d, nn.BatchNorm2d]]:
    """Each convolution of ``model`` with the BatchNorm right after it, in forward order."""
    modules = list(model.features.modules())
    return [(m, modules[i + 1]) for i, m in enumerate(modules) if isinstance(m, nn.Conv2d)]


@torch.no_grad()
def rebuild(onnx_path: Path, calibration_crops: np.ndarray) -> BackEmbedder:
    """The torch network equivalent to ``onnx_path`` (eval mode)."""
    proto = onnx.load(str(onnx_path))
    weights = {i.name: numpy_helper.to_array(i).copy() for i in proto.graph.initializer}
    folded = _folded_convolutions(proto, weights)
    model = BackEmbedder().eval()
    pairs = _conv_bn_pairs(model)
    if len(folded) != len(pairs):
        raise SystemExit(f"{onnx_path} has {len(folded)} convolutions, the network {len(pairs)}")
    state = model.state_dict()
    for key in state:
        if key.split(".")[0] in ("embed", "neck", "face_up") and key in weights:
            state[key] = torch.from_numpy(weights[key])
    model.load_state_dict(state)
    x = torch.from_numpy(calibration_crops)
    captured: list[torch.Tensor] = []
    for (conv, bn), (weight, bias) in zip(pairs, folded, strict=True):
        conv.weight.copy_(torch.from_numpy(weight))
        captured.clear()
        hook = bn.register_forward_hook(lambda _m, inputs, _out: captured.append(inputs[0]))
        model(x)
        hook.remove()
        mean = captured[0].mean(dim=(0, 2, 3))
        var = captured[0].var(dim=(0, 2, 3), unbiased=False)
        # eval: (x - mean) / sqrt(var + eps) * sqrt(var + eps) + mean + bias = x + bias.
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.copy_(torch.sqrt(var + bn.eps))
        bn.bias.copy_(mean + torch.from_numpy(bias))
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    want = session.run(None, {"crops": calibration_crops})
    got = model(x)
    for w, g in zip(want, got, strict=True):
        difference = float(np.abs(w - g.numpy()).max())
        if difference > MAX_DIFFERENCE:
            raise SystemExit(f"rebuilt network differs from {onnx_path} by {difference}")
    return model


def main() -> None:
    """Rebuild a checkpoint from an exported embedder and check it reproduces the ONNX outputs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("onnx_path", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    crops = make_batch(CALIBRATION_SEED, 0)["crops"]
    model = rebuild(args.onnx_path, crops)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "step": 0,
                "args": {"rebuilt_from": str(args.onnx_path)}}, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
