"""What the format readers (WARC/ARC, JSON Lines, HTML and text files) tell the read stage.

Damaged files and records, skipped records and pages over the size limit are each
counted in the read stage's statistics and, where a person should know, said in
one line on stderr with the file and byte offset. The read stage
(:class:`corpustool.readers.reader.Reader`) owns one :class:`ReadReport` and hands
it to the format readers, which need nothing else of it.
"""
from __future__ import annotations

import os

from ..errors import say_line
from ..document import Document
from ..stage import StageStats


class ReadReport:
    """Counters, messages and notes of one read stage; ``max_bytes``: the size limit of a page;
    ``defer_decoding``: compressed HTTP bodies are passed on compressed (for the clean stage)."""

    def __init__(self, stats: StageStats, max_bytes: int | None = None, defer_decoding: bool = False) -> None:
        self.stats = stats
        self.max_bytes = max_bytes
        self.defer_decoding = defer_decoding
        # one line per file that held no document though it had lines (a WARC given as JSON
        # Lines); the read stage says them when the next document comes or at the end
        self.notes: list[str] = []
        # display name -> what its documents' ids begin with, for files whose name another input
        # of the run shares (shared_names); the others' ids begin with their name
        self.id_names: dict[str, str] = {}

    def id_base(self, display: str) -> str:
        """What the ids of a file's documents begin with (``base:N``): its name, or its path as given
        when another input of the run has the same name (two ``crawl.warc.gz`` made the same ids)."""
        return self.id_names.get(display) or os.path.basename(display)

    def say(self, message: str) -> None:
        """A line on stderr about the input."""
        say_line(f"corpustool: read: {message}")

    def file_note(self, message: str) -> None:
        """A file held no document (and was not empty): ``message`` says why, in one line."""
        self.notes.append(message)

    def _skipped(self, display: str, offset: int, length: int | None, kind: str) -> str:
        """Count and name a skipped byte range; its words for the message."""
        if length is None:
            return ""
        self.stats.skip(display, offset, length, kind)
        return f", {length} bytes skipped"

    def truncated(self, display: str, offset: int, before: int, detail: str | None = None,
                  unit: str = "records", length: int | None = None, kept: bool = False) -> None:
        """The file ends (or its data breaks off) at ``offset``; what came before was read
        (``kept``: ``before`` units of the one page the file holds, kept as the page)."""
        self.stats.extra["error:truncated"] += 1
        extra = f" ({detail})" if detail else ""
        skipped = self._skipped(display, offset, length, "truncated")
        rest = (f"the page's first {before} {unit} are kept as the page" if kept
                else f"{before} {unit} before it were read, the rest of the file is skipped")
        self.say(f"{display}: truncated or damaged at byte offset {offset}{extra}{skipped}; {rest}")

    def truncated_payload(self, where: str, note: str) -> None:
        """A record's compressed body ends before its stream does: what was decompressed is the page
        (counted as ``truncated-payload``; ``note``: TruncatedPayload.kept_note())."""
        self.stats.extra["truncated-payload"] += 1
        self.say(f"{where}: {note}")

    def damaged(self, display: str, offset: int, before: int, detail: str) -> None:
        """Data that is no record at all at ``offset``."""
        self.stats.extra["error:damaged"] += 1
        self.say(f"{display}: unreadable data at byte offset {offset} ({detail}); "
                 f"{before} records before it were read, the rest of the file is skipped")

    def damaged_record(self, display: str, offset: int, detail: str, length: int | None = None) -> None:
        """One WARC record is damaged (a wrong Content-Length, a broken gzip member): it alone is skipped."""
        self.stats.extra["error:damaged-record"] += 1
        skipped = self._skipped(display, offset, length, "damaged-record")
        self.say(f"{display}: damaged record at byte offset {offset} skipped ({detail}{skipped}); "
                 f"reading goes on at the next record")

    def damaged_data(self, display: str, offset: int, detail: str, length: int | None = None) -> None:
        """Data that is no record at all at ``offset``: skipped up to the next record (if any)."""
        self.stats.extra["error:damaged"] += 1
        skipped = self._skipped(display, offset, length, "damaged")
        self.say(f"{display}: unreadable data at byte offset {offset} ({detail}{skipped}) skipped; "
                 f"reading goes on at the next record, if any")

    def bad_record(self, where: str, counter: str, detail: str, say: bool = True) -> None:
        """One record or file cannot be read: skip it, say so (unless the caller has said enough
        of its file), count it."""
        self.stats.extra[counter] += 1
        if say:
            self.say(f"{where}: skipped: {detail}")

    def link_read_elsewhere(self, link: str, path: str) -> None:
        """A symbolic link in an input directory leads to a file the run reads as ``path``: skipped
        (each file is read once), counted as ``skipped:symlinked-file`` and named."""
        self.stats.extra["skipped:symlinked-file"] += 1
        self.say(f"{link}: skipped: a symbolic link to a file read as {path} (each file is read once)")

    def bad_date(self, where: str, value: str) -> None:
        """A record's WARC-Date is no date: its document is read without a crawl date (counted, named)."""
        self.stats.extra["invalid-warc-date"] += 1
        shown = value if len(value) <= 40 else value[:40] + "..."
        self.say(f"{where}: WARC-Date {shown!r} is no date; the document is read without a crawl_date")

    def no_html(self, doc: Document) -> Document:
        """A JSON Lines record without the page (``html`` or ``html_base64``): passed on marked to be
        dropped as ``no-html``, counted (the reader says it once per file)."""
        self.stats.extra["no-html"] += 1
        doc.drop_reason = "no-html"
        return doc

    def too_large(self, doc: Document, size: int) -> Document:
        """A page over ``max_bytes``: passed on without its bytes, marked to be dropped."""
        self.stats.extra["too-large"] += 1
        self.stats.bytes_in += size
        doc.raw = None
        doc.meta["size"] = size
        doc.drop_reason = "too-large"
        return doc
