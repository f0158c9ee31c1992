"""Reproducible corpus releases: a config file, a Makefile and a manifest.

``corpustool release init DIR`` writes ``DIR/release.json`` (inputs, output
names and every option of ``corpustool build``, defaults spelled out, so a
later change of a default cannot silently change the release) and a
``DIR/Makefile``. ``make`` in DIR runs ``corpustool build`` with exactly those
options (through ``corpustool release build``) and then ``corpustool release
manifest``, which writes ``manifest.json``: tool, Python and dependency
versions, the resolved options, the build command, the size and SHA-256 of
every input file and output file, and the per-stage statistics.

Nothing in the outputs or the manifest depends on the time or the machine's
paths inside DIR (the gzip writer fixes the mtime, the manifest has no
timestamp), so building the same release twice gives byte-identical files.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import sys
from contextlib import contextmanager
from typing import Any, Iterator, Protocol

from .errors import OptionError

CONFIG_NAME = "release.json"
MANIFEST_NAME = "manifest.json"
INPUTS_STATE_NAME = "inputs.state"     # what make compares to see a changed input
CONFIG_VERSION = 1
MANIFEST_VERSION = 1


# -- the build command ------------------------------------------------------------

class BuildCommand(Protocol):
    """What a release needs of ``corpustool build``; the command line gives it
    (:data:`corpustool.cli.release.BUILD`, read from the command's own parser)."""

    def defaults(self) -> dict[str, Any]:
        """Every option a release records (by its long name, ``-`` as ``_``) with its default."""

    def argv(self, options: dict[str, Any]) -> list[str]:
        """The command-line arguments that set ``options`` (an unknown or ill-typed one: OptionError)."""

    def check(self, argv: list[str]) -> None:
        """Refuse (OptionError) what ``corpustool build`` would refuse of these arguments."""

    def run(self, argv: list[str]) -> int:
        """Run ``corpustool`` with these arguments; its exit status."""


# -- the config file -----------------------------------------------------------

def load_config(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            config = json.load(fh)
    except OSError as exc:
        raise OptionError(f"cannot read release config {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise OptionError(f"release config {path} is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise OptionError(f"release config {path} must be a JSON object")
    inputs = config.get("inputs")
    if not isinstance(inputs, list) or not inputs or not all(isinstance(i, str) and i for i in inputs):
        raise OptionError(f"{path}: 'inputs' must be a non-empty list of paths")
    if "-" in inputs:
        raise OptionError(f"{path}: standard input cannot be a release input (it cannot be checksummed)")
    for key in ("output", "stats", "rejects"):
        if not isinstance(config.get(key), str) or not config[key] or config[key] == "-":
            raise OptionError(f"{path}: {key!r} must be a file name")
    if not isinstance(config.get("options", {}), dict):
        raise OptionError(f"{path}: 'options' must be an object")
    return config


def resolved_options(config: dict[str, Any], build: BuildCommand) -> dict[str, Any]:
    """The config's options over the defaults of the installed ``corpustool build``."""
    options = build.defaults()
    unknown = sorted(set(config.get("options", {})) - set(options))
    if unknown:
        raise OptionError(f"unknown build option(s) in the release config: {', '.join(unknown)}")
    options.update(config.get("options", {}))
    return options


def build_argv(config: dict[str, Any], build: BuildCommand) -> list[str]:
    """``corpustool build`` arguments of a release (paths relative to the release directory)."""
    return ["build", *config["inputs"], "-o", config["output"], "--stats", config["stats"],
            "--rejects", config["rejects"], *build.argv(resolved_options(config, build))]


def _release_path(path: str, directory: str) -> str:
    """An input as the config records it: relative when inside the release directory, else absolute."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, os.path.abspath(directory))
    return rel if not rel.startswith(os.pardir) else absolute


_MAKEFILE = """\
# Corpus release {name!s}, written by `corpustool release init`.
#
#   make         build the corpus ({output}) and {manifest}
#   make encode  compile it with the corpus manager of its target (CWB's cwb-encode and
#                cwb-makeall, or Manatee's encodevert, on PATH): registry/encode.sh
#   make clean   remove what make built
#
# Inputs and every option of `corpustool build` are in {config}; edit them
# there. {manifest} records tool and dependency versions, options, input and
# output checksums and the per-stage statistics.

PYTHON ?= {python}
CORPUSTOOL ?= $(PYTHON) -m corpustool
CONFIG := {config}
INPUTS := {inputs_state}

.PHONY: all clean encode FORCE
.DELETE_ON_ERROR:

all: {manifest}

{stats}: $(CONFIG) $(INPUTS)
\t$(CORPUSTOOL) release build $(CONFIG)

# path, size and modification time of every input file (directories walked), rewritten
# only when one changed: a changed, added or removed input rebuilds the corpus
$(INPUTS): FORCE
\t@$(CORPUSTOOL) release inputs $(CONFIG) -o $(INPUTS)

{manifest}: {stats}
\t$(CORPUSTOOL) release manifest $(CONFIG) -o {manifest}

encode: {manifest}
\tsh registry/encode.sh

clean:
\trm -f {output} {stats} {rejects} {manifest} $(INPUTS)
\trm -rf registry
"""


def init_release(directory: str, inputs: list[str], options: dict[str, Any] | None = None,
                 name: str | None = None, output: str = "corpus.vert.gz", force: bool = False, *,
                 build: BuildCommand) -> list[str]:
    """Write ``release.json`` and ``Makefile`` into ``directory``; return the paths written."""
    if not inputs:
        raise OptionError("a release needs at least one input", options=("input",))
    for path in inputs:
        if path == "-":
            raise OptionError("standard input cannot be a release input (it cannot be checksummed)")
        if not os.path.exists(path):
            raise OptionError(f"input {path} does not exist")
    if os.path.basename(output) != output or output in ("", ".", ".."):
        raise OptionError("output must be a plain file name inside the release directory", option="output")
    if any(c in output for c in " \t$#%:\\\"'"):
        raise OptionError("output must not contain spaces or any of $#%:\\\"' (it goes into a Makefile)", option="output")
    os.makedirs(directory, exist_ok=True)
    config_path = os.path.join(directory, CONFIG_NAME)
    makefile_path = os.path.join(directory, "Makefile")
    if not force:
        for path in (config_path, makefile_path):
            if os.path.exists(path):
                raise OptionError(f"{path} exists; use force to overwrite it", options=("force",))
    opts = build.defaults()
    unknown = sorted(set(options or {}) - set(opts))
    if unknown:
        raise OptionError(f"unknown build option(s): {', '.join(unknown)}")
    opts.update(options or {})
    if opts.get("registry") is None and _is_vertical(output):
        opts["registry"] = "registry"          # the corpus managers' configurations (make encode)
    config = {
        "config_version": CONFIG_VERSION,
        "name": name or os.path.basename(os.path.abspath(directory)),
        "inputs": [_release_path(p, directory) for p in inputs],
        "output": output,
        "stats": "stats.json",
        "rejects": "rejects.jsonl",
        "options": opts,
    }
    # refuse options that `corpustool build` would refuse, now rather than at `make` time
    build.check(build_argv(config, build)[1:])
    _write_json(config_path, config)
    with open(makefile_path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(_MAKEFILE.format(name=json.dumps(config["name"]), python=shlex.quote(sys.executable),
                                  config=CONFIG_NAME, manifest=MANIFEST_NAME, output=output, inputs_state=INPUTS_STATE_NAME,
                                  stats=config["stats"], rejects=config["rejects"]))
    return [config_path, makefile_path]


def _is_vertical(output: str) -> bool:
    from .writers.base import format_for
    try:
        return format_for(output) == "vert"
    except OptionError:
        return False


# -- building ------------------------------------------------------------------

@contextmanager
def _in_directory(directory: str) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(old)


def run_build(config_path: str, build: BuildCommand) -> int:
    """Run ``corpustool build`` with the release's options, in the release directory."""
    config = load_config(config_path)
    argv = build_argv(config, build)
    print("+ corpustool " + shlex.join(argv), file=sys.stderr)
    with _in_directory(os.path.dirname(os.path.abspath(config_path))):
        return build.run(argv)


# -- the manifest --------------------------------------------------------------

def input_files(paths: list[str]) -> Iterator[tuple[str, str]]:
    """(full path, path as shown) of every input file, directories walked recursively in sorted order."""
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(root, name)
                    rel = os.path.relpath(full, path).replace(os.sep, "/")
                    yield full, f"{path.rstrip('/')}/{rel}"
        elif os.path.isfile(path):
            yield path, path
        else:
            raise OptionError(f"{path} does not exist")


def write_inputs_state(config_path: str, output: str) -> bool:
    """Write the path, size and modification time of every input file to ``output`` unless the
    file already says exactly that (so make sees it change only when an input did). True if
    written. Paths are relative to the release directory, as in the config."""
    config = load_config(config_path)
    with _in_directory(os.path.dirname(os.path.abspath(config_path))):
        lines = []
        for full, shown in input_files(config["inputs"]):
            st = os.stat(full)
            lines.append(f"{st.st_size}\t{st.st_mtime_ns}\t{shown}\n")
    text = "".join(lines)
    try:
        with open(output, encoding="utf-8") as fh:
            if fh.read() == text:
                return False
    except (OSError, ValueError):
        pass
    tmp = f"{output}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, output)
    return True


def sha256_file(path: str, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block:
                break
            h.update(block)
    return h.hexdigest()


def file_entries(paths: list[str]) -> list[dict[str, Any]]:
    """Size and SHA-256 of every file, directories walked recursively in sorted order."""
    return [_entry(full, shown) for full, shown in input_files(paths)]


def _entry(full: str, shown: str) -> dict[str, Any]:
    return {"path": shown, "bytes": os.path.getsize(full), "sha256": sha256_file(full)}


_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def dependency_versions() -> dict[str, str | None]:
    """Installed versions of corpustool's runtime dependencies (importlib.metadata)."""
    from importlib import metadata

    try:
        requires = metadata.requires("corpustool") or []
    except metadata.PackageNotFoundError:
        requires = []
    versions: dict[str, str | None] = {}
    for req in requires:
        if "extra ==" in req.replace('"', "").replace("'", ""):
            continue
        m = _REQ_NAME.match(req)
        if not m:
            continue
        name = m.group(1)
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return dict(sorted(versions.items(), key=lambda kv: kv[0].lower()))


def tool_version() -> str:
    from importlib import metadata

    from . import __version__
    try:
        return metadata.version("corpustool")
    except metadata.PackageNotFoundError:
        return __version__


def make_manifest(config_path: str, build: BuildCommand) -> dict[str, Any]:
    config = load_config(config_path)
    directory = os.path.dirname(os.path.abspath(config_path))
    with _in_directory(directory):
        for key in ("output", "stats"):
            if not os.path.isfile(config[key]):
                raise OptionError(f"{config[key]} is missing: build the release first ('make' or "
                                  f"'corpustool release build {CONFIG_NAME}')")
        with open(config["stats"], encoding="utf-8") as fh:
            stats = json.load(fh)
        outputs = [config["output"], config["rejects"], config["stats"]]
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "name": config.get("name"),
            "tool": {"name": "corpustool", "version": tool_version()},
            "python": {"implementation": platform.python_implementation(),
                       "version": platform.python_version()},
            "dependencies": dependency_versions(),
            "command": "corpustool " + shlex.join(build_argv(config, build)),
            "options": resolved_options(config, build),
            "config": {"file": CONFIG_NAME, "sha256": sha256_file(CONFIG_NAME)},
            "inputs": file_entries(config["inputs"]),
            "outputs": file_entries([p for p in outputs if os.path.exists(p)]),
            "statistics": {k: stats[k] for k in ("stages", "corpus_sizes", "corpus") if k in stats},
        }
    return manifest


def write_manifest(config_path: str, output: str | None = None, *, build: BuildCommand) -> dict[str, Any]:
    manifest = make_manifest(config_path, build)
    if output is None:
        output = os.path.join(os.path.dirname(os.path.abspath(config_path)), MANIFEST_NAME)
    _write_json(output, manifest)
    return manifest


def verify_manifest(manifest_path: str) -> list[str]:
    """Files whose size or checksum no longer match the manifest (paths relative to its directory):
    the config, the inputs (and files added to an input directory since) and the outputs."""
    with open(manifest_path, encoding="utf-8") as fh:
        manifest = json.load(fh)
    problems = []
    with _in_directory(os.path.dirname(os.path.abspath(manifest_path))):
        config = manifest.get("config") or {}
        entries = [{"path": config["file"], "sha256": config["sha256"]}] if config.get("file") else []
        for entry in entries + manifest.get("inputs", []) + manifest.get("outputs", []):
            path = entry["path"]
            if not os.path.isfile(path):
                problems.append(f"{path}: missing")
            elif ("bytes" in entry and os.path.getsize(path) != entry["bytes"]) \
                    or sha256_file(path) != entry["sha256"]:
                problems.append(f"{path}: changed")
        if entries and os.path.isfile(config["file"]):
            # a file added to an input directory changes the corpus as much as a changed one
            known = {entry["path"] for entry in manifest.get("inputs", [])}
            try:
                roots = load_config(config["file"])["inputs"]
            except OptionError:
                roots = []
            for root in roots:
                if os.path.isdir(root):
                    problems.extend(f"{shown}: added" for _, shown in input_files([root])
                                    if shown not in known)
    return problems


def _write_json(path: str, data: Any) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(data, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    os.replace(tmp, path)
