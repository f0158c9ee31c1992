"""Command line: ``corpustool COMMAND ...``, a thin layer over the library.

Every module of this package except ``common`` defines ``register(subparsers)``
and adds its commands; modules are discovered, so a new command is a new
module. Invalid options end the program with status 2 and one line on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from .. import __version__
from ..errors import OptionError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, status 2
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="corpustool",
                     description="Turn crawled HTML into clean, de-duplicated corpora in vertical format.")
    parser.add_argument("--version", action="version", version=f"corpustool {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    from . import __path__ as pkg_path
    # the pipeline's own commands first, the rest alphabetically
    first = {"build": 0, "stages": 1}
    for info in sorted(pkgutil.iter_modules(pkg_path), key=lambda m: (first.get(m.name, 2), m.name)):
        if info.name in ("common",):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


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
    try:
        return int(args.func(args) or 0)
    except OptionError as exc:
        print(f"corpustool {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # `corpustool ... | head`: the reader went away; not an error of ours
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            return 0
    except KeyboardInterrupt:
        print("corpustool: interrupted", file=sys.stderr)
        return 130
