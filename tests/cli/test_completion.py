"""Shell completion: typer's ``--install-completion`` / ``--show-completion`` on the root."""

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


def test_help_offers_completion():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout


def test_show_completion_prints_the_bash_script():
    # typer reads the shell from the parent process (shellingham), so the installed command
    # runs under bash; a second statement keeps bash from handing its process to the command.
    command = Path(sys.executable).with_name("cardtally")
    result = subprocess.run(["bash", "-c", f"'{command}' --show-completion; exit $?"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "_CARDTALLY_COMPLETE=complete_bash" in result.stdout
    assert "complete -o default -F _cardtally_completion cardtally" in result.stdout


def test_the_shell_gets_the_commands_and_options():
    def complete(words: str) -> list[str]:
        env = {"_CARDTALLY_COMPLETE": "complete_bash", "COMP_WORDS": words,
               "COMP_CWORD": str(len(words.split(" ")) - 1)}
        result = runner.invoke(app, [], env=env, prog_name="cardtally")
        assert result.exit_code == 0, result.output
        return result.stdout.split()

    assert complete("cardtally game ") == ["new", "list", "show", "export"]
    assert "score" in complete("cardtally ")
    assert "--caller" in complete("cardtally score --c")
