"""Helpers shared by the commands: the JSON Lines document stream, common options."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Any, Iterable, Iterator

from ..document import Document, MalformedDocument
from ..extractors.base import OptionError
from ..stage import Stage, StageStats


def read_stream(stream: IO[str] | None = None, name: str = "<stdin>") -> Iterator[Document]:
    """Documents from a JSON Lines stream; a malformed line is reported and counted, not fatal.

    Every stage filter reads its input here: a line that is no valid document
    (see :meth:`Document.from_json`) is skipped with one message naming the line
    (the first ``MAX_LISTED`` of a stream) and counted as ``malformed-jsonl`` in the
    ``input`` row of the statistics.
    """
    from ..readers.jsonl import MAX_LISTED

    stream = stream or sys.stdin
    bad = 0
    for lineno, line in enumerate(stream, 1):
        line = line.strip()
        if not line:
            continue
        try:
            doc = Document.from_json(line, fallback_id=f"{name}:{lineno}")
        except MalformedDocument as exc:
            bad += 1
            if bad <= MAX_LISTED:
                print(f"corpustool: {name} line {lineno}: malformed document skipped: {str(exc)[:200]}",
                      file=sys.stderr)
            if bad == MAX_LISTED:
                print(f"corpustool: {name}: further malformed documents are counted in the statistics, not listed",
                      file=sys.stderr)
            _MALFORMED.docs_in += 1
            _MALFORMED.count_drop("malformed-jsonl")
            continue
        _MALFORMED.docs_in += 1
        _MALFORMED.docs_out += 1
        yield doc


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
    from ..writers.base import check_distinct_outputs, check_output_path

    named = [("-o", getattr(args, "output", None)), ("--rejects", getattr(args, "rejects", None)),
             ("--stats", getattr(args, "stats", None)), ("--report", getattr(args, "report", None))]
    check_distinct_outputs(named)
    for what, path in named:
        if path:
            check_output_path(path, inputs, what)


STATS_TABLE = ""     # `--stats` without FILE: the table on stderr only


def add_vertical_options(g) -> None:
    """Options of vertical output, the same for `build` and `vert` (and releases, from build's)."""
    g.add_argument("--target", choices=("manatee", "cwb"), default="manatee",
                   help="the corpus manager that reads the vertical file: manatee (Sketch Engine, NoSketch "
                        "Engine; values escape \\ and \" only, no XML entities; the default) or cwb "
                        "(XML entities, for cwb-encode -x)")
    g.add_argument("--sentences", dest="sentences", action="store_true", default=True,
                   help="mark sentences with <s> in vertical output (the default)")
    g.add_argument("--no-sentences", dest="sentences", action="store_false",
                   help="no <s> in vertical output")


def add_stats_options(p: argparse.ArgumentParser, table: bool = False) -> None:
    """``table``: the command prints its statistics table unless --quiet (build); a filter
    prints it only when asked (``--stats``), or every stage of a pipe would (issue 22)."""
    if table:
        p.add_argument("--stats", metavar="FILE", help="write per-stage statistics as JSON to FILE")
    else:
        p.add_argument("--stats", metavar="FILE", nargs="?", const=STATS_TABLE,
                       help="print the statistics table on stderr; with FILE, write the statistics as JSON "
                            "to FILE instead")
    p.add_argument("--rejects", metavar="FILE",
                   help="write dropped documents (id, url, stage, reason) as JSON Lines to FILE")
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
    g.add_argument("--lang", default="auto",
                   help="language(s) of the corpus: ISO 639-1 codes or names, comma-separated, or 'auto' "
                        "(guess each page's language among all stoplists); default auto. A language "
                        "without a stoplist (zh, ja, th ...) is cleaned as --no-stoplist says")
    g.add_argument("--extractor", default=None, help="extraction method (see 'corpustool extractors')")
    g.add_argument("--preset", default=None,
                   help="jusText parameter preset: justext (package defaults, lengths in characters) "
                        "or A, B, C, D (Table 2.7 of Pomikálek's thesis, lengths in tokens)")
    g.add_argument("--stoplist", metavar="FILE", help="user stoplist file (one word per line)")
    g.add_argument("--length-low", type=int)
    g.add_argument("--length-high", type=int)
    g.add_argument("--stopwords-low", type=float)
    g.add_argument("--stopwords-high", type=float)
    g.add_argument("--max-link-density", type=float)
    g.add_argument("--length-unit", choices=("chars", "tokens"))
    g.add_argument("--max-heading-distance", type=int)
    g.add_argument("--no-headings", action="store_true", default=None,
                   help="do not apply the headings rule")
    g.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of the chosen extractor (repeatable), e.g. --option tc=15 for tcsw")
    g.add_argument("--max-bytes", type=int, default=10 * 1024 * 1024,
                   help="drop pages larger than this many bytes (default 10 MiB; Pomikálek's thesis used 1 MB)")
    g.add_argument("--min-bytes", type=int, default=0, help="drop pages smaller than this many bytes")
    g.add_argument("--no-stoplist", choices=("independent", "drop"), default="independent",
                   help="a page in a language without a stoplist (Chinese, Japanese, Thai ...): clean it in "
                        "jusText's language-independent mode, by length and link density (default), or drop it")


_JUSTEXT_OPTIONS = ("preset", "length_low", "length_high", "stopwords_low", "stopwords_high",
                    "max_link_density", "length_unit", "max_heading_distance", "no_headings")


def clean_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of :class:`corpustool.extractors.clean.Clean` from parsed options."""
    from ..extractors.clean import DEFAULT_EXTRACTOR

    kw: dict[str, Any] = {
        "extractor": args.extractor or DEFAULT_EXTRACTOR,
        "languages": split_langs(args.lang),
        "stoplist_file": args.stoplist,
        "max_bytes": args.max_bytes,
        "min_bytes": args.min_bytes,
        "no_stoplist": getattr(args, "no_stoplist", "independent"),
    }
    for name in _JUSTEXT_OPTIONS:
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    from ..eval.runner import convert_value

    for item in getattr(args, "option", None) or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--option needs NAME=VALUE, not {item!r}")
        kw[name.strip().replace("-", "_")] = convert_value(value.strip())
    return kw


def split_langs(value: str | None) -> list[str]:
    if value is None:
        return ["auto"]
    langs = [v.strip() for v in value.split(",") if v.strip()]
    if not langs:     # --lang "" is a mistake (an unset shell variable), not "every language"
        raise OptionError("--lang needs at least one language or 'auto'")
    return langs


class RejectsWriter:
    """The ``--rejects`` file: one JSON line per dropped document.

    Written under a temporary name and moved into place by :meth:`close` when
    the run succeeds; :meth:`abort` (an error or a signal) removes it, so no
    partial rejects file is left. A resumable build writes ``REJECTS.partial``
    instead, kept across interruptions and cut back to the last checkpoint.
    """

    def __init__(self, path: str | None, resume_at: int | None = None, resumable: bool = False) -> None:
        self.fh = None
        self.path = path
        self.resumable = resumable
        self.tmp: str | None = None
        if path:
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
        self.fh.flush()
        os.fsync(self.fh.fileno())      # a checkpoint counts these bytes
        return self.fh.tell()

    def __call__(self, doc: Document, stage: str) -> None:
        if self.fh is None:
            return
        rec = {"id": doc.id, "url": doc.url, "source": doc.source, "stage": stage, "reason": doc.drop_reason}
        self.fh.write(json.dumps(rec, ensure_ascii=False) + "\n")

    def close(self) -> None:
        """The run succeeded: the rejects file takes its name."""
        if self.fh is not None:
            self.fh.close()
            self.fh = None
            assert self.tmp is not None and self.path is not None
            os.replace(self.tmp, self.path)

    def abort(self) -> None:
        """The run failed or was stopped: no partial rejects file (a resumable one stays for the resume)."""
        if self.fh is not None:
            try:
                self.fh.close()
            except OSError:
                pass
            self.fh = None
            if not self.resumable:
                from ..writers.base import remove_quietly
                remove_quietly(self.tmp)


def run_stream_command(args: argparse.Namespace, stage: Stage, detail: bool = False) -> int:
    """Run one stage as a filter: JSON Lines documents on stdin -> stdout."""
    from ..stats import print_table, write_stats

    check_outputs(args)
    rejects = RejectsWriter(getattr(args, "rejects", None))
    stage.on_drop = rejects
    try:
        write_stream(stage.run(read_stream()), detail=detail)
        stage.close()
    except BaseException:
        rejects.abort()
        raise
    rejects.close()
    stats = [stage.stats]
    if _MALFORMED.drops:
        stats.insert(0, _MALFORMED)
    if getattr(args, "stats", None):
        write_stats(args.stats, stats)
    if show_stats_table(args):
        print_table(stats, file=sys.stderr)
    return 0
