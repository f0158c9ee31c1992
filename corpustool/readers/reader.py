"""The read stage: inputs (files, directories, stdin) to a stream of documents.

Inputs are read in the order given; directories are walked recursively in
sorted order, so the same inputs always give the same documents in the same
order with the same ids. With ``input_format="auto"`` a file's format comes
from its name (``.warc[.gz|.bz2|.zst]``, ``.arc[...]``, ``.jsonl[.gz]``, ``.html``/``.htm``
[``.gz``]); files given explicitly with another name are sniffed (a ``.txt`` file,
or one without markup, is a plain-text document: paragraphs between blank lines),
and in directories files with other names are skipped and counted. An empty
file is no document.

Nothing is lost silently: skipped records are counted in ``stats.extra``
(``skipped:request``, ``skipped:non-html``...), damaged files and records
are reported on stderr with the file and byte offset and counted
(``error:truncated``, ``error:bad-payload``...), and pages over ``max_bytes``
are yielded with ``drop_reason = "too-large"`` so the pipeline counts them.
"""
from __future__ import annotations

import io
import os
import sys
import zlib
from typing import IO, Iterable, Iterator, Sequence

from ..document import Document
from ..errors import OptionError
from ..stage import Stage
from .compressed import BZIP2, ZSTD, compression, unsupported
from .compressed import head as compressed_head
from .html_files import (is_html_name, is_text_name, read_html_bytes, read_html_file, read_maybe_gzip,
                         read_text_bytes, relative_url)
from .jsonl import is_jsonl_name, read_jsonl
from .read_report import ReadReport
from .sniff import describe_content, sniff_format
from .warc import BACKENDS, DEFAULT_BACKEND, read_archive

_WHOLE_FILE = (BZIP2, ZSTD)       # compressions read (streaming) for whole WARC and ARC files
FORMATS = ("auto", "warc", "arc", "html", "jsonl", "text")
_ARCHIVE_SUFFIXES = {f"{name}{z}": fmt for name, fmt in ((".warc", "warc"), (".arc", "arc"))
                     for z in ("", ".gz", ".bz2", ".zst")}


class InputError(Exception):
    """An input cannot be read for a reason other than damage (which is counted, not fatal)."""


class Reader(Stage):
    """A source stage: :meth:`read` yields the documents of the inputs."""

    name = "read"

    def __init__(self, inputs: list[str], input_format: str = "auto", max_bytes: int | None = None,
                 backend: str | None = None, stdin: IO[bytes] | None = None,
                 defer_decoding: bool = False, remote: Iterable[str] = ()) -> None:
        """``remote``: inputs another file system reads (Hadoop URIs, the Spark engine): not checked here."""
        super().__init__()
        remote = set(remote)
        self.remote = remote
        if input_format not in FORMATS:
            raise OptionError(f"unknown input format {input_format!r}; choose from: {', '.join(FORMATS)}")
        backend = backend or DEFAULT_BACKEND
        if backend not in BACKENDS:
            raise OptionError(f"unknown WARC reader {backend!r}; choose from: {', '.join(BACKENDS)}")
        if max_bytes is not None and max_bytes <= 0:
            raise OptionError("max_bytes must be a positive number of bytes")
        if not inputs:
            raise OptionError("no input given")
        if list(inputs).count("-") > 1:
            raise OptionError("standard input ('-') can be given only once")
        # check every input before reading any: a typo must not surface after an hour of work
        missing = [p for p in inputs if p != "-" and p not in remote and not os.path.exists(p)]
        if missing:
            raise OptionError(f"input not found: {', '.join(missing)}")
        unreadable = [p for p in inputs if p != "-" and p not in remote and not os.access(p, os.R_OK)]
        if unreadable:
            raise OptionError(f"input not readable: {', '.join(unreadable)}")
        twice = read_twice([p for p in inputs if p != "-" and p not in remote])
        if twice:
            raise OptionError(twice)
        self.inputs = list(inputs)
        self.input_format = input_format
        self.max_bytes = max_bytes
        self.backend = backend
        self.stdin = stdin
        # compressed HTTP bodies (Content-Encoding) passed on compressed, marked in
        # ``doc.meta["content_encoding"]``, for the clean stage to decompress in its worker
        self.defer_decoding = defer_decoding
        # what the format readers tell: damage, skips, too large pages (counted in self.stats), notes
        self.report = ReadReport(self.stats, max_bytes=max_bytes, defer_decoding=defer_decoding)
        # the report's notes (files that held no document) are said when the next document comes
        # or at the end; with ``hold_notes`` (build) and no document at all they are kept for the
        # build's one error line (no_documents_message)
        self.hold_notes = False
        # shared_names of the run's files, found when reading starts; a reader of one input of a
        # longer run (a resumable build) is given the run's
        self.id_names: dict[str, str] | None = None
        # links_read_elsewhere: {symbolic link in an input directory: the path the run reads its file
        # by}, found when first asked; a reader of one input of a longer run is given the run's
        self.links: dict[str, str] | None = None

    @property
    def notes(self) -> list[str]:
        """One line per file that held no document though it had lines (a WARC given as JSON Lines)."""
        return self.report.notes

    # -- the stream ----------------------------------------------------------
    def run(self, docs: Iterable[Document] | None = None) -> Iterator[Document]:
        """A reader is a source: it ignores any input stream and yields its inputs' documents."""
        return self.read()

    def read(self) -> Iterator[Document]:
        if self.id_names is None:
            self.id_names = shared_names(self._displays())
        self.report.id_names = self.id_names
        for inp in self.inputs:
            if inp == "-":
                docs = self._read_stdin()
            elif os.path.isdir(inp):
                docs = self._read_dir(inp)
            else:
                docs = self._read_file(inp, inp, root=None)
            for doc in docs:
                if self.notes:
                    self.flush_notes()
                self._count(doc)
                yield doc
        if not (self.hold_notes and self.stats.docs_in == 0):
            self.flush_notes()

    def flush_notes(self) -> None:
        for message in self.notes:
            self.report.say(message)
        self.report.notes = []

    def no_documents_message(self) -> str:
        """The one line of a build whose inputs held no document at all: what they held instead."""
        names = ", ".join("standard input" if i == "-" else i for i in self.inputs)
        if len(self.inputs) == 1 and len(self.notes) == 1 and self.notes[0].startswith(f"{self.inputs[0]}: "):
            return f"no documents in {names}: {self.notes[0][len(self.inputs[0]) + 2:]}"
        counts = [_counted(k, v) for k, v in sorted(self.stats.extra.items()) if v]
        if len(self.inputs) == 1 and counts == ["1 empty file"]:
            counts = ["it is empty"]
        message = f"no documents in {names}"
        if counts:
            message += f" ({', '.join(counts)})"
        if self.notes:
            message += "; " + "; ".join(self.notes)
        return message

    def _count(self, doc: Document) -> None:
        if doc.raw is not None:
            self.stats.bytes_in += len(doc.raw)
        self.stats.docs_in += 1
        self.stats.count_out(doc)

    def _read_dir(self, root: str) -> Iterator[Document]:
        for path in self._walk(root):
            yield from self._read_file(path, path, root=root)

    def _displays(self) -> Iterator[str]:
        """The display names of the files the inputs hold, as :meth:`read` names them (nothing counted)."""
        for inp in self.inputs:
            if inp == "-":
                yield "<stdin>"
            elif os.path.isdir(inp):
                yield from self._walk(inp, count=False)
            else:
                yield inp

    def _walk(self, directory: str, count: bool = True) -> Iterator[str]:
        """Files under ``directory`` in sorted path order (entries sorted by name, subdirectories in place),
        without the links to a file the run reads by another path (:meth:`links_read_elsewhere`);
        ``count``: unreadable directories and skipped links are counted and named."""
        skip = self.links_read_elsewhere()
        for path, _link in self._tree(directory, count):
            first = skip.get(path)
            if first is None:
                yield path
            elif count:
                self.report.link_read_elsewhere(path, first)

    def _tree(self, directory: str, count: bool) -> Iterator[tuple[str, bool]]:
        """(path, is it a symbolic link?) of every file under ``directory`` in sorted path order, links to
        files included; links to directories are left out (counted with ``count``)."""
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if count:
                self.report.bad_record(directory, "error:unreadable-file", exc.strerror or str(exc))
            return
        for entry in entries:
            try:
                is_dir = entry.is_dir()          # follows symlinks, like the inputs themselves
            except OSError:
                is_dir = False
            if is_dir:
                if entry.is_symlink():
                    if count:
                        self.stats.extra["skipped:symlinked-directory"] += 1   # no loops
                    continue
                yield from self._tree(entry.path, count)
            else:
                try:
                    link = entry.is_symlink()
                except OSError:
                    link = False
                yield entry.path, link

    def links_read_elsewhere(self) -> dict[str, str]:
        """{link: path} for the symbolic links in the input directories whose file the run reads by
        another path: a file given as an input, a file of an input directory that is no link, or (when
        only links lead to it) the first link to it in reading order. Each file is read once, by that
        path; the links are skipped, counted as ``skipped:symlinked-file`` and named (a directory's
        links to its own files, or to another input's, gave their documents twice)."""
        if self.links is None:
            # (path, a link in a directory? None: an input itself) of every file the run reads by its
            # name, in reading order
            listing: list[tuple[str, bool | None]] = []
            for inp in self.inputs:
                if inp == "-" or inp in self.remote:
                    continue
                if os.path.isdir(inp):
                    listing += [(path, link) for path, link in self._tree(inp, count=False)
                                if self._format_by_name(path, in_dir=True) is not None]
                else:
                    listing.append((inp, None))
            self.links = {}
            links = [path for path, link in listing if link]
            if not links:
                return self.links
            read_by: dict[str, str] = {}
            real_dirs: dict[str, str] = {}      # a file that is no link is where its directory really is
            for path, link in listing:
                if link is None:
                    read_by.setdefault(os.path.realpath(path), path)
                elif not link:
                    folder, name = os.path.split(path)
                    if folder not in real_dirs:
                        real_dirs[folder] = os.path.realpath(folder)
                    read_by.setdefault(os.path.join(real_dirs[folder], name), path)
            for path in links:      # in reading order
                if not os.path.isfile(path):
                    continue        # a dangling link: unreadable, counted when it is read
                first = read_by.setdefault(os.path.realpath(path), path)
                if first != path:
                    self.links[path] = first
        return self.links

    def _read_file(self, path: str, display: str, root: str | None) -> Iterator[Document]:
        """The documents of one file; a read error part-way skips (and reports) the rest of that file only."""
        n = 0
        try:
            for doc in self._read_file_docs(path, display, root):
                n += 1
                yield doc
        except OSError as exc:
            self.report.bad_record(display, "error:unreadable-file",
                                   f"{exc.strerror or exc} after {n} documents; the rest of the file is skipped")
        except (OptionError, InputError):
            raise
        except Exception as exc:
            # a fault of ours: stop with one line that says where, not a traceback
            raise InputError(f"{display}: after {n} documents: {type(exc).__name__}: {exc}") from exc

    def _read_file_docs(self, path: str, display: str, root: str | None) -> Iterator[Document]:
        fmt = self._format_by_name(path, in_dir=root is not None)
        if fmt is None:
            self.stats.extra["skipped:file-type"] += 1
            return
        try:
            if os.path.getsize(path) == 0:
                self.stats.extra["empty-file"] += 1     # no document (an empty page is none either)
                return
        except OSError as exc:
            self.report.bad_record(display, "error:unreadable-file", exc.strerror or str(exc))
            return
        if fmt == "html":
            yield from read_html_file(path, display, relative_url(path, root), self.report)
            return
        try:
            fh = open(path, "rb")
        except OSError as exc:
            self.report.bad_record(display, "error:unreadable-file", exc.strerror or str(exc))
            return
        with fh:
            kind = compression(fh.read(10))
            fh.seek(0)
            if not self._readable_compression(kind, display):
                return
            if fmt in ("warc", "arc", "sniff"):
                head = _head(fh)
                sniffed = sniff_format(head)
                fh.seek(0)
                if fmt == "sniff" and sniffed == "html" and is_text_name(path) \
                        and describe_content(head) in ("plain text", "UTF-16 text"):
                    sniffed = "text"    # a .txt file: text unless it is markup (a page saved as .txt)
                if fmt == "sniff":
                    fmt = sniffed
                elif sniffed in ("warc", "arc"):
                    fmt = sniffed      # the bytes know better than the name
            if kind in _WHOLE_FILE and fmt not in ("warc", "arc"):
                fh.seek(0)
                self._refuse_compressed(kind, display, _head(fh))
                return
            if fmt in ("html", "text"):
                raw = read_maybe_gzip(fh, display, self.report)
                if raw is not None and fmt == "text":
                    yield from read_text_bytes(raw, display, self.report, url=relative_url(path, root))
                elif raw is not None:
                    yield from read_html_bytes(raw, display, self.report, url=relative_url(path, root))
            elif fmt == "jsonl":
                yield from read_jsonl(fh, display, self.report)
            else:
                yield from read_archive(path, display, fh, self.report, fmt=fmt, backend=self.backend)

    def _read_stdin(self) -> Iterator[Document]:
        stream = self.stdin if self.stdin is not None else sys.stdin.buffer
        data = stream.read()
        fh = io.BytesIO(data)
        fmt = self.input_format
        if fmt == "auto":
            fmt = sniff_format(_head(fh))
            fh.seek(0)
        if not data:
            self.stats.extra["empty-file"] += 1
            return
        kind = compression(data[:10])
        if not self._readable_compression(kind, "<stdin>"):
            return
        if kind in _WHOLE_FILE and fmt not in ("warc", "arc"):
            fh.seek(0)
            self._refuse_compressed(kind, "<stdin>", _head(fh))
            return
        if fmt in ("html", "text"):
            raw = read_maybe_gzip(fh, "<stdin>", self.report)
            if raw is not None and fmt == "text":
                yield from read_text_bytes(raw, "<stdin>", self.report, doc_id="stdin")
            elif raw is not None:
                yield from read_html_bytes(raw, "<stdin>", self.report, doc_id="stdin")
        elif fmt == "jsonl":
            yield from read_jsonl(fh, "<stdin>", self.report)
        else:
            yield from read_archive("<stdin>", "<stdin>", fh, self.report, fmt=fmt, backend=self.backend)

    def _readable_compression(self, kind: str | None, display: str) -> bool:
        """False (the file counted and named) when it is compressed in a way this run cannot read."""
        why = unsupported(kind)
        if why:
            self.report.bad_record(display, "error:unreadable-file", why)
        return not why

    def _refuse_compressed(self, kind: str, display: str, head: bytes) -> None:
        """bzip2 and Zstandard are read for whole WARC and ARC files only: anything else so compressed
        is named and counted, not passed on as one binary page."""
        what = describe_content(head) if head else "data"
        self.report.bad_record(display, "error:unreadable-file",
                               f"{kind}-compressed {what}: only WARC and ARC files are read {kind}-compressed; "
                               f"decompress it first")

    def _format_by_name(self, path: str, in_dir: bool) -> str | None:
        if self.input_format != "auto":
            return self.input_format
        name = path.lower()
        for suffix, fmt in _ARCHIVE_SUFFIXES.items():
            if name.endswith(suffix):
                return fmt
        if is_jsonl_name(name):
            return "jsonl"
        if is_html_name(name):
            return "html"
        return None if in_dir else "sniff"


def read_twice(inputs: Sequence[str]) -> str | None:
    """Why some file of ``inputs`` would be read twice (None: no file would): an input given twice
    (also as another path to it) or one inside a directory given too. Its documents would come twice
    under one id, and the second copies go as duplicates: a typo in a command line, refused."""
    seen: dict[str, str] = {}
    for inp in inputs:
        real = os.path.realpath(inp)
        if real in seen:
            return f"input given twice: {seen[real]} and {inp} are the same {_kind(inp)}"
        seen[real] = inp
    # (inside by its path as given, as the directory's walk reaches a linked file, or by where it is)
    places = [(inp, {os.path.abspath(inp), os.path.realpath(inp)}) for inp in inputs]
    for directory, tops in places:
        if not os.path.isdir(directory):
            continue
        for inp, paths in places:
            if inp != directory and any(p.startswith(top.rstrip(os.sep) + os.sep) for p in paths for top in tops):
                return (f"input {inp} is inside input directory {directory}: its files would be read twice "
                        f"(give one of the two)")
    return None


def _kind(path: str) -> str:
    return "directory" if os.path.isdir(path) else "file"


def shared_names(displays: Iterable[str]) -> dict[str, str]:
    """{display: display} for the files whose name another file of the run has: their documents' ids
    begin with the path as given (``d1/crawl.warc.gz:3``), so ids stay unique in the run; the ids of
    a run whose files all have different names stay ``name:N``."""
    by_name: dict[str, set[str]] = {}
    for display in displays:
        by_name.setdefault(os.path.basename(display), set()).add(display)
    return {d: d for paths in by_name.values() if len(paths) > 1 for d in paths}


def _head(fh: IO[bytes], n: int = 4096) -> bytes:
    """The first bytes of a file, decompressed when it is gzipped, bzip2- or Zstandard-compressed
    (damage is found later)."""
    head = fh.read(n)
    kind = compression(head)
    if kind in _WHOLE_FILE:
        return b"" if unsupported(kind) else compressed_head(fh, kind, n)
    if head[:2] == b"\x1f\x8b":
        try:
            d = zlib.decompressobj(zlib.MAX_WBITS | 16)
            fh.seek(0)
            head = d.decompress(fh.read(1 << 16), n)
        except (zlib.error, OSError):
            return b""
    return head


# the read stage's counters as no_documents_message names them: (one, several)
_COUNTER_WORDS = {"empty-file": ("empty file", "empty files"),
                  "skipped:file-type": ("file skipped in a directory: not .warc, .arc, .html, .htm or .jsonl",
                                        "files skipped in a directory: not .warc, .arc, .html, .htm or .jsonl"),
                  "skipped:non-html": ("non-HTML record skipped", "non-HTML records skipped"),
                  "skipped:symlinked-file": ("symbolic link to a file read by another path skipped",
                                             "symbolic links to files read by another path skipped"),
                  "records": ("record", "records")}


def _counted(counter: str, n: int) -> str:
    one, several = _COUNTER_WORDS.get(counter, (counter, counter))
    return f"{n} {one if n == 1 else several}"


def make_reader(inputs: list[str], input_format: str = "auto", max_bytes: int | None = None,
                backend: str | None = None, stdin: IO[bytes] | None = None,
                defer_decoding: bool = False, remote: Iterable[str] = ()) -> Reader:
    """The read stage for ``inputs`` (paths, directories, or "-" for standard input).

    ``defer_decoding``: compressed HTTP bodies are passed on compressed, for the clean
    stage to decompress (in its supervised worker, capped at its size limit).
    """
    return Reader(inputs, input_format=input_format, max_bytes=max_bytes, backend=backend, stdin=stdin,
                  defer_decoding=defer_decoding, remote=remote)
