"""Stages: objects that turn a stream of documents into a stream of documents.

Two kinds, so executors know what they may parallelise:

* :class:`DocumentStage` looks at one document at a time and keeps no state
  between documents (decoding, cleaning, language filtering, tokenizing). An
  executor may run it in worker processes.
* :class:`StreamStage` needs to see the stream in order (de-duplication keeps
  the first instance). It always runs in the main process.

Every stage owns a :class:`StageStats`. A document that a stage drops is
yielded nowhere downstream, but it is counted under its ``drop_reason`` and
handed to the optional ``on_drop`` callback (the ``--rejects`` file), so no
document is ever lost silently.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .errors import say_line
from .document import Document

DropHandler = Callable[[Document, str], None]
MAX_SKIPPED_NAMED = 1000       # byte ranges named in a stage's statistics (all are counted)


@dataclass
class StageStats:
    """Counters of one stage: documents, paragraphs and words in and out."""

    name: str
    docs_in: int = 0
    docs_out: int = 0
    paragraphs_in: int = 0
    paragraphs_out: int = 0
    words_in: int = 0
    words_out: int = 0
    bytes_in: int = 0
    drops: Counter = field(default_factory=Counter)
    extra: Counter = field(default_factory=Counter)   # stage-specific counters
    # byte ranges of the input that no document came from (damage), named: [file, offset, length, kind];
    # the first MAX_SKIPPED_NAMED of them (the bytes of all are counted in ``extra["skipped-bytes"]``)
    skipped: list = field(default_factory=list)

    def count_in(self, doc: Document) -> None:
        self.docs_in += 1
        good = doc.good_paragraphs()
        self.paragraphs_in += len(good)
        self.words_in += sum(p.word_count() for p in good)

    def count_out(self, doc: Document) -> None:
        self.docs_out += 1
        good = doc.good_paragraphs()
        self.paragraphs_out += len(good)
        self.words_out += sum(p.word_count() for p in good)

    def count_drop(self, reason: str) -> None:
        self.drops[reason] += 1

    def merge(self, other: "StageStats") -> None:
        for key in ("docs_in", "docs_out", "paragraphs_in", "paragraphs_out",
                    "words_in", "words_out", "bytes_in"):
            setattr(self, key, getattr(self, key) + getattr(other, key))
        self.drops.update(other.drops)
        self.extra.update(other.extra)
        if not hasattr(self, "skipped"):       # restored from a checkpoint written before the field
            self.skipped = []
        room = MAX_SKIPPED_NAMED - len(self.skipped)
        if room > 0:
            self.skipped.extend(getattr(other, "skipped", ())[:room])

    def skip(self, file: str, offset: int, length: int, kind: str) -> None:
        """``length`` bytes of ``file`` from ``offset`` on were skipped as ``kind`` (counted and named)."""
        self.extra["skipped-bytes"] += length
        if len(self.skipped) < MAX_SKIPPED_NAMED:
            self.skipped.append([file, offset, length, kind])

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.name,
            "docs_in": self.docs_in,
            "docs_out": self.docs_out,
            "paragraphs_in": self.paragraphs_in,
            "paragraphs_out": self.paragraphs_out,
            "words_in": self.words_in,
            "words_out": self.words_out,
            "bytes_in": self.bytes_in,
            "drops": dict(sorted(self.drops.items())),
            **({"extra": dict(sorted(self.extra.items()))} if self.extra else {}),
            **({"skipped": [list(r) for r in self.skipped]} if getattr(self, "skipped", None) else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StageStats":
        s = cls(d["stage"])
        for key in ("docs_in", "docs_out", "paragraphs_in", "paragraphs_out",
                    "words_in", "words_out", "bytes_in"):
            setattr(s, key, d.get(key, 0))
        s.drops.update(d.get("drops", {}))
        s.extra.update(d.get("extra", {}))
        s.skipped = [list(r) for r in d.get("skipped", ())]
        return s


class Stage:
    """Base of all stages. Subclasses implement :meth:`run` or :meth:`process`."""

    name = "stage"
    parallel = False

    def __init__(self) -> None:
        self.stats = StageStats(self.name)
        self.on_drop: DropHandler | None = None

    def _dropped(self, doc: Document, reason: str) -> None:
        self.stats.count_drop(reason)
        if self.on_drop is not None:
            self.on_drop(doc, self.name)

    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        raise NotImplementedError

    def prepare(self) -> None:
        """Load what the stage would load lazily on its first document (models, tables).

        Executors call it in the main process before they start workers, so every
        worker, also one started after a crash, inherits it (fork) instead of
        loading it again, and the per-document time limit measures documents.
        """

    def close(self) -> None:
        """Called once after the stream is exhausted (flush files, write reports)."""

    # -- checkpoints of resumable builds (corpustool/checkpoint.py) -------------
    # The counters are saved by the pipeline. What else a stage keeps between
    # documents is saved as numbers plus arrays of what it gained since the
    # previous checkpoint (append-only), and rebuilt from all of them on resume.
    # A stage without that format (``checkpoint_format = False``) is saved whole,
    # as an opaque pickle of its attributes, at every checkpoint.
    checkpoint_format = True      # a stateless stage: nothing to save

    def checkpoint_start(self) -> None:
        """A resumable run begins or resumes: from now on, record what the state gains."""

    def checkpoint_delta(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(numbers, numpy arrays gained since the previous call); the numbers replace older ones."""
        return {}, {}

    def checkpoint_restore(self, numbers: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        """Rebuild the state from the last numbers and every checkpoint's arrays, oldest first."""

    def __call__(self, docs: Iterable[Document]) -> Iterator[Document]:
        return self.run(docs)


class DocumentStage(Stage):
    """A stage that handles each document on its own.

    :meth:`process` returns the document (possibly changed), or the document
    with ``drop_reason`` set to drop it.
    """

    parallel = True
    # Executors run the stage in a supervised worker process (a crash or hang costs the page
    # only). False for a stage that only does cheap, pure-Python work on text already
    # extracted: shipping its documents to a worker and back would cost more than the work.
    in_worker = True
    # The extractor's input has no paragraphs yet: it counts the paragraphs and
    # words of its output, good and bad, as its input (the corpus size before
    # boilerplate removal, the first row of Table 3.9).
    counts_input_after = False

    def process(self, doc: Document) -> Document:
        raise NotImplementedError

    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        for doc in docs:
            out = self.apply(doc)
            if out is not None:
                yield out
            elif self.on_drop is not None:
                self.on_drop(doc, self.name)

    def count_arrival(self, doc: Document, stats: StageStats) -> None:
        """Count ``doc`` coming in (also used by the executor for a document that killed its worker)."""
        if self.counts_input_after:
            stats.docs_in += 1
        else:
            stats.count_in(doc)
        if doc.raw is not None and not doc.paragraphs:
            stats.bytes_in += len(doc.raw)

    def apply(self, doc: Document) -> Document | None:
        """Process one document and update ``self.stats``; None when dropped.

        Executors running the stage in worker processes give each batch a
        fresh ``self.stats`` there and merge it into the main process's copy,
        so :meth:`process` may update ``self.stats.extra`` freely.
        """
        stats = self.stats
        self.count_arrival(doc, stats)
        if doc.drop_reason:   # dropped upstream (e.g. the reader's size limit): count it here
            stats.count_drop(doc.drop_reason)
            return None
        try:
            doc = self.process(doc)
        except Exception as exc:  # one bad page must never stop a run
            say_line(f"corpustool: {self.name}: error in document {doc.id} ({doc.url or doc.source}): "
                     f"{type(exc).__name__}: {exc}")
            doc.drop_reason = f"error:{type(exc).__name__}"
        if self.counts_input_after:
            stats.paragraphs_in += len(doc.paragraphs)
            stats.words_in += doc.word_count(good_only=False)
        if doc.drop_reason:
            stats.count_drop(doc.drop_reason)
            return None
        stats.count_out(doc)
        return doc


class StreamStage(Stage):
    """A stage that must see documents in order in one process."""

    parallel = False
    checkpoint_format = False     # its state, if any, is saved whole (see Stage.checkpoint_delta)

    def accept(self, doc: Document) -> bool:
        """Decide on one document; return False (with drop_reason set) to drop."""
        raise NotImplementedError

    def run(self, docs: Iterable[Document]) -> Iterator[Document]:
        stats = self.stats
        for doc in docs:
            stats.count_in(doc)
            if not doc.drop_reason and self.accept(doc) and not doc.drop_reason:
                stats.count_out(doc)
                yield doc
            else:
                self._dropped(doc, doc.drop_reason or self.name)
