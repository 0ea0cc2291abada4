"""Export a trained back embedder checkpoint to ONNX (opset 17) and check it against torch.

    python -m cardtally.models.embedder.export runs/embedder/ckpt.pt models/back_embedder.onnx
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch

from .background import write_background
from .net import BackEmbedder as BackEmbedderNet

OPSET = 17
MAX_BYTES = 4 * 1024 * 1024


def export(checkpoint: Path, out: Path) -> None:
    """Write ``out`` from ``checkpoint``; fail if outputs differ from torch or the file is too big."""
    state = torch.load(checkpoint, weights_only=False, map_location="cpu")
    model = BackEmbedderNet()
    missing, unexpected = model.load_state_dict(state["model"], strict=False)
    if unexpected or any(not k.startswith("neck.") for k in missing):
        raise SystemExit(f"checkpoint mismatch: missing {missing}, unexpected {unexpected}")
    model.eval()
    buffer = io.BytesIO()
    torch.onnx.export(
        model, torch.zeros(2, 4, 64, 64), buffer, input_names=["crops"],
        output_names=["embedding", "face_up_logit"],
        dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}, "face_up_logit": {0: "n"}},
        opset_version=OPSET, dynamo=False,
    )
    proto = onnx.load_from_string(buffer.getvalue())
    proto.producer_name = "cardtally.models.embedder"
    onnx.helper.set_model_props(proto, {"training_step": str(state["step"]),
                                        "training_args": str(state.get("args", {}))})
    onnx.checker.check_model(proto)
    data = proto.SerializeToString()
    if len(data) > MAX_BYTES:
        raise SystemExit(f"model is {len(data)} bytes, over the {MAX_BYTES} byte budget")
    x = np.random.default_rng(0).normal(0, 0.5, (8, 4, 64, 64)).astype(np.float32)
    with torch.no_grad():
        want = model(torch.from_numpy(x))
    got = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"crops": x})
    for w, g in zip(want, got, strict=True):
        err = float(np.abs(w.numpy() - g).max())
        if err > 1e-3:
            raise SystemExit(f"onnxruntime differs from torch by {err}")
    out.write_bytes(data)
    print(f"wrote {out} ({len(data) / 1e6:.2f} MB, step {state['step']})")
    write_background(data, out)


def main() -> None:
    """Export a checkpoint to ONNX and write its impostor cohort beside it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    export(args.checkpoint, args.out)


if __name__ == "__main__":
    main()
