"""Command line: ``corpustool COMMAND ...``, a thin layer over the library.

Every module of this package except ``common`` defines ``register(subparsers)``
and adds its commands; modules are discovered, so a new command is a new
module. Invalid options end the program with status 2 and one line on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import DataError, OptionError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        # argparse reports a subcommand's unknown options under the top-level name
        # ("corpustool: error"); name the command, as every other refusal does
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            print(f"{prog}: error: unrecognized arguments: {' '.join(extras)}", file=sys.stderr)
            raise SystemExit(2)
        return parsed


class _Version(argparse.Action):
    """``--version``: the version and, per compiled engine, the backend that runs it and why
    (read when asked: the extensions are not loaded for every parse of the arguments)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show the version and the backend of each compiled engine, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from ..native import backend
        print(f"corpustool {__version__}\nbackends ({backend.ENV}={backend.FORCED}):\n{backend.describe()}")
        parser.exit()


# the modules whose register() adds subcommands, in the order `corpustool --help` lists them: the
# pipeline's own commands first, the rest alphabetically (tests/system/test_import_rules.py checks that every
# module of cli/ with a register() is here)
COMMAND_MODULES = ("build", "stages", "dedup_near", "eval", "inspect", "langfilter", "menus", "merge", "onion",
                   "release", "report", "stoplist", "vert_check")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="corpustool",
                     description="Turn crawled HTML into clean, de-duplicated corpora in vertical format.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main process so that every ``finally`` and ``abort`` runs:
    temporary and partial outputs are removed as on Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _install_signal_handlers() -> None:
    import os
    import signal

    main_pid = os.getpid()

    def on_signal(signum, frame):
        if os.getpid() != main_pid:
            # a forked worker inherited this handler: die of the signal as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        _received.append(signum)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        try:
            signal.signal(sig, on_signal)
        except (ValueError, OSError):       # not the main thread (corpustool used as a library)
            return


# signals received by the main process: a library that catches every exception (langdetect turns
# an interrupted profile read into "Profile format error") must not turn a stop into an error
_received: list[int] = []


# commands whose module is enough to parse their arguments: started without importing the others
# (their start-up counts when `corpustool onion` replaces the C onion program)
_SELF_CONTAINED = {"onion": ("onion", "register_vertical"), "dupngrams": ("onion", "register_vertical")}


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    entry = _SELF_CONTAINED.get(argv[0]) if argv else None
    if entry is None:
        return build_parser()
    parser = _Parser(prog="corpustool")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    module, register = entry
    getattr(importlib.import_module(f"{__name__}.{module}"), register)(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser_for(sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    import os
    _install_signal_handlers()
    try:
        try:
            status = int(args.func(args) or 0)
            sys.stdout.flush()      # here, not at the interpreter's exit: a reader gone is told below
            return status
        except Exception as exc:
            # the reader of our standard output went away (`| head`), whatever the error says
            # (a writer's OSError, `cannot read FILE` of a read-and-write loop): that, and only that
            if _stdout_closed(exc):
                return _broken_pipe()
            raise
    except OptionError as exc:
        print(f"corpustool {args.command}: error: {option_message(exc, args.command)}", file=sys.stderr)
        return 2
    except DataError as exc:
        print(f"corpustool {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except Terminated as exc:
        return _stopped(args.command, exc.signum, getattr(args, "resume", False))
    except OSError as exc:
        if _received:
            return _stopped(args.command, _received[0], getattr(args, "resume", False))
        # a disk full, a file that became unreadable...: one line naming the file, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"corpustool {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return _stopped(args.command, signal_number("SIGINT"), getattr(args, "resume", False))
    except Exception as exc:
        if _received:
            return _stopped(args.command, _received[0], getattr(args, "resume", False))
        if os.environ.get("CORPUSTOOL_TRACEBACK"):
            raise
        detail = " ".join(str(exc).split())[:300]
        print(f"corpustool {args.command}: error: {type(exc).__name__}: {detail} "
              f"(set CORPUSTOOL_TRACEBACK=1 for the traceback)", file=sys.stderr)
        return 1


# commands whose users write parameters by name (eval's --extractor NAME:length_low=5, --option,
# --sweep): their messages keep the names
_NAMES_AS_WRITTEN = ("eval",)


def option_message(exc: OptionError, command: str | None = None) -> str:
    """The library's message about a parameter, naming the command line's flag instead
    (``workers must be at least 1`` -> ``--workers must be at least 1``): the one place that does."""
    import re

    from ..options import OPTIONS, flag_for

    message = str(exc)
    if getattr(exc, "names_as_written", False):
        return message
    names = getattr(exc, "options", ()) or ((exc.option,) if getattr(exc, "option", None) else ())
    if not names and command not in _NAMES_AS_WRITTEN:
        # a check that names its parameters itself: the one it begins with, and any parameter whose
        # name cannot be an English word (length_low ... must be <= length_high)
        lead = re.match(r"[a-z_]+\b", message)
        found = re.findall(r"\b[a-z]+_[a-z_]+\b", message)
        names = tuple(dict.fromkeys(n for n in ([lead.group()] if lead else []) + found if n in OPTIONS))
    for name in sorted(names, key=len, reverse=True):       # near_threshold before threshold
        # its first mention only: "languages: auto cannot be combined with other languages"
        message = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", flag_for(name), message, count=1)
    return message


def signal_number(name: str) -> int:
    import signal
    return int(getattr(signal, name))


def _stopped(command: str, signum: int, resumable: bool = False) -> int:
    import signal
    if signum == signal.SIGINT and not resumable:
        print("corpustool: interrupted", file=sys.stderr)
    elif signum == signal.SIGINT:
        # as for SIGTERM: Ctrl-C left a checkpoint, and the way on is worth a line
        print(f"corpustool {command}: interrupted; run it again with --resume to continue", file=sys.stderr)
    elif resumable:
        name = signal.Signals(signum).name
        print(f"corpustool {command}: stopped by {name}; run it again with --resume to continue", file=sys.stderr)
    else:
        name = signal.Signals(signum).name
        print(f"corpustool {command}: stopped by {name}; no partial output was left", file=sys.stderr)
    return 128 + signum


def _stdout_closed(exc: BaseException) -> bool:
    """``exc``, or an error it was raised from, is EPIPE, and standard output has no reader left."""
    import errno
    import select

    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None or (isinstance(seen, OSError) and seen.errno == errno.EPIPE):
            break
        seen = seen.__cause__ or seen.__context__
    else:
        return False
    if seen is None:
        return False
    try:        # a pipe without a reader polls as an error (a worker's pipe breaking is no such thing)
        poll = select.poll()
        poll.register(sys.__stdout__.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _broken_pipe() -> int:
    # `corpustool ... | head`: the reader went away before the output was complete. Exit as a process
    # killed by SIGPIPE does (128 + 13), quietly like other Unix tools; the run failed: its other
    # outputs (--stats, --rejects) were not written, as after any error
    import os
    import signal
    try:        # the interpreter's last flush of stdout must not fail again (and print about it)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass
    return 128 + signal.SIGPIPE

