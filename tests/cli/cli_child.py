"""Run one cardtally command in a child process, for tests that kill it or limit its disk.

``python tests/cli/cli_child.py [--fsize BYTES] [--fake-vision] -- ARGS...``: imports the CLI,
optionally caps the size of any file it writes (RLIMIT_FSIZE: a write past it fails with
EFBIG, "File too large", as on a full disk), optionally puts the stand-in vision of
photo_fakes.py in place, prints ``ready`` on stdout and runs ``cardtally ARGS...``.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]


def main(argv: list[str]) -> None:
    split = argv.index("--")
    options, args = argv[:split], argv[split + 1 :]
    from cardtally.cli import app

    if "--fake-vision" in options:
        from photo_fakes import fake_identify

        from cardtally.vision import count as count_module
        from cardtally.vision.detect_classical import detect_cards_classical

        count_module.detect_cards = detect_cards_classical
        count_module.identify = fake_identify
    if "--fsize" in options:
        limit = int(options[options.index("--fsize") + 1])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    print("ready", flush=True)
    app(args, prog_name="cardtally")


if __name__ == "__main__":
    main(sys.argv[1:])
