"""The README's figures are the benchmarks' own: one table, made by benchmarks/readme_figures.py
from the outputs under docs/bench/, pasted between markers in README.md (no benchmark runs here)."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_readme_figures():
    spec = importlib.util.spec_from_file_location("readme_figures",
                                                  ROOT / "benchmarks" / "readme_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


readme_figures = _load_readme_figures()


def test_readme_table_is_the_benchmark_output() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    written = readme_figures.OUT.read_text(encoding="utf-8")
    assert readme_figures.readme_table(readme) == written


def test_benchmark_output_is_up_to_date_with_the_bench_files() -> None:
    written = readme_figures.OUT.read_text(encoding="utf-8")
    assert readme_figures.figures_table() == written


def test_a_changed_bench_file_changes_the_table(tmp_path: Path) -> None:
    for path in readme_figures.BENCH.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    count = tmp_path / "count.json"
    count.write_text(count.read_text().replace('"count_ten_photos_s": 9.945',
                                               '"count_ten_photos_s": 12.5'))
    table = readme_figures.figures_table(tmp_path)
    assert "| 12.50 s, 598 MB |" in table
    assert table != readme_figures.figures_table()


def test_readme_table_needs_both_markers() -> None:
    with pytest.raises(ValueError):
        readme_figures.readme_table(f"no table here\n{readme_figures.END}\n")
