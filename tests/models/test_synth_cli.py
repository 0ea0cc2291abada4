"""``python -m cardtally.models.synth``: files written, options, errors."""

from __future__ import annotations

import json
import sys

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from cardtally.models.synth.cli import app, main

runner = CliRunner()
FAST = ["--size", "320x240", "--max-cards", "8", "--calibration", "1"]


def test_render_writes_photos_labels_designs_and_calibration(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["--out", str(out), "--scenes", "2", "--seed", "1", *FAST])
    assert result.exit_code == 0, result.output
    photos = sorted((out / "scenes").glob("*.jpg"))
    assert [p.name for p in photos] == ["scene_00000.jpg", "scene_00001.jpg"]
    doc = json.loads((out / "scenes" / "scene_00000.json").read_text())
    assert doc["image"] == "scene_00000.jpg" and doc["image_wh"] == [320, 240]
    assert set(doc["counts"]) == set(doc["deck_names"])
    assert sum(doc["counts"].values()) + doc["face_up_count"] == len(doc["cards"])
    card = doc["cards"][0]
    assert {"quad_xy", "visible_fraction", "centroid_xy", "centre_xy", "strip_px",
            "visible_polygon_xy", "deck_name", "face_up"} <= set(card)
    assert len(list((out / "designs").glob("*.png"))) == 4
    calib = sorted((out / "calibration").rglob("*.jpg"))
    assert len(calib) == 4  # one per deck
    assert cv2.imread(str(photos[0])).shape == (240, 320, 3)


@pytest.mark.parametrize(("args", "layout"), [
    (["--preset", "fan"], "fan"),
    (["--preset", "pile"], "pile"),
    (["--families"], "mixed"),
    (["--vary-decks", "--preset", "rows"], "rows"),
])
def test_presets_and_families(tmp_path, args, layout):
    result = runner.invoke(app, ["--out", str(tmp_path), "--scenes", "1", *FAST, *args])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "scenes" / "scene_00000.json").read_text())
    assert doc["layout"] == layout


def test_designs_folder_is_used(tmp_path):
    backs = tmp_path / "backs"
    backs.mkdir()
    for k, colour in enumerate([(40, 40, 200), (200, 60, 30)]):
        cv2.imwrite(str(backs / f"b{k}.png"), np.full((100, 70, 3), colour, np.uint8))
    out = tmp_path / "out"
    result = runner.invoke(app, ["--out", str(out), "--scenes", "1", "--designs", str(backs),
                                 *FAST])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "scenes" / "scene_00000.json").read_text())
    assert sorted(doc["deck_names"]) == ["b0", "b1"]


def test_empty_designs_folder_is_an_error(tmp_path, monkeypatch, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(sys, "argv", ["synth", "--out", str(tmp_path / "o"), "--designs",
                                      str(empty)])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 1
    assert capsys.readouterr().err == (
        f"Error: No image files in {empty}. Put PNG/JPG/GIF card backs there.\n")


def test_bad_size_is_a_usage_error(tmp_path):
    result = runner.invoke(app, ["--out", str(tmp_path), "--size", "big"])
    assert result.exit_code == 2
