"""The README's figures table, made from the stage benchmarks' committed outputs.

    python benchmarks/readme_figures.py          # writes docs/bench/readme-figures.md

Reads what the other benchmarks wrote under docs/bench/ (``detect.json`` from detect_bench,
the ``identify-*.txt`` tables from identify_bench, ``count.json`` from count_bench) and writes
one Markdown table. README.md carries the same table between the markers below;
tests/test_readme_figures.py fails when the two disagree or when this file would now write
another table. After re-running a benchmark into docs/bench/, run this and paste the table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "docs" / "bench"
OUT = BENCH / "readme-figures.md"
BEGIN = "<!-- figures: begin (benchmarks/readme_figures.py writes docs/bench/readme-figures.md) -->"
END = "<!-- figures: end -->"

#: identify_bench scenario names, as its tables print them: how the README calls them, and the
#: target.
SCENARIOS = {
    "4 procedural decks": ("4 decks of different designs", "99.5% right"),
    "8 procedural decks": ("8 decks of different designs", "99% right"),
    "family of 4 (same colour, symbol differs)":
        ("4 decks of one family (same colour, symbol differs)", "98% right"),
    "4 real designs (PySolFC backs)": ("4 decks of real card-back designs", "-"),
}
#: The stranger (an uncalibrated deck) over every identify_bench output through the detector.
STRANGER_FILES = ("identify-detector-0-15.txt", "identify-detector-48-63.txt",
                  "identify-stranger-80-127.txt", "identify-stranger-128-175.txt",
                  "identify-stranger-176-271.txt")
_CELL = re.compile(r"([0-9.]+)% \(([0-9]+)/([0-9]+)\)")
_SCENES = re.compile(r"([0-9]+) scenes per scenario")


def identify_rows(path: Path) -> dict[str, list[tuple[int, int]]]:
    """Per scenario of an identify_bench table, its cells as (count, of) pairs ('-' left out)."""
    rows: dict[str, list[tuple[int, int]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 8 or not _CELL.fullmatch(cells[1]):
            continue
        rows[cells[0]] = [(int(m[2]), int(m[3])) for m in map(_CELL.fullmatch, cells[1:]) if m]
    return rows


def _pct(count: int, of: int) -> str:
    return f"{100 * count / of:.1f}%"


def figures_table(bench: Path = BENCH) -> str:
    """The README's figures table (Markdown, ending in a newline) from the outputs in ``bench``."""
    detect = json.loads((bench / "detect.json").read_text(encoding="utf-8"))["cardtally"]
    mixed, real = detect["mixed"], detect["real_photos"]["sure"]
    count = json.loads((bench / "count.json").read_text(encoding="utf-8"))
    lines = [
        "| measured on | result | target |",
        "|---|---|---|",
        f"| cards showing 12 px or more, {mixed['scenes']} rendered photos of 3-120 cards "
        f"| {mixed['recall_strip_ge_12']:.1%} found; {mixed['precision']:.1%} of what is found "
        "is a card | 99%, 99% |",
        f"| whole photo counted exactly, the same photos | {mixed['exact_count_rate']:.1%} "
        f"(off by {mixed['mean_abs_count_error']:.2f} cards on average) | 95% |",
        f"| whole photo counted exactly, {real['photos']} hand-counted real photos "
        f"| {real['exact_rate']:.1%} (off by {real['mean_abs_error']:.2f} on average, "
        f"worst {real['max_abs_error']}) | 80%, worst 2 |",
    ]
    identify = identify_rows(bench / "identify-detector-0-15.txt")
    for scenario, (label, target) in SCENARIOS.items():
        (right, of), (unknown, _), (wrong, _) = identify[scenario][:3]
        lines.append(f"| cards found backs up, {label}, 16 rendered photos | {_pct(right, of)} "
                     f"right, {_pct(unknown, of)} unknown, {_pct(wrong, of)} on a wrong deck "
                     f"| {target} |")
    rejected = total = photos = 0
    for name in STRANGER_FILES:
        row = next(r for s, r in identify_rows(bench / name).items() if "uncalibrated" in s)
        rejected += row[5][0]
        total += row[5][1]
        photos += int(_SCENES.search((bench / name).read_text(encoding="utf-8"))[1])
    lines += [
        f"| cards of a deck nobody calibrated, left unknown, {photos} rendered photos "
        f"| {_pct(rejected, total)} "
        f"({rejected:,} of {total:,}) | 95% |",
        f"| `cardtally count`, one 12 MP photo of 100 cards (median of ten) "
        f"| {count['count_one_photo_s']['median_over_photos']:.2f} s | 2 s |",
        f"| `cardtally count` of ten such photos, peak memory "
        f"| {count['count_ten_photos_s']:.2f} s, {count['peak_rss_ten_photos_mb']:.0f} MB "
        "| 10 s, 700 MB |",
    ]
    return "\n".join(lines) + "\n"


def readme_table(readme_text: str) -> str:
    """The table between the README's figure markers."""
    start = readme_text.index(BEGIN) + len(BEGIN)
    return readme_text[start:readme_text.index(END, start)].strip("\n") + "\n"


def main() -> None:
    """Write the README's figures table to docs/bench/readme-figures.md and print it."""
    OUT.write_text(figures_table(), encoding="utf-8")
    print(OUT.read_text(encoding="utf-8"), end="")


if __name__ == "__main__":
    main()
