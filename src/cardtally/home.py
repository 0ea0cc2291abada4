"""Where cardtally keeps its data: deck profiles and the game ledger."""

import os
from pathlib import Path

from platformdirs import user_data_dir

from .errors import CardtallyError

HOME_ENV = "CARDTALLY_HOME"
LEDGER_FILENAME = "cardtally.db"
DECKS_DIRNAME = "decks"


def data_home() -> Path:
    """Return the data home: ``$CARDTALLY_HOME`` if set, else the platform's user data dir."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser()
    return Path(user_data_dir("cardtally", appauthor=False))


def ensure_data_home() -> Path:
    """Create the data home if needed and check it is writable; return it."""
    home = data_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CardtallyError(
            f"Cannot create the data home {home}: {exc.strerror}. "
            f"Set {HOME_ENV} to a writable folder."
        ) from None
    if not os.access(home, os.W_OK | os.X_OK):
        raise CardtallyError(
            f"The data home {home} is not writable. Set {HOME_ENV} to a writable folder."
        )
    return home


def ledger_path() -> Path:
    """Path of the SQLite game ledger inside the data home (not created here)."""
    return data_home() / LEDGER_FILENAME


def decks_dir() -> Path:
    """Folder of the calibrated deck profiles inside the data home (not created here)."""
    return data_home() / DECKS_DIRNAME
