"""The one exception type that reaches the user.

Core code raises :class:`CardtallyError` with a message that tells the user what went wrong and
what to do; only the CLI catches it, prints ``Error: <message>`` on stderr and exits 1.
"""


class CardtallyError(Exception):
    """A problem the user can fix: bad input, unknown deck, busy or corrupt ledger, ..."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
