"""``cardtally serve``: the printed address (with its token) opens the page; clear errors
without the serve extra or a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardtally.cli import app

runner = CliRunner()


def test_without_the_extra_it_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn raises ImportError
    result = runner.invoke(app, ["serve"])
    assert result.exit_code == 1
    assert result.output == "Error: cardtally serve needs its extra: pip install 'cardtally[serve]'\n"


def test_a_port_in_use_is_a_clear_error() -> None:
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert result.output == f"Error: Cannot listen on 127.0.0.1:{port}: Address already in use.\n"


def status_of(url: str) -> int:
    try:
        # No proxy from the environment: the server is on this machine.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_printed_address_opens_the_page(cardtally_home: Path) -> None:
    pytest.importorskip("uvicorn", reason="the serve extra is not installed")
    env = {**os.environ, "CARDTALLY_HOME": str(cardtally_home)}
    server = subprocess.Popen([sys.executable, "-m", "cardtally", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        token = url.split("token=")[1]
        assert len(token) >= 20
        assert status_of(url) == 200
        assert status_of(url.replace(token, "x" * len(token))) == 403
        assert status_of(url.split("?")[0]) == 403
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=30)
    assert "Only this computer can open the page; give --host 0.0.0.0" in stderr
    assert "\u2588" in stderr or "\u2580" in stderr  # the QR code, drawn with block characters
