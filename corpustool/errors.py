"""Exceptions shared by the library and the command line (a module without imports: the CLI's fast
commands load it without the extraction machinery)."""


class OptionError(ValueError):
    """An invalid option value; the CLI turns it into a one-line error.

    ``option``: the parameter the message begins with (``workers must be at least 1``); the CLI
    writes its flag there instead (``--workers must be at least 1``, corpustool/options.py)."""

    def __init__(self, message: str = "", option: str | None = None) -> None:
        super().__init__(message)
        self.option = option


class DataError(Exception):
    """The input holds nothing to work on (no document at all, not a page): the CLI prints one line
    and exits with status 1 (a data error, not an option error)."""
