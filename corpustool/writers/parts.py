"""A corpus written in parts (the Spark engine): ``part-00000.vert.gz`` … in global document order,
``rejects-00000.jsonl`` …, and ``manifest.json`` (counts and checksums of every part).

:func:`merge_parts` (``corpustool merge DIR -o corpus.vert.gz``) concatenates the parts' text into
one output, compressed as a local run compresses it, so the result is byte-identical to the local
run's single file.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import sys

from ..errors import DataError, OptionError
from .base import commit_output, prepare_output, remove_quietly

MANIFEST = "manifest.json"
_OURS = re.compile(r"(part-\d{5}\..*|rejects-\d{5}\.jsonl|manifest\.json|\..*\.tmp\d+|part-\d{5}\..*\.tmp\d+)")


def clear_parts_dir(directory: str) -> None:
    """Make ``directory`` an empty parts directory; refuse one that holds files not written here."""
    if os.path.lexists(directory):
        if not os.path.isdir(directory) or os.path.islink(directory):
            raise OptionError(f"{directory} exists and is not a directory of parts")
        foreign = [n for n in os.listdir(directory) if not _OURS.fullmatch(n)]
        if foreign:
            raise OptionError(f"{directory} holds files that are no corpus parts ({', '.join(sorted(foreign)[:3])}); "
                              f"remove it or choose another output")
        shutil.rmtree(directory)
    os.makedirs(directory)


def write_manifest(directory: str, manifest: dict) -> None:
    tmp = os.path.join(directory, f".{MANIFEST}.tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(manifest, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, os.path.join(directory, MANIFEST))


def read_manifest(directory: str) -> dict:
    path = os.path.join(directory, MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
    except FileNotFoundError:
        raise OptionError(f"{directory} is no directory of corpus parts (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        raise DataError(f"{path}: not a manifest of corpus parts")
    return manifest


def check_part(directory: str, part: dict) -> str:
    """The path of a part whose size and SHA-256 are those the manifest records (else DataError)."""
    path = os.path.join(directory, part["file"])
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
                size += len(block)
    except OSError as exc:
        raise DataError(f"{path}: {exc.strerror or exc}") from None
    if size != part["bytes"] or digest.hexdigest() != part["sha256"]:
        raise DataError(f"{path}: size or checksum differs from {MANIFEST} (a damaged or replaced part)")
    return path


def merge_parts(directory: str, output: str, commit: bool = True) -> tuple[str, str]:
    """The parts' text, in order, into ``output`` (compressed when it ends in .gz, as a local run's
    writer does: byte-identical). Every part is checked against the manifest first. Returns
    (ready, plain) for :func:`commit_output` when ``commit`` is false."""
    manifest = read_manifest(directory)
    paths = [check_part(directory, part) for part in manifest["parts"]]
    if output == "-":
        out = sys.stdout.buffer
        for path in paths:
            _copy_text(path, out)
        out.flush()
        return "-", "-"
    plain = f"{output}.tmp{os.getpid()}"
    try:
        with open(plain, "wb") as dst:
            for path in paths:
                _copy_text(path, dst)
        ready = prepare_output(plain, output)
    except BaseException:
        remove_quietly(plain)
        raise
    if commit:
        commit_output(ready, plain, output)
    return ready, plain


def _copy_text(path: str, dst) -> None:
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, dst, 1 << 20)
    else:
        with open(path, "rb") as src:
            shutil.copyfileobj(src, dst, 1 << 20)
