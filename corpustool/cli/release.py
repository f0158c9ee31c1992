"""``corpustool release``: reproducible corpus releases (init, build, manifest, verify)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import OptionError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("release", help="reproducible corpus releases: a Makefile, a config and a manifest",
                       description="Set up and build a corpus release: 'init' writes release.json and a "
                                   "Makefile; 'make' in that directory builds the corpus and manifest.json "
                                   "(versions, options, input and output checksums, per-stage statistics).")
    rs = p.add_subparsers(dest="release_command", metavar="SUBCOMMAND", parser_class=type(p))
    p.set_defaults(func=lambda args: _missing_subcommand(p))

    q = rs.add_parser("init", help="write release.json and a Makefile into DIR")
    q.add_argument("directory", metavar="DIR")
    q.add_argument("--input", dest="inputs", nargs="+", action="extend", required=True, metavar="PATH",
                   help="crawl files or directories (repeatable)")
    q.add_argument("--lang", help="language(s) of the corpus, as for 'corpustool build' (default auto)")
    q.add_argument("--workers", type=int, help="worker processes (the output is the same for any number)")
    q.add_argument("--extractor", help="extraction method (default: that of 'corpustool build')")
    q.add_argument("--target", choices=("manatee", "cwb"),
                   help="the corpus manager the vertical file is for (default: that of 'corpustool build'; "
                        "make encode compiles it)")
    q.add_argument("--name", help="release name (default: the directory's name)")
    q.add_argument("--output", default="corpus.vert.gz",
                   help="corpus file name inside DIR (default corpus.vert.gz; .vert/.txt/.jsonl, optional .gz)")
    q.add_argument("--set", dest="settings", action="append", default=[], metavar="OPTION=VALUE",
                   help="any other build option, e.g. --set near_threshold=0.9 --set no_dedup_para=true")
    q.add_argument("--force", action="store_true", help="overwrite an existing release.json and Makefile")
    q.set_defaults(func=run_init)

    q = rs.add_parser("build", help="run 'corpustool build' with the options of a release config")
    q.add_argument("config", metavar="CONFIG", type=_in_release("release.json"),
                   help="the release's release.json (or its directory)")
    q.set_defaults(func=run_build)

    q = rs.add_parser("manifest", help="write manifest.json of a built release")
    q.add_argument("config", metavar="CONFIG", type=_in_release("release.json"),
                   help="the release's release.json (or its directory)")
    q.add_argument("-o", "--output", help="manifest file (default: manifest.json next to CONFIG)")
    q.set_defaults(func=run_manifest)

    q = rs.add_parser("inputs", help="write the inputs' sizes and times (the Makefile's prerequisite)",
                      description="Write the path, size and modification time of every input file of a "
                                  "release to FILE, leaving FILE untouched when nothing changed; the "
                                  "release's Makefile rebuilds the corpus when FILE changes.")
    q.add_argument("config", metavar="CONFIG", type=_in_release("release.json"),
                   help="the release's release.json (or its directory)")
    q.add_argument("-o", "--output", required=True, metavar="FILE")
    q.set_defaults(func=run_inputs)

    q = rs.add_parser("verify", help="check the config, inputs and outputs against a manifest.json")
    q.add_argument("manifest", metavar="MANIFEST", type=_in_release("manifest.json"),
                   help="the release's manifest.json (or its directory)")
    q.set_defaults(func=run_verify)


class BuildCommandLine:
    """``corpustool build`` as a release sees it (:class:`corpustool.release.BuildCommand`): the
    options, their defaults and their flags read from the command's own parser, so a release
    records exactly what the installed command takes."""

    # build options that the release itself sets (file names) or that do not affect the result
    NOT_OPTIONS = {"inputs", "output", "stats", "rejects", "quiet", "func", "command", "help"}

    def parser(self) -> argparse.ArgumentParser:
        from . import build_parser

        parser = build_parser()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices["build"]
        raise RuntimeError("the CLI has no build command")

    def _option_actions(self) -> dict[str, argparse.Action]:
        """dest -> argparse action of every option of ``corpustool build`` a release records."""
        return {a.dest: a for a in self.parser()._actions
                if a.option_strings and a.dest not in self.NOT_OPTIONS}

    def defaults(self) -> dict[str, Any]:
        """Every option of ``corpustool build`` with its default value."""
        return {dest: action.default for dest, action in sorted(self._option_actions().items())}

    def argv(self, options: dict[str, Any]) -> list[str]:
        """Command-line arguments of ``corpustool build`` that set ``options``."""
        actions = self._option_actions()
        argv: list[str] = []
        for dest, value in sorted(options.items()):
            action = actions.get(dest)
            if action is None:
                raise OptionError(f"unknown build option {dest!r} (options are the long names of "
                                  f"'corpustool build' with '_' for '-', e.g. 'min_lang_confidence')")
            flag = max(action.option_strings, key=len)
            if action.nargs == 0:                      # a switch such as --no-dedup-near
                if value not in (True, False, None):
                    raise OptionError(f"build option {dest!r} is a switch: use true or false, not {value!r}")
                if value is not None and value == action.const and value != action.default:
                    argv.append(flag)
                continue
            if value is None:
                continue
            if isinstance(action, argparse._AppendAction):      # repeatable, e.g. --option NAME=VALUE
                items = value if isinstance(value, list) else [value]
                argv.extend(f"{flag}={_scalar(dest, v)}" for v in items)
            elif action.nargs in ("+", "*") or isinstance(action.nargs, int):
                items = value if isinstance(value, list) else [value]
                if items:
                    argv.extend([flag, *(_scalar(dest, v) for v in items)])
            else:
                argv.append(f"{flag}={_scalar(dest, value)}")
        return argv

    def check(self, argv: list[str]) -> None:
        """Parse a release's build command as ``corpustool build`` would and validate its options."""
        from .build import options_from_args

        try:
            args = self.parser().parse_args(argv)
        except SystemExit:
            raise OptionError("the release's build options were refused (see the message above)") from None
        options_from_args(args)

    def run(self, argv: list[str]) -> int:
        from . import main

        return main(argv)


def _scalar(dest: str, value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise OptionError(f"build option {dest!r} takes single values, not {type(value).__name__}")
    return str(value)


BUILD = BuildCommandLine()


def _in_release(name: str):
    """A file argument that may also be given as the release's directory (``release verify my-release``)."""
    def convert(path: str) -> str:
        return os.path.join(path, name) if os.path.isdir(path) else path
    return convert


def _missing_subcommand(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _parse_setting(text: str) -> tuple[str, object]:
    import json

    key, sep, value = text.partition("=")
    key = key.strip().lstrip("-").replace("-", "_")
    if not sep or not key:
        raise OptionError(f"--set needs OPTION=VALUE, got {text!r}")
    try:
        parsed = json.loads(value)        # numbers, true/false, null
    except ValueError:
        parsed = value                    # anything else is a string
    return key, parsed


def run_init(args: argparse.Namespace) -> int:
    from ..release import init_release

    options: dict[str, object] = dict(_parse_setting(s) for s in args.settings)
    for key in ("lang", "workers", "extractor", "target"):
        value = getattr(args, key)
        if value is not None:
            options[key] = value
    written = init_release(args.directory, args.inputs, options, name=args.name, output=args.output,
                           force=args.force, build=BUILD)
    for path in written:
        print(f"corpustool release: wrote {path}", file=sys.stderr)
    print(f"corpustool release: run 'make -C {args.directory}' to build the corpus and its manifest",
          file=sys.stderr)
    return 0


def run_build(args: argparse.Namespace) -> int:
    from ..release import run_build as build

    return build(args.config, BUILD)


def run_manifest(args: argparse.Namespace) -> int:
    from ..release import write_manifest

    manifest = write_manifest(args.config, args.output, build=BUILD)
    print(f"corpustool release: manifest of {len(manifest['inputs'])} input and {len(manifest['outputs'])} "
          f"output files written", file=sys.stderr)
    return 0


def run_inputs(args: argparse.Namespace) -> int:
    from ..release import write_inputs_state

    try:
        if write_inputs_state(args.config, args.output):
            print(f"corpustool release: inputs changed ({args.output})", file=sys.stderr)
    except OSError as exc:
        raise OptionError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from ..release import verify_manifest

    try:
        problems = verify_manifest(args.manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OptionError(f"cannot read manifest {args.manifest}: {exc}") from None
    for line in problems:
        print(f"corpustool release verify: {line}", file=sys.stderr)
    if not problems:
        print("corpustool release verify: all files match the manifest", file=sys.stderr)
    return 1 if problems else 0
