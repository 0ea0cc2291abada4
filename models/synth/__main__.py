"""``python -m cardtally.models.synth``: render a synthetic data set to a folder."""

from .cli import main

if __name__ == "__main__":
    main()
