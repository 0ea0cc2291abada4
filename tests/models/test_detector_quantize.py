"""The int8 calibration reads exactly the inputs the detector's passes run on."""

from __future__ import annotations

from importlib import resources

from cardtally.models.detector.quantize import calibration_inputs


def test_calibration_inputs_are_the_survey_and_processing_passes():
    model = resources.files("cardtally.models") / "card_detector.onnx"
    with resources.as_file(model) as path:
        inputs = calibration_inputs(1, path)
    # A small photo's survey is its only pass; a large one may add a fine survey and the
    # processing pass, and a small processed image two passes at nearby scales.
    assert 1 <= len(inputs) <= 5
    survey = inputs[0]
    assert survey.shape[:2] == (1, 3) and max(survey.shape[2:]) <= 640 + 31
    for tensor in inputs:
        assert tensor.shape[2] % 32 == 0 and tensor.shape[3] % 32 == 0
        assert 0.0 <= float(tensor.min()) and float(tensor.max()) <= 1.0
