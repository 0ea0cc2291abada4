"""onnxruntime's own warnings never reach stderr once cardtally has loaded its session module
(in a child process: onnxruntime's logger is set once per process)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("onnx")

# A model with an initializer no node uses: onnxruntime warns about it while loading it.
CHILD = """
import sys
from onnx import TensorProto, helper
unused = helper.make_tensor("unused", TensorProto.FLOAT, [1], [1.0])
graph = helper.make_graph(
    [helper.make_node("Identity", ["x"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], [unused])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
if sys.argv[1] == "cardtally":
    from cardtally.vision.onnx_session import model_session
    model_session(model.SerializeToString(), "odd.onnx")
import onnxruntime as ort
ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
"""


def _stderr(mode: str) -> str:
    done = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stderr


def test_onnxruntime_warnings_stay_off_stderr() -> None:
    assert "Removing initializer 'unused'" in _stderr("plain")  # what onnxruntime says alone
    assert _stderr("cardtally") == ""
