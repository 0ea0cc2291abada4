"""Seeded mutations of the sample photos, and the two runs the fuzz test compares.

``python tests/photo_fuzz.py raw SEED COUNT`` decodes each mutant with plain ``cv2.imdecode``
and, before each, writes ``#case N`` to stderr, so the libjpeg/libpng lines that follow on
stderr name the mutant they are about (the oracle, independent of cardtally's own check).
``python tests/photo_fuzz.py summary SEED COUNT`` runs both and prints the figures of
docs/reliability.md. ``python tests/photo_fuzz.py load SEED COUNT`` puts each through cardtally's loader and prints one
JSON line per mutant on stdout: ``{"case": N, "kind": ..., "ok": [w, h]}`` or ``{"case": N,
"kind": ..., "error": MESSAGE}``; anything else (a crash, a traceback) ends the run.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
#: How each mutant is made from its original (a random place, length and content each time).
KINDS = ("flip", "overwrite", "zeros", "cut", "cut-keep-end", "delete", "insert", "duplicate")


def originals() -> list[tuple[str, bytes]]:
    """The sample photos as shipped, and a small PNG and progressive JPEG made from one."""
    files = [SAMPLES / "round1" / "centre.jpg", SAMPLES / "round1" / "leftover.jpg",
             SAMPLES / "calibration" / "teal-ben.jpg"]
    found = [(p.name, p.read_bytes()) for p in files]
    small = cv2.resize(cv2.imread(str(files[1])), (480, 360), interpolation=cv2.INTER_AREA)
    png = cv2.imencode(".png", small)[1].tobytes()
    progressive = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    return [*found, ("small.png", png), ("progressive.jpg", progressive)]


def mutate(data: bytes, kind: str, rng: np.random.Generator) -> bytes:
    """One damaged copy of ``data``: never the header's first 2 bytes, so it stays a JPEG/PNG."""
    at = int(rng.integers(2, len(data) - 1))
    run = int(rng.integers(1, 256))
    noise = rng.integers(0, 256, run, np.uint8).tobytes()
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ int(rng.integers(1, 256))]) + data[at + 1 :]
    if kind == "overwrite":
        return data[:at] + noise + data[at + run :]
    if kind == "zeros":
        return data[:at] + bytes(run) + data[at + run :]
    if kind == "cut":
        return data[:at]
    if kind == "cut-keep-end":  # a copy that stopped early, its last bytes still in place
        return data[:at] + data[-12:]
    if kind == "delete":
        return data[:at] + data[at + run :]
    if kind == "insert":
        return data[:at] + noise + data[at:]
    return data[:at] + data[at - run : at] + data[at:]  # duplicate


def mutants(seed: int, count: int) -> Iterator[tuple[int, str, str, bytes]]:
    """``count`` mutants: (case number, kind, original's name, bytes), the same for a seed."""
    rng = np.random.default_rng(seed)
    sources = originals()
    for case in range(count):
        name, data = sources[case % len(sources)]
        kind = KINDS[int(rng.integers(len(KINDS)))]
        yield case, kind, name, mutate(data, kind, rng)


def _raw(seed: int, count: int) -> None:
    for case, _, _, data in mutants(seed, count):
        print(f"#case {case}", file=sys.stderr, flush=True)
        cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


def _load(seed: int, count: int) -> None:
    from cardtally.errors import CardtallyError
    from cardtally.vision.load import decode_image

    for case, kind, name, data in mutants(seed, count):
        row: dict[str, object] = {"case": case, "kind": kind, "original": name}
        try:
            row["ok"] = list(decode_image(data, Path(f"case-{case}-{name}")).image_wh)
        except CardtallyError as exc:
            row["error"] = str(exc)
        print(json.dumps(row), flush=True)


def _summary(seed: int, count: int) -> None:
    """Both runs in child processes, compared: the figures of docs/reliability.md."""
    import re
    import subprocess
    from collections import Counter

    def run(mode: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, __file__, mode, str(seed), str(count)],
                              capture_output=True, text=True, check=False)

    raw, loaded = run("raw"), run("load")
    complained, case = set(), -1
    for line in raw.stderr.splitlines():
        if line.startswith("#case "):
            case = int(line.split()[1])
        elif re.match(r"^(Corrupt JPEG data|Premature end of JPEG file|libpng error)", line):
            complained.add(case)
    rows = [json.loads(line) for line in loaded.stdout.splitlines()]
    outcome = Counter(
        "decoded" if "ok" in r else re.sub(r"^case-\d+-\S+ ", "", r["error"]) for r in rows)
    print(f"mutants: {count} (seed {seed}); loader exit status {loaded.returncode}, "
          f"{len(loaded.stderr.splitlines())} line(s) on its stderr")
    print(f"reported corrupt by libjpeg/libpng under plain cv2.imdecode: {len(complained)}")
    print(f"  of them decoded by cardtally: {sum('ok' in rows[c] for c in complained)}")
    for text, n in outcome.most_common():
        print(f"{n:6d}  {text}")


if __name__ == "__main__":
    mode, seed_text, count_text = sys.argv[1:4]
    {"raw": _raw, "load": _load, "summary": _summary}[mode](int(seed_text), int(count_text))
