"""Seeded damaged copies of the sample photos through the loader, in a child process (a crash
in a native decoder then fails this test instead of killing the test run).

Each copy either decodes cleanly or gives cardtally's own one-line error; every copy that
libjpeg or libpng reports as corrupt or incomplete when OpenCV decodes it is refused, and none
of their lines reaches stderr.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parents[1] / "photo_fuzz.py"
SEED, COUNT = 47, 300
#: What libjpeg and libpng write when the data they decode is damaged or ends early.
DECODER_COMPLAINT = re.compile(r"^(Corrupt JPEG data|Premature end of JPEG file|libpng error)")
REFUSALS = re.compile(
    r"^case-\d+-\S+ is (damaged \(the (JPEG|PNG) data is corrupt\)|truncated \(the (JPEG|PNG) "
    r"data ends early\)); copy it again\.$|^case-\d+-\S+ is not an image cardtally can read"
)


def _run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(FUZZ), mode, str(SEED), str(COUNT)],
                          capture_output=True, text=True, timeout=300, check=False)


def _complained_cases(stderr: str) -> set[int]:
    """Cases after whose ``#case N`` line a decoder complained (plain ``cv2.imdecode``)."""
    complained, case = set(), -1
    for line in stderr.splitlines():
        if line.startswith("#case "):
            case = int(line.split()[1])
        elif DECODER_COMPLAINT.match(line):
            complained.add(case)
    return complained


def test_damaged_photos_are_refused_and_nothing_crashes() -> None:
    raw = _run("raw")
    assert raw.returncode == 0, raw.stderr[-2000:]
    complained = _complained_cases(raw.stderr)

    loaded = _run("load")
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stderr == ""
    rows = [json.loads(line) for line in loaded.stdout.splitlines()]
    assert [row["case"] for row in rows] == list(range(COUNT))
    for row in rows:
        assert ("ok" in row) != ("error" in row), row
        if "error" in row:
            assert REFUSALS.match(row["error"]), row
        if row["case"] in complained or row["kind"] == "cut":
            assert "error" in row, row
    # The mutations do damage: most copies are refused, a few decode to plausible pixels.
    refused = sum("error" in row for row in rows)
    assert len(complained) > COUNT // 3 and refused >= len(complained)
