"""Helpers shared by the commands: the JSON Lines document stream, common options."""
from __future__ import annotations

import argparse
import heapq
import json
import os
import sys
from typing import IO, Any, Iterable, Iterator

from ..document import Document, MalformedDocument
from ..errors import DataError, OptionError
from ..language import split_langs
from ..options import EXTRACTOR_NAMES, JUSTEXT_NAMES, add_options
from ..stage import Stage, StageStats


def read_stream(stream: IO[str] | IO[bytes] | None = None, name: str = "<stdin>") -> Iterator[Document]:
    """Documents from a JSON Lines stream; a malformed line is reported and counted, not fatal.

    Every stage filter reads its input here: a line that is no valid document
    (see :meth:`Document.from_json`) is skipped with one message naming the line
    (the first ``MAX_LISTED`` of a stream) and counted as ``malformed-jsonl`` in the
    ``input`` row of the statistics. The messages wait for the first document: a
    stream in which no line is a document (a WARC, HTML or a vertical file piped
    into a filter) ends with one :class:`DataError` that says what it looks like.
    An empty stream is no error (an earlier filter may have dropped everything).
    The stream is read as bytes (stdin by default),
    so a line that is not valid UTF-8 is such a line too, and never stops the stream
    or reaches the output (a text stream opened with ``surrogateescape`` shows
    its invalid bytes as lone surrogates: the same).
    """
    from ..readers.jsonl import MAX_LISTED, no_document_message

    stream = stream or getattr(sys.stdin, "buffer", sys.stdin)   # bytes: any input is read, none raises
    bad = 0
    good = 0
    waiting: list[str] = []     # messages about malformed lines before the first document
    head = bytearray()          # the stream's first bytes while no line was a document: what is it?
    for lineno, line in enumerate(stream, 1):
        if not good and len(head) < 65536:
            head += line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape")
        line = line.strip()
        if not line:
            continue
        try:
            line = _utf8_line(line)
            doc = Document.from_json(line, fallback_id=f"{name}:{lineno}")
        except MalformedDocument as exc:
            bad += 1
            if bad == 1:
                first_problem = f"line {lineno}: {str(exc)[:200]}"
            message = None
            if bad <= MAX_LISTED:
                message = f"corpustool: {name} line {lineno}: malformed document skipped: {str(exc)[:200]}"
            elif bad == MAX_LISTED + 1:
                message = (f"corpustool: {name}: further malformed documents are counted in the statistics, "
                           f"not listed")
            if message:
                if good:
                    print(message, file=sys.stderr)
                else:
                    waiting.append(message)
            _MALFORMED.docs_in += 1
            _MALFORMED.count_drop("malformed-jsonl")
            continue
        if waiting:
            print("\n".join(waiting), file=sys.stderr)
            waiting = []
        good += 1
        _MALFORMED.docs_in += 1
        _MALFORMED.docs_out += 1
        yield doc
    if bad and not good:
        from ..readers.sniff import describe_content

        raise DataError(no_document_message(name, describe_content(bytes(head)), bad, first_problem,
                                            "the filters read the JSON Lines documents that `corpustool read` "
                                            "writes: corpustool read FILE | corpustool ..."))


def _utf8_line(line: bytes | str) -> str:
    """The line as text; MalformedDocument when it is not valid UTF-8."""
    if isinstance(line, str):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise MalformedDocument(f"invalid UTF-8 at character {exc.start}") from None
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedDocument(f"invalid UTF-8 at byte {exc.start}") from None


_MALFORMED = StageStats("input")


def write_stream(docs: Iterable[Document], out: IO[str] | None = None, detail: bool = False,
                 with_html: bool = False) -> int:
    out = out or sys.stdout
    n = 0
    for doc in docs:
        out.write(json.dumps(doc.to_dict(detail=detail, with_html=with_html), ensure_ascii=False,
                             separators=(",", ":")))
        out.write("\n")
        n += 1
    out.flush()
    return n


def check_outputs(args: argparse.Namespace, inputs: Iterable[str] = ()) -> None:
    """Refuse, before any work, output files (-o, --rejects, --stats, --report) that cannot be written,
    that are an input, or that are the same file twice."""
    from ..writers.base import check_distinct_outputs, check_one_stdout, check_output_path

    for name in ("output", "rejects", "stats", "report"):
        if getattr(args, name, None) in STDOUT_NAMES:
            setattr(args, name, "-")        # written as stdout, not renamed over the device
    named = [("-o", getattr(args, "output", None)), ("--rejects", getattr(args, "rejects", None)),
             ("--stats", getattr(args, "stats", None)), ("--report", getattr(args, "report", None))]
    # a filter (no -o) writes its document stream to standard output
    stream = [] if hasattr(args, "output") else [("the document stream", "-")]
    check_one_stdout(stream + [(f"{what} -", path) for what, path in named])
    check_distinct_outputs(named)
    for what, path in named:
        if path:
            check_output_path(path, inputs, what)


STDOUT_NAMES = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")

STATS_TABLE = ""     # `--stats` without FILE: the table on stderr only


def add_vertical_options(g) -> None:
    """Options of vertical output, the same for `build` and `vert` (and releases, from build's)."""
    add_options(g, ("target",))
    add_options(g, ("sentences",))


def add_stats_options(p: argparse.ArgumentParser, table: bool = False, rejects: bool = True) -> None:
    """``table``: the command prints its statistics table unless --quiet (build); a filter
    prints it only when asked (``--stats``), or every stage of a pipe would (issue 22)."""
    if table:
        p.add_argument("--stats", metavar="FILE", help="write per-stage statistics as JSON to FILE (- for stdout)")
    else:
        p.add_argument("--stats", metavar="FILE", nargs="?", const=STATS_TABLE,
                       help="print the statistics table on stderr; with FILE, write the statistics as JSON "
                            "to FILE instead")
    if rejects:
        p.add_argument("--rejects", metavar="FILE",
                       help="write dropped documents (id, url, stage, reason) as JSON Lines to FILE "
                            "(- for stdout)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar and no statistics on stderr" if table else "no messages on stderr")
    p.set_defaults(stats_table=table)


def check_stats_file(args: argparse.Namespace) -> None:
    """``--stats`` takes an optional FILE, so ``read --stats a.warc.gz b.warc.gz`` would take the first
    input for it and overwrite it: an existing file that is not ``.json`` is refused."""
    import os

    name = getattr(args, "stats", None)
    if name and os.path.isfile(name) and not name.lower().endswith(".json"):
        raise OptionError(f"--stats {name}: would overwrite a file that is not .json; put --stats after "
                          f"the inputs, or name a .json file")


def show_stats_table(args: argparse.Namespace) -> bool:
    """Whether a command prints its statistics table on stderr."""
    if getattr(args, "quiet", False):
        return False
    return getattr(args, "stats_table", False) or getattr(args, "stats", None) == STATS_TABLE


def add_clean_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("cleaning")
    add_options(g, ("languages", "extractor", "preset", "stoplist_file"))
    add_options(g, JUSTEXT_NAMES + ("region_max_link_density", "comments"))
    add_extractor_option(g)
    add_options(g, ("max_bytes", "min_bytes", "max_paragraphs", "no_stoplist"))


def add_extractor_option(p: Any) -> None:
    """``--option NAME=VALUE``: any option of the chosen extractor (read by :func:`extractor_options`)."""
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of the chosen extractor (repeatable), e.g. --option tc=15 for tcsw")


def extractor_options(args: argparse.Namespace) -> dict[str, Any]:
    """The extractor options of ``--option NAME=VALUE`` (values converted as eval's are)."""
    from ..eval.runner import convert_value

    kw: dict[str, Any] = {}
    for item in getattr(args, "option", None) or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--option needs NAME=VALUE, not {item!r}")
        kw[name.strip().replace("-", "_")] = convert_value(value.strip())
    return kw


def clean_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of :class:`corpustool.extractors.clean.Clean` from parsed options."""
    from ..extractors.clean import DEFAULT_EXTRACTOR

    kw: dict[str, Any] = {
        "extractor": args.extractor or DEFAULT_EXTRACTOR,
        "languages": split_langs(args.lang),
        "stoplist_file": args.stoplist,
        "max_bytes": args.max_bytes,
        "min_bytes": args.min_bytes,
        "max_paragraphs": args.max_paragraphs,
        "no_stoplist": args.no_stoplist,
    }
    for name in EXTRACTOR_NAMES:
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    kw.update(extractor_options(args))
    return kw


class RejectsWriter:
    """The ``--rejects`` file: one JSON line per dropped document.

    Written under a temporary name and moved into place by :meth:`close` when
    the run succeeds; :meth:`abort` (an error or a signal) removes it, so no
    partial rejects file is left. A resumable build writes ``REJECTS.partial``
    instead, kept across interruptions and cut back to the last checkpoint.
    ``-`` is standard output, written as the run goes (a resumable build refuses it).
    """

    def __init__(self, path: str | None, resume_at: int | None = None, resumable: bool = False) -> None:
        self.fh = None
        self.path = path
        self.resumable = resumable
        self.finished = False
        self.tmp: str | None = None
        # lines waiting for every document read before theirs to be kept or dropped: the file lists
        # dropped documents in input order (Pipeline._numbered), not in the order stages report them
        self._waiting: list[tuple[int, str]] = []
        self._decided: set[int] = set()
        self._next = 0          # the first document not yet kept or dropped
        self._seen = 0          # one past the last document heard of
        self.stdout = path == "-"
        if self.stdout:
            if resumable:
                raise OptionError("--resume needs a --rejects file, not standard output")
            self.fh = sys.stdout
        elif path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self.tmp = f"{path}.partial" if resumable else f"{path}.tmp{os.getpid()}"
            if resumable and resume_at is not None and not os.path.exists(self.tmp) and os.path.exists(path):
                # stopped after the rejects file was moved into place, before the checkpoint was removed
                os.replace(path, self.tmp)
            if resumable and resume_at is not None and os.path.exists(self.tmp):
                # a resumed build: keep what the finished shards wrote
                self.fh = open(self.tmp, "r+", encoding="utf-8")
                self.fh.truncate(resume_at)
                self.fh.seek(resume_at)
            else:
                self.fh = open(self.tmp, "w", encoding="utf-8")

    def size(self) -> int:
        if self.fh is None:
            return 0
        self._write_waiting()       # a checkpoint: every document read so far is decided
        self.fh.flush()
        os.fsync(self.fh.fileno())      # a checkpoint counts these bytes
        return self.fh.tell()

    def __call__(self, doc: Document, stage: str) -> None:
        if self.fh is None:
            return
        order = getattr(doc, "_order", None)
        if order is None:               # not numbered (a filter's stream): in the order reported
            self._write(self.line(doc, stage))
            return
        heapq.heappush(self._waiting, (order, self.line(doc, stage)))
        self._decide(order)

    def kept(self, doc: Document) -> None:
        """A numbered document was written to the corpus: the drops before it may go out."""
        order = getattr(doc, "_order", None)
        if self.fh is not None and order is not None:
            self._decide(order)

    def _decide(self, order: int) -> None:
        self._seen = max(self._seen, order + 1)
        self._decided.add(order)
        while self._next in self._decided:
            self._decided.discard(self._next)
            self._next += 1
        while self._waiting and self._waiting[0][0] < self._next:
            self._write(heapq.heappop(self._waiting)[1])

    def _write_waiting(self) -> None:
        while self._waiting:
            self._write(heapq.heappop(self._waiting)[1])
        self._decided.clear()
        self._next = self._seen

    def _write(self, line: str) -> None:
        try:
            self.fh.write(line)
        except OSError as exc:          # a full disk: the message names the rejects file
            from ..writers.base import named_error
            raise named_error(exc, self.path) from None

    @staticmethod
    def line(doc: Document, stage: str) -> str:
        """The line of one dropped document (also written by the Spark engine's tasks)."""
        rec = {"id": doc.id, "url": doc.url, "source": doc.source, "stage": stage, "reason": doc.drop_reason}
        return json.dumps(rec, ensure_ascii=False) + "\n"

    def append_file(self, path: str) -> None:
        """Lines written elsewhere by :meth:`line` (a Spark task's part), copied in as they are."""
        if self.fh is None:
            return
        import shutil

        try:
            with open(path, encoding="utf-8") as src:
                shutil.copyfileobj(src, self.fh, 1 << 20)
        except OSError as exc:
            from ..writers.base import named_error
            raise named_error(exc, self.path) from None

    def finish(self) -> None:
        """Everything written and closed, still under the temporary name (:meth:`commit` renames)."""
        if self.fh is not None:
            self._write_waiting()
            fh, self.fh = self.fh, None
            try:
                if self.stdout:             # not ours to close
                    fh.flush()
                    return
                fh.close()
            except OSError as exc:
                from ..writers.base import named_error
                raise named_error(exc, self.path) from None
            self.finished = True

    def commit(self) -> None:
        if self.finished:
            assert self.tmp is not None and self.path is not None
            os.replace(self.tmp, self.path)
            self.finished = False

    def close(self) -> None:
        """The run succeeded: the rejects file takes its name."""
        self.finish()
        self.commit()

    def abort(self) -> None:
        """The run failed or was stopped: no partial rejects file (a resumable one stays for the resume)."""
        if self.fh is not None and not self.stdout:
            try:
                self.fh.close()
            except OSError:
                pass
        self.fh = None
        if self.tmp and not self.resumable:
            from ..writers.base import remove_quietly
            remove_quietly(self.tmp)
        self.finished = False


def input_stats() -> list[StageStats]:
    """The ``input`` row (malformed lines of the stream), when there were any."""
    return [_MALFORMED] if _MALFORMED.drops else []


def run_stream_command(args: argparse.Namespace, stage: Stage, detail: bool = False,
                       then: Stage | None = None) -> int:
    """Run one stage as a filter: JSON Lines documents on stdin -> stdout (``then``: a stage run
    right after it, as build runs a site-level method's stream stage after the clean stage)."""
    from ..stats import print_table, write_stats

    check_outputs(args)
    rejects = RejectsWriter(getattr(args, "rejects", None))
    stages = [stage] if then is None else [stage, then]
    docs = read_stream()
    for s in stages:
        s.on_drop = rejects
        docs = s.run(docs)
    try:
        write_stream(docs, detail=detail)
        for s in stages:
            s.close()
    except BaseException:
        rejects.abort()
        raise
    rejects.close()
    stats = [s.stats for s in stages]
    if _MALFORMED.drops:
        stats.insert(0, _MALFORMED)
    if getattr(args, "stats", None):
        write_stats(args.stats, stats)
    if show_stats_table(args):
        print_table(stats, file=sys.stderr)
    return 0
