"""A tolerant reader of vertical files (one token per line, structures as tags).

    <doc id="1" url="...">
    <p>
    Hello
    <g/>
    ,
    world
    </p>
    </doc>

The reader groups lines into documents (``<doc>`` by default) and documents
into blocks: a paragraph (``<p>`` ... ``</p>``, or an implicit one for tokens
and tags outside any paragraph) keeps its lines verbatim and the first column
of its token lines as tokens. Other tags and ``<g/>`` are passed through
inside the block they occur in; lines outside every document are passed
through as they are.

Malformed input never stops the reader: a ``<doc>`` while a document is open
closes it, a missing ``</doc>`` at the end is supplied implicitly, unbalanced
``</p>`` / ``</doc>`` are kept as plain lines, tokens outside documents form
an implicit document, overlong documents are cut into parts. Each problem is
reported once per occurrence through ``warn`` with the file name and line.
Lines are kept exactly (bytes that are not UTF-8 survive via
``surrogateescape``), so writing every line back reproduces the input.
"""
from __future__ import annotations

import re
import sys
from collections import Counter

import numpy as np
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Union

TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)(?:\s[^>]*)?(/?)>\Z")
DEFAULT_MAX_DOC_TOKENS = 5_000_000
_BLANKS = (" ", "\t", "\f", "\v", "\r")
_WHITESPACE_LINE = re.compile(r"^[ \t\f\v\r]+$", re.MULTILINE)


@dataclass
class VerticalBlock:
    """Lines of one paragraph (``tokens`` from its token lines) in a document."""

    lines: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    line: int = 0            # line number of the block's first line
    explicit: bool = False   # opened by a paragraph tag


@dataclass
class VerticalDocument:
    header: str | None                 # the <doc ...> line; None for an implicit document or a continuation
    footer: str | None                 # the </doc> line; None when missing or cut
    blocks: list[VerticalBlock]
    line: int                          # line number where the document (part) starts
    part: int = 0                      # > 0: continuation of an overlong document
    cut: bool = False                  # True: more parts follow

    @property
    def n_tokens(self) -> int:
        return sum(len(b.tokens) for b in self.blocks)

    @property
    def whole(self) -> bool:
        return self.part == 0 and not self.cut


@dataclass
class OutsideLines:
    """Lines outside every document (passed through)."""

    lines: list[str]
    line: int


VerticalItem = Union[VerticalDocument, OutsideLines]


class VerticalReader:
    """Iterate a vertical stream as :class:`VerticalDocument` and :class:`OutsideLines` items.

    ``stream`` is a file object (text, or binary UTF-8; read in 4 MiB chunks)
    or any iterable of lines. CRLF line ends are read as LF.
    """

    def __init__(self, stream: Iterable[str], name: str = "<stdin>", doc_tag: str = "doc",
                 par_tag: str = "p", max_doc_tokens: int = DEFAULT_MAX_DOC_TOKENS,
                 warn: Callable[[str], None] | None = None) -> None:
        if not doc_tag:
            raise ValueError("the document tag must not be empty")
        self.stream = stream
        self.name = name
        self.doc_tag = doc_tag
        self.par_tag = par_tag
        self.max_doc_tokens = max_doc_tokens
        self.warn_fn = warn if warn is not None else _print_warning
        self.problems: Counter = Counter()
        self.documents = 0

    def warn(self, kind: str, lineno: int, message: str) -> None:
        self.problems[kind] += 1
        self.warn_fn(f"{self.name}:{lineno}: {message}")

    # -- input in chunks ------------------------------------------------------
    CHUNK_BYTES = 4 << 20

    def _chunks(self) -> Iterator[str]:
        """The input as text chunks that end at a line end (the last may not)."""
        src = self.stream
        read = getattr(src, "read", None)
        if read is not None:
            import codecs

            decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
            rest = ""
            while True:
                data = read(self.CHUNK_BYTES)
                if not data:
                    break
                if isinstance(data, bytes):
                    data = decoder.decode(data)
                text = rest + data
                cut = text.rfind("\n") + 1
                if cut == 0:
                    rest = text
                    continue
                rest = text[cut:]
                yield text[:cut]
            if rest:
                yield rest
            return
        buf: list[str] = []
        size = 0
        for line in src:
            buf.append(line if line.endswith("\n") else line + "\n")
            size += len(line)
            if size >= self.CHUNK_BYTES:
                yield "".join(buf)
                buf, size = [], 0
        if buf:
            yield "".join(buf)

    def __iter__(self) -> Iterator[VerticalItem]:
        """Scan chunk by chunk: numpy finds the lines that may be tags (they start
        with "<"), so token lines are only ever handled as slices of lines."""
        doc_tag = self.doc_tag
        tag_match = TAG.match
        self._doc: VerticalDocument | None = None
        self._block: VerticalBlock | None = None
        self._outside: list[str] = []
        self._outside_line = 0
        self._doc_tokens = 0
        base = 0                      # lines before the current chunk
        for chunk in self._chunks():
            # lines end at "\n" only and keep a CR (CRLF, a lone CR) as the default engine keeps it:
            # in the line written back, and in its token; a tag line may end in CR ("<p>\r")
            lines = chunk.split("\n")
            if chunk.endswith("\n"):
                lines.pop()
            n = len(lines)
            raw = np.frombuffer(chunk.encode("utf-8", "surrogateescape"), dtype=np.uint8)
            ends = np.flatnonzero(raw == 10)
            if ends.size < n:
                ends = np.append(ends, raw.size)
            starts = np.empty(n, dtype=np.int64)
            starts[0] = 0
            starts[1:] = ends[:-1] + 1
            lengths = ends - starts
            nonempty = lengths > 0
            first = np.zeros(n, dtype=np.uint8)
            first[nonempty] = raw[starts[nonempty]]
            blank = ~nonempty
            cols = re.sub(r"\t[^\n]*", "", chunk).split("\n") if "\t" in chunk else lines
            # (a line of blanks starts with one: test that cheaply before the regex)
            maybe_blank = chunk.startswith(_BLANKS) or any("\n" + c in chunk for c in _BLANKS)
            if (maybe_blank and _WHITESPACE_LINE.search(chunk)) or (cols is not lines and "\n\t" in "\n" + chunk):
                # rare: lines of blanks, or an empty first column, are no tokens
                blank = np.array([not c.strip() for c in cols[:n]], dtype=bool)
            blank_any = bool(blank.any())
            tags = np.flatnonzero(first == 60).tolist()
            pos = 0
            for t in tags + [n]:
                if t > pos:
                    yield from self._gap(lines, cols, blank if blank_any else None, pos, t, base)
                if t == n:
                    break
                line = lines[t]
                m = tag_match(line[:-1] if line.endswith("\r") else line)
                if m is None:      # "<3", "<" ...: a token after all
                    yield from self._gap(lines, cols, blank if blank_any else None, t, t + 1, base)
                else:
                    yield from self._tag(line, m, base + t + 1)
                pos = t + 1
            base += n
        doc = self._doc
        if doc is not None:
            if doc.header is not None or doc.part:
                self.warn("missing-doc-end", base,
                          f"end of input: the document from line {doc.line} has no </{doc_tag}>")
            yield self._finish(doc)
        yield from self._flush_outside()

    # -- helpers of __iter__ ---------------------------------------------------
    def _flush_outside(self) -> Iterator[VerticalItem]:
        if self._outside:
            yield OutsideLines(self._outside, self._outside_line)
            self._outside = []

    def _to_outside(self, lines: list[str], lineno: int) -> None:
        if not self._outside:
            self._outside_line = lineno
        self._outside.extend(lines)

    def _finish(self, d: VerticalDocument) -> VerticalDocument:
        if d.whole and d.n_tokens == 0:
            self.warn("empty-document", d.line, "empty document (no tokens)")
        self.documents += 1
        return d

    def _new_doc(self, header: str | None, lineno: int, part: int = 0) -> Iterator[VerticalItem]:
        yield from self._flush_outside()
        self._doc = VerticalDocument(header, None, [], lineno, part=part)
        self._block = None
        self._doc_tokens = 0

    def _open_block(self, lineno: int, explicit: bool = False, first_line: str | None = None) -> VerticalBlock:
        block = VerticalBlock([first_line] if first_line is not None else [], [], lineno, explicit)
        self._doc.blocks.append(block)
        self._block = block
        return block

    def _gap(self, lines: list[str], cols: list[str], blank, a: int, b: int, base: int) -> Iterator[VerticalItem]:
        """Lines a..b-1 of the chunk: token lines (and blank lines)."""
        while a < b:
            if self._doc is None:
                if blank is not None:
                    nb = np.flatnonzero(~blank[a:b])
                    if nb.size == 0:
                        self._to_outside(lines[a:b], base + a + 1)
                        return
                    f = a + int(nb[0])
                    if f > a:
                        self._to_outside(lines[a:f], base + a + 1)
                    a = f
                self.warn("outside-doc", base + a + 1, "token outside a document; starting an implicit document")
                yield from self._new_doc(None, base + a + 1)
            block = self._block if self._block is not None else self._open_block(base + a + 1)
            if blank is None:
                count = b - a
                token_at = None
            else:
                token_at = a + np.flatnonzero(~blank[a:b])
                count = int(token_at.size)
            room = self.max_doc_tokens - self._doc_tokens
            stop = b
            if count >= room:
                # the document reaches its limit inside this gap: cut after that token
                stop = (a + room if token_at is None else int(token_at[room - 1])) + 1
                count = room
            block.lines.extend(lines[a:stop])
            if token_at is None:
                block.tokens.extend(cols[a:stop])
            else:
                block.tokens.extend([cols[i] for i in token_at[:count].tolist()])
            self._doc_tokens += count
            if stop < b or self._doc_tokens >= self.max_doc_tokens:
                if self._doc_tokens >= self.max_doc_tokens:
                    doc = self._doc
                    lineno = base + stop
                    self.warn("overlong-document", lineno,
                              f"document from line {doc.line} exceeds {self.max_doc_tokens} tokens; "
                              f"cutting it here (parts are de-duplicated separately)")
                    doc.cut = True
                    yield self._finish(doc)
                    was_explicit = block.explicit
                    self._doc = VerticalDocument(None, None, [], lineno + 1, part=doc.part + 1)
                    self._doc_tokens = 0
                    self._open_block(lineno + 1, was_explicit)
            a = stop

    def _tag(self, line: str, m: re.Match, lineno: int) -> Iterator[VerticalItem]:
        doc_tag, par_tag = self.doc_tag, self.par_tag
        closing, name, _ = m.groups()
        doc, block = self._doc, self._block
        if name == doc_tag:
            if not closing:
                if doc is not None:
                    if doc.header is not None or doc.part:
                        self.warn("missing-doc-end", lineno,
                                  f"<{doc_tag}> while the document from line {doc.line} is still open; "
                                  f"closing it")
                    yield self._finish(doc)
                yield from self._new_doc(line, lineno)
            elif doc is None:
                self.warn("unbalanced-doc-end", lineno, f"</{doc_tag}> without an open <{doc_tag}>; kept")
                self._to_outside([line], lineno)
            else:
                if block is not None and block.explicit:
                    self.warn("missing-par-end", lineno,
                              f"<{par_tag}> from line {block.line} not closed before </{doc_tag}>")
                doc.footer = line
                yield self._finish(doc)
                self._doc = None
                self._block = None
            return
        if par_tag and name == par_tag:
            if doc is None:
                self.warn("outside-doc", lineno,
                          f"<{'/' if closing else ''}{par_tag}> outside a document; starting an implicit document")
                yield from self._new_doc(None, lineno)
                block = None
            if not closing:
                if block is not None and block.explicit:
                    self.warn("missing-par-end", lineno,
                              f"<{par_tag}> while the paragraph from line {block.line} is still open")
                self._open_block(lineno, True, line)
            elif block is not None and block.explicit:
                block.lines.append(line)
                self._block = None
            else:
                self.warn("unbalanced-par-end", lineno, f"</{par_tag}> without an open <{par_tag}>; kept")
                if block is None:
                    block = self._open_block(lineno)
                block.lines.append(line)
            return
        # any other structure (and <g/>): part of the current block
        if doc is None:
            self._to_outside([line], lineno)
            return
        if block is None:
            block = self._open_block(lineno)
        block.lines.append(line)


def _print_warning(message: str) -> None:
    print(f"corpustool: {message}", file=sys.stderr)
