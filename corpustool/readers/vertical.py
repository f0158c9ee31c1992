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
from dataclasses import dataclass, field
from typing import IO, Callable, Iterable, Iterator, Union

TAG = re.compile(r"<(/?)([A-Za-z_][\w.:-]*)(?:\s[^>]*)?(/?)>\Z")
DEFAULT_MAX_DOC_TOKENS = 5_000_000


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
    """Iterate a vertical stream as :class:`VerticalDocument` and :class:`OutsideLines` items."""

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
        self.lines_read = 0
        self.documents = 0

    def warn(self, kind: str, lineno: int, message: str) -> None:
        self.problems[kind] += 1
        self.warn_fn(f"{self.name}:{lineno}: {message}")

    def __iter__(self) -> Iterator[VerticalItem]:
        doc_tag, par_tag = self.doc_tag, self.par_tag
        tag_match = TAG.match
        doc: VerticalDocument | None = None
        block: VerticalBlock | None = None      # the open block of ``doc``
        outside: list[str] = []
        outside_line = 0
        doc_tokens = 0
        lineno = 0

        def flush_outside() -> Iterator[VerticalItem]:
            nonlocal outside
            if outside:
                yield OutsideLines(outside, outside_line)
                outside = []

        def finish(d: VerticalDocument, end_line: int) -> VerticalDocument:
            if d.whole and d.n_tokens == 0:
                self.warn("empty-document", d.line, "empty document (no tokens)")
            self.documents += 1
            return d

        for raw in self.stream:
            lineno += 1
            line = raw[:-1] if raw.endswith("\n") else raw
            m = tag_match(line) if line[:1] == "<" else None
            if m is not None:
                closing, name, _ = m.groups()
                if name == doc_tag:
                    if not closing:
                        if doc is not None:
                            self.warn("missing-doc-end", lineno,
                                      f"<{doc_tag}> while the document from line {doc.line} is still open; "
                                      f"closing it")
                            yield finish(doc, lineno)
                        yield from flush_outside()
                        doc = VerticalDocument(line, None, [], lineno)
                        block = None
                        doc_tokens = 0
                    elif doc is None:
                        self.warn("unbalanced-doc-end", lineno, f"</{doc_tag}> without an open <{doc_tag}>; kept")
                        if not outside:
                            outside_line = lineno
                        outside.append(line)
                    else:
                        if block is not None and block.explicit:
                            self.warn("missing-par-end", lineno,
                                      f"<{par_tag}> from line {block.line} not closed before </{doc_tag}>")
                        doc.footer = line
                        yield finish(doc, lineno)
                        doc = None
                        block = None
                    continue
                if par_tag and name == par_tag:
                    if doc is None:
                        self.warn("outside-doc", lineno,
                                  f"<{'/' if closing else ''}{par_tag}> outside a document; "
                                  f"starting an implicit document")
                        yield from flush_outside()
                        doc = VerticalDocument(None, None, [], lineno)
                        block = None
                        doc_tokens = 0
                    if not closing:
                        if block is not None and block.explicit:
                            self.warn("missing-par-end", lineno,
                                      f"<{par_tag}> while the paragraph from line {block.line} is still open")
                        block = VerticalBlock([line], [], lineno, True)
                        doc.blocks.append(block)
                    elif block is not None and block.explicit:
                        block.lines.append(line)
                        block = None
                    else:
                        self.warn("unbalanced-par-end", lineno, f"</{par_tag}> without an open <{par_tag}>; kept")
                        if block is None:
                            block = VerticalBlock([], [], lineno, False)
                            doc.blocks.append(block)
                        block.lines.append(line)
                    continue
                # any other structure (and <g/>): part of the current block
                if doc is None:
                    if not outside:
                        outside_line = lineno
                    outside.append(line)
                    continue
                if block is None:
                    block = VerticalBlock([], [], lineno, False)
                    doc.blocks.append(block)
                block.lines.append(line)
                continue
            # a token line (or an empty line, which is kept but is no token)
            if doc is None:
                if not line.strip():
                    if not outside:
                        outside_line = lineno
                    outside.append(line)
                    continue
                self.warn("outside-doc", lineno, f"token outside a document; starting an implicit document")
                yield from flush_outside()
                doc = VerticalDocument(None, None, [], lineno)
                block = None
                doc_tokens = 0
            if block is None:
                block = VerticalBlock([], [], lineno, False)
                doc.blocks.append(block)
            block.lines.append(line)
            if not line.strip():
                continue
            tab = line.find("\t")
            block.tokens.append(line if tab < 0 else line[:tab])
            doc_tokens += 1
            if doc_tokens >= self.max_doc_tokens:
                self.warn("overlong-document", lineno,
                          f"document from line {doc.line} exceeds {self.max_doc_tokens} tokens; "
                          f"cutting it here (parts are de-duplicated separately)")
                doc.cut = True
                yield finish(doc, lineno)
                was_explicit = block.explicit
                doc = VerticalDocument(None, None, [], lineno + 1, part=doc.part + 1)
                block = VerticalBlock([], [], lineno + 1, was_explicit)
                doc.blocks.append(block)
                doc_tokens = 0
        self.lines_read = lineno
        if doc is not None:
            if doc.header is not None or doc.part:
                self.warn("missing-doc-end", lineno,
                          f"end of input: the document from line {doc.line} has no </{doc_tag}>")
            yield finish(doc, lineno)
        yield from flush_outside()


def _print_warning(message: str) -> None:
    print(f"corpustool: {message}", file=sys.stderr)


def read_vertical(stream: IO[str], **kwargs) -> Iterator[VerticalItem]:
    return iter(VerticalReader(stream, **kwargs))
