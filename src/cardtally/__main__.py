"""Entry point for ``python -m cardtally``."""

from cardtally.cli import main

if __name__ == "__main__":
    main()
