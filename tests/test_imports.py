"""The mapped folders install as cardtally.vision/models/scoring: never import them by short name."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHORT_NAME_IMPORT = re.compile(r"^\s*(from|import)\s+(vision|models|scoring)\b", re.MULTILINE)
SOURCE_FILES = sorted(
    p
    for folder in ("src", "vision", "models", "scoring", "tests", "benchmarks")
    for p in (ROOT / folder).rglob("*.py")
)


@pytest.mark.parametrize("path", SOURCE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_short_name_imports(path: Path) -> None:
    match = SHORT_NAME_IMPORT.search(path.read_text(encoding="utf-8"))
    assert match is None, f"{path.name}: use cardtally.{match.group(2)} or a relative import"


def test_runtime_does_not_import_torch() -> None:
    runtime = [p for folder in ("src", "vision", "scoring") for p in (ROOT / folder).rglob("*.py")]
    offenders = [p.name for p in runtime if re.search(r"^\s*(import|from)\s+torch", p.read_text(), re.M)]
    assert offenders == []
