"""docs/cli-game.md stays true: run its console examples in order and compare every line."""

import json
import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from cardtally.cli import app

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli-game.md"
BLOCK = re.compile(r"```(console|json)\n(.*?)```", re.DOTALL)


def console_examples(text: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` pairs from the ```console blocks, in order."""
    examples: list[tuple[str, str]] = []
    for kind, body in BLOCK.findall(text):
        if kind != "console":
            continue
        command, output = None, []
        lines = iter(body.splitlines())
        for line in lines:
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "".join(output)))
                command, output = line[2:], []
                while command.endswith("\\"):
                    command = command[:-1] + next(lines).strip()
            else:
                output.append(line + "\n")
        if command is not None:
            examples.append((command, "".join(output)))
    return examples


def test_console_examples_are_true():
    examples = console_examples(DOC.read_text(encoding="utf-8"))
    assert len(examples) > 15
    runner = CliRunner()
    for command, expected in examples:
        args = shlex.split(command)
        assert args[0] == "cardtally"
        result = runner.invoke(app, args[1:])
        assert result.output == expected, command
        assert result.exit_code == (1 if expected.startswith("Error:") else 0), command

    (documented,) = [json.loads(body) for kind, body in BLOCK.findall(DOC.read_text()) if
                     kind == "json"]  # fmt: skip
    actual = json.loads(runner.invoke(app, ["game", "show", "--json"]).stdout)
    assert {key: actual[key] for key in documented} == documented
