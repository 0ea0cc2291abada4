"""``score`` in a real terminal (a pty): it asks about the cards to check only when they could
change a score, says by how much per player, and saves on one Enter.

The command runs in a child process whose stdin, stdout and stderr are a pty, with the
stand-in vision stage of photo_fakes.py.
"""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import pytest
from photo_fakes import CLI_CHILD, fake_vision, round_photos, start_fake_game  # noqa: F401
from typer.testing import CliRunner

from cardtally.cli import app

HERE = Path(__file__).resolve().parent
CHILD = CLI_CHILD
SAVE = "Save this round? [Y/n]:"
WHY = "The cards to check could change the points:"


def read_until(fd: int, text: str, timeout_s: float = 60.0) -> str:
    """What the child writes until ``text`` shows (or it ends)."""
    seen = b""
    deadline = time.monotonic() + timeout_s
    while text.encode() not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the pty
                break
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace").replace("\r\n", "\n")


def score_in_a_terminal(args: list[str], until: str, answer: bytes) -> tuple[str, int]:
    """Run ``cardtally score ARGS`` on a pty; at ``until`` type ``answer``. Returns all it
    wrote and its exit code."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent)])}
    pid, fd = pty.fork()
    if pid == 0:  # the child
        os.execvpe(sys.executable, [sys.executable, "-c", CHILD, "score", *args], env)
    try:
        shown = read_until(fd, until)
        os.write(fd, answer)
        shown += read_until(fd, "\0", timeout_s=30.0)  # to the end
    finally:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == 0:  # still waiting for an answer
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    return shown, os.waitstatus_to_exitcode(status)


@pytest.fixture(autouse=True)
def setup(fake_vision, cardtally_home: Path):  # noqa: F811
    start_fake_game()


def saved_rounds() -> list[dict]:
    return json.loads(CliRunner().invoke(app, ["game", "show", "--json"]).stdout)["rounds"]


def test_doubtful_cards_ask_with_the_swing_and_one_enter_saves(tmp_path: Path):
    centre, left = round_photos(tmp_path, ["red"] * 5 + ["blue"] * 3 + ["purple"],
                                ["blue"] * 2 + ["yellow"] * 4)  # fmt: skip
    args = ["--center", str(centre), "--leftover", str(left), "--caller", "Anna"]
    shown, code = score_in_a_terminal(args, "press Enter to save:", b"\r")
    assert code == 0, shown
    assert "Check: centre centre.png: card 9 matches no player's deck\n" in shown
    # card 9 could be anyone's: one centre point more for its owner
    assert f"{WHY} Anna up to +1, Ben up to +1, Cleo up to +1.\n" in shown
    assert SAVE not in shown  # one keystroke
    assert "Round 1 of game 1 saved." in shown
    assert [r["counts"]["Anna"] for r in saved_rounds()] == [{"center": 5, "leftover": 0}]


def test_no_doubt_no_question_about_cards(tmp_path: Path):
    centre, left = round_photos(tmp_path, ["red"] * 5 + ["blue"] * 3,
                                ["blue"] * 2 + ["yellow"] * 4)  # fmt: skip
    args = ["--center", str(centre), "--leftover", str(left), "--caller", "Anna"]
    shown, code = score_in_a_terminal(args, SAVE, b"\r")
    assert code == 0, shown
    assert WHY not in shown and "Correct cards" not in shown
    assert "Round 1 of game 1 saved." in shown
    assert len(saved_rounds()) == 1


def test_n_does_not_save(tmp_path: Path, cardtally_home: Path):
    centre, left = round_photos(tmp_path, ["red"] * 5 + ["purple"], ["blue"] * 2)
    args = ["--center", str(centre), "--leftover", str(left), "--caller", "Anna"]
    shown, code = score_in_a_terminal(args, "press Enter to save:", b"n\r")
    assert code == 0, shown  # saying no is no error
    assert shown.rstrip().endswith(
        "Not saved (you declined). Correct with --card or --fix and run score again."
    )
    assert "Error" not in shown
    assert saved_rounds() == []
    assert not [p for p in (cardtally_home / "reviews").rglob("*") if p.is_file()]
