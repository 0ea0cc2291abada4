"""Progress bars: on stderr, only when stderr is a terminal; stdout keeps only the data.

The command runs in a child process whose stderr is a pty and whose stdout is a pipe, with
the stand-in vision stage of photo_fakes.py (as in test_score_prompt_pty.py).
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from photo_fakes import CLI_CHILD, calibrate, fake_vision, write_photo  # noqa: F401
from typer.testing import CliRunner

from cardtally.cli import app

HERE = Path(__file__).resolve().parent
CHILD = CLI_CHILD


def run_with_stderr_on_a_pty(args: list[str]) -> tuple[int, str, str]:
    """``cardtally ARGS`` with stderr on a pty: (exit code, stdout, what the pty showed)."""
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100",
           "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent)])}
    env.pop("NO_COLOR", None)
    main_fd, terminal_fd = pty.openpty()
    with subprocess.Popen([sys.executable, "-c", CHILD, *args], env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=terminal_fd) as child:
        os.close(terminal_fd)
        shown = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # the child closed the pty
                break
            if not chunk:
                break
            shown += chunk
        stdout = child.stdout.read().decode() if child.stdout else ""
        code = child.wait(timeout=60)
    os.close(main_fd)
    return code, stdout, shown.decode(errors="replace")


def test_bar_on_a_terminal_nothing_extra_on_stdout(
    fake_vision, tmp_path: Path, cardtally_home: Path  # noqa: F811
):
    calibrate("red", "blue", "yellow")
    photos = [str(write_photo(tmp_path / f"p{i}.png", ["red"] * 3 + ["blue"] * i))
              for i in range(3)]
    code, stdout, shown = run_with_stderr_on_a_pty(["count", *photos, "--json"])
    assert code == 0, shown
    assert "Counting photos" in shown and "3/3" in shown  # the bar, with its photo count
    assert "\x1b[" in shown  # drawn and taken away with terminal control codes
    for i in range(3):
        assert f"[{i + 1}/3] p{i}.png: {3 + i} cards" in shown
    # stdout holds exactly what it holds without a terminal
    piped = CliRunner().invoke(app, ["count", *photos, "--json"])
    assert json.loads(stdout) == json.loads(piped.stdout)
    assert stdout == piped.stdout
    assert "Counting photos" not in piped.stderr  # no bar in a pipe
    assert piped.stderr.startswith("[1/3] p0.png: 3 cards\n")
