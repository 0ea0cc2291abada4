"""models/device_train.sh, the one-call GPU training script, checked by its CPU dry run: the
device is lent rarely, so drift in the training commands it calls must show up here."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from cardtally.models.embedder.from_onnx import main as embedder_from_onnx  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "models" / "device_train.sh"


def _run(args: list[str], out: Path, runs: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OUT": str(out), "DEVICE_RUNS": str(runs), "DEVICE_TRAIN_DRY": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=300)


def test_both_runs_come_back_and_resume(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.setattr(sys, "argv", ["from_onnx", str(ROOT / "models" / "back_embedder.onnx"),
                                      str(runs / "embedder_init.pt")])
    embedder_from_onnx()
    done = _run(["1", "both"], tmp_path / "out", runs)
    assert done.returncode == 0, done.stdout + done.stderr
    back = tmp_path / "out" / "device"
    detector = torch.load(back / "detector" / "last.pt")
    embedder = torch.load(back / "embedder" / "ckpt.pt", weights_only=False)
    assert detector["step"] == 2 and detector["ema_updates"] == 2
    assert embedder["step"] == 2
    again = _run(["1", "detector"], tmp_path / "out2", runs)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "resumed at step 2" in (tmp_path / "out2" / "detector.log").read_text()


def test_an_unknown_network_is_refused(tmp_path):
    done = _run(["1", "nets"], tmp_path / "out", tmp_path / "runs")
    assert done.returncode == 2
    assert done.stderr == "device_train.sh: unknown network 'nets' (detector, embedder or both)\n"
