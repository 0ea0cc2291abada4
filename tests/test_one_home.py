"""One home for each fact: the card's shape and the detector's output stride are assigned once,
in vision (which models import from; vision never imports models)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HOMES = {
    "OUTPUT_STRIDE": "vision/watershed_cards.py",
    "CARD_SHORT_MM": "vision/geometry.py",
    "CARD_LONG_MM": "vision/geometry.py",
    "CARD_ASPECT": "vision/geometry.py",
    "CARD_LONG_OVER_SHORT": "vision/geometry.py",
    "CARD_WH": "models/synth/fronts.py",
}


def module_level_assignments(path: Path) -> set[str]:
    """Names a module assigns at its top level (imports are not assignments)."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    names.add(name.id)
    return names


@pytest.mark.parametrize("fact", sorted(HOMES))
def test_each_fact_is_assigned_in_its_home_only(fact: str):
    assigned_in = sorted(
        str(path.relative_to(ROOT))
        for folder in ("src", "vision", "models", "scoring", "benchmarks")
        for path in (ROOT / folder).rglob("*.py")
        if fact in module_level_assignments(path)
    )
    assert assigned_in == [HOMES[fact]]


def test_the_card_shape_numbers_agree():
    from cardtally.models.synth.fronts import CARD_WH
    from cardtally.vision.geometry import CARD_ASPECT, CARD_LONG_OVER_SHORT

    assert CARD_WH == (236, 364)
    assert CARD_ASPECT == 59.0 / 91.0
    assert CARD_LONG_OVER_SHORT == 364 / 236 == 91 / 59
