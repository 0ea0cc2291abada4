"""Compare back embedders (the shipped one and candidates) on the benchmark's standard sets.

    python benchmarks/embedder_candidates.py --out runs/compare \\
        --candidate run15=runs/s30/candidate15.onnx --candidate avg=runs/s30/avg.onnx

Each embedder runs ``identify_bench.py`` on four sets, one process each, its output kept as
``OUT/TAG-SET.txt`` (a file already there is read instead of run again, so an interrupted
comparison resumes): true outlines on scenes 0-15, the shipped detector on scenes 0-15 and
48-63, and the uncalibrated deck alone on scenes 80-127. A candidate is an exported ONNX file
with its impostor cohort beside it (``NAME_background.npy``, as the export writes them). Prints
one Markdown table: cards right / on a wrong deck per scenario, the totals through the
detector, the decks' count error, and the stranger's rejection over its 1,000 cards.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

BENCH = Path(__file__).resolve().parent / "identify_bench.py"
#: name: identify_bench arguments.
SETS = {
    "gt-0": ["--trials", "16", "--detector", "gt"],
    "detector-0": ["--trials", "16", "--detector", "real"],
    "detector-48": ["--trials", "16", "--first-trial", "48", "--detector", "real"],
    "strangers-80": ["--trials", "48", "--first-trial", "80", "--only", "uncalibrated",
                     "--detector", "real"],
}
_COUNT = re.compile(r"\(([0-9]+)/([0-9]+)\)")
_COUNT_ERROR = re.compile(r"decks' counts off by ([0-9]+) cards")


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario's line of an identify_bench table (stranger: None where not in it)."""

    right: int
    unknown: int
    wrong: int
    stranger_rejected: int | None
    stranger_cards: int | None
    count_error: int | None


def parse_bench_output(text: str) -> dict[str, ScenarioResult]:
    """Per scenario name, the numbers of an identify_bench output (its Markdown table and the
    count line that follows each scenario with the real detector)."""
    results: dict[str, ScenarioResult] = {}
    last = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 8 and _COUNT.search(cells[1]):
            counts = [_COUNT.search(c) for c in cells]
            stranger = counts[6]
            results[cells[0]] = ScenarioResult(
                int(counts[1].group(1)), int(counts[2].group(1)), int(counts[3].group(1)),
                int(stranger.group(1)) if stranger else None,
                int(stranger.group(2)) if stranger else None, None)
            last = cells[0]
        elif last is not None and (match := _COUNT_ERROR.search(line)):
            results[last] = replace(results[last], count_error=int(match.group(1)))
    return results


def run_set(tag: str, model: Path | None, set_name: str, out_dir: Path) -> dict[str, ScenarioResult]:
    """The results of one embedder on one set, run now or read from its kept output."""
    out = out_dir / f"{tag}-{set_name}.txt"
    if not out.exists():
        args = [sys.executable, str(BENCH), *SETS[set_name]]
        if model is not None:
            args += ["--embedder", str(model)]
        print(f"running {tag} on {set_name} ...", file=sys.stderr, flush=True)
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"identify_bench failed for {tag} on {set_name}:\n{done.stderr[-2000:]}")
        out.write_text(done.stdout)
    return parse_bench_output(out.read_text())


def table(results: dict[str, dict[str, dict[str, ScenarioResult]]]) -> str:
    """The comparison as Markdown: one column per embedder."""
    tags = list(results)
    lines = ["| set / scenario | " + " | ".join(tags) + " |", "|---" * (len(tags) + 1) + "|"]

    def row(label: str, cell) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(results[t]) for t in tags) + " |")

    for set_name in ("detector-0", "detector-48", "gt-0"):
        for scenario in results[tags[0]][set_name]:
            row(f"{set_name}: {scenario}", lambda r, s=set_name, c=scenario:
                f"{r[s][c].right} / {r[s][c].wrong}")

    def through_detector(r, field: str) -> int:
        return sum(getattr(x, field) or 0 for s in ("detector-0", "detector-48")
                   for x in r[s].values())

    row("**right / wrong, through the detector, both sets**",
        lambda r: f"{through_detector(r, 'right'):,} / {through_detector(r, 'wrong'):,}")
    row("decks' counts off, both sets", lambda r: f"{through_detector(r, 'count_error'):,}")

    def strangers(r) -> str:
        found = [x for s in ("detector-0", "detector-48", "strangers-80") for x in r[s].values()
                 if x.stranger_cards]
        rejected, cards = sum(x.stranger_rejected for x in found), sum(x.stranger_cards for x in found)
        return f"{rejected:,} of {cards:,} ({rejected / max(1, cards):.1%})"

    row("**stranger rejected (scenes 0-15, 48-63, 80-127)**", strangers)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the kept outputs")
    parser.add_argument("--candidate", action="append", default=[], metavar="TAG=ONNX",
                        help="a candidate embedder (repeatable)")
    parser.add_argument("--no-shipped", action="store_true", help="candidates only")
    args = parser.parse_args()
    embedders: dict[str, Path | None] = {} if args.no_shipped else {"shipped": None}
    for spec in args.candidate:
        tag, sep, path = spec.partition("=")
        if not sep or not tag or not Path(path).is_file():
            raise SystemExit(f"--candidate wants TAG=ONNX of an existing file, got {spec!r}")
        embedders[tag] = Path(path)
    if not embedders:
        raise SystemExit("nothing to compare: give --candidate or leave out --no-shipped")
    args.out.mkdir(parents=True, exist_ok=True)
    results = {tag: {s: run_set(tag, model, s, args.out) for s in SETS}
               for tag, model in embedders.items()}
    print(table(results))


if __name__ == "__main__":
    main()
