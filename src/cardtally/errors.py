"""The one exception type that reaches the user.

Core code raises :class:`CardtallyError` with a message that tells the user what went wrong and
what to do; only the CLI catches it, prints ``Error: <message>`` on stderr and exits 1 (2 for a
:class:`UsageError`, like typer's own usage errors; a :class:`Declined` is no error: its message
alone, exit 0).
"""


class CardtallyError(Exception):
    """A problem the user can fix: bad input, unknown deck, busy or corrupt ledger, ..."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(CardtallyError):
    """The command was given the wrong options (checked before any work): exit 2."""

    exit_code = 2


class Declined(CardtallyError):
    """The user said no at a question (e.g. "Save this round?"): nothing went wrong, so the
    message is printed without ``Error:`` and the exit code is 0."""

    exit_code = 0
