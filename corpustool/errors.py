"""Exceptions shared by the library and the command line (a module without imports: the CLI's fast
commands load it without the extraction machinery)."""


class OptionError(ValueError):
    """An invalid option value; the CLI turns it into a one-line error."""
