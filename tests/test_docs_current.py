"""The docs stay short current-state pages, and every benchmark and run record is named in them."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_MD = ROOT / "docs" / "BENCHMARKS.md"
MODEL_CARD = ROOT / "models" / "MODEL_CARD.md"
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))
RECORDS = sorted((ROOT / "docs" / "bench").iterdir())


@pytest.mark.parametrize(("page", "max_lines"), [
    ("README.md", 120), ("docs/BENCHMARKS.md", 300), ("models/MODEL_CARD.md", 200),
])
def test_page_stays_short(page: str, max_lines: int) -> None:
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= max_lines


def test_benchmarks_holds_one_script_per_stage() -> None:
    assert 0 < len(SCRIPTS) <= 6


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_script_is_named_in_benchmarks_md(script: Path) -> None:
    assert f"benchmarks/{script.name}" in BENCHMARKS_MD.read_text(encoding="utf-8")


@pytest.mark.parametrize("record", RECORDS, ids=lambda p: p.name)
def test_run_record_is_named_in_the_docs(record: Path) -> None:
    docs = BENCHMARKS_MD.read_text(encoding="utf-8") + MODEL_CARD.read_text(encoding="utf-8")
    assert f"docs/bench/{record.name}" in docs
