"""Exceptions shared by the library and the command line (a module without imports: the CLI's fast
commands load it without the extraction machinery)."""


class OptionError(ValueError):
    """An invalid option value; the CLI turns it into a one-line error.

    ``option``: the parameter the message begins with (``workers must be at least 1``);
    ``options``: every parameter the message names (``option`` first). The CLI writes each one's
    flag instead (``--workers must be at least 1``, corpustool/options.py); the library's
    messages name parameters, never flags."""

    def __init__(self, message: str = "", option: str | None = None, options: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.option = option or (options[0] if options else None)
        self.options = ((option,) if option else ()) + tuple(o for o in options if o != option)


class UnknownOptions(OptionError):
    """Option names an extractor does not take (``unknown``), with the names it takes of the same
    kind (``known``): the registry adds the extractor's name and its own options to the message."""

    def __init__(self, message: str, unknown: tuple[str, ...], known: tuple[str, ...]) -> None:
        super().__init__(message)
        self.unknown, self.known = unknown, known


class DataError(Exception):
    """The input holds nothing to work on (no document at all, not a page): the CLI prints one line
    and exits with status 1 (a data error, not an option error)."""


def say_line(text: str) -> None:
    """``text`` and its newline on standard error in one write. Spark runs its Python workers
    unbuffered (PYTHONUNBUFFERED): print()'s two writes, the text and then the newline, let another
    worker's line in between them (``...next recordcorpustool: read: ...``)."""
    import sys
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
