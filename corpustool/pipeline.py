"""The whole pipeline, from inputs to a corpus file, as a library object.

    read -> clean (decode, stoplist, extractor) -> langfilter -> dedup-exact
         -> dedup-near -> dedup-para (onion) -> tokenize -> write

:class:`PipelineOptions` holds every option of ``corpustool build``;
:func:`build_stages` turns them into stage objects; :class:`Pipeline` runs
them with an executor and returns the per-stage statistics.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .document import Document
from .corpus_profile import CorpusProfile
from .executors.local import LocalExecutor
from .stage import Stage, StageStats


@dataclass
class PipelineOptions:
    languages: list[str] = field(default_factory=lambda: ["auto"])
    extractor: str | None = None
    extractor_options: dict[str, Any] = field(default_factory=dict)   # preset, length_low, ...
    stoplist_file: str | None = None
    max_bytes: int = 10 * 1024 * 1024
    min_bytes: int = 0
    no_stoplist: str = "independent"         # or "drop": pages in languages without a stoplist
    langfilter: bool = True
    min_lang_confidence: float = 0.5
    lang_method: str = "fast"
    paragraph_lang: bool = False
    dedup_exact: bool = True
    dedup_near: bool = True
    near_threshold: float = 0.8
    dedup_para: bool = True
    onion_options: dict[str, Any] = field(default_factory=dict)
    template_evidence: str | None = None     # a site-level method: urltree, ...
    sentences: bool = True                  # <s> in vertical output
    target: str = "manatee"                 # vertical escaping: manatee | cwb (writers/vertical.py)
    workers: int = 1
    doc_timeout: float = 60.0               # seconds per document in a worker (0: no limit); then "timeout"
    engine: str = "local"                   # local | spark
    spark_master: str | None = None

    def wanted_languages(self) -> list[str] | None:
        langs = [l for l in self.languages if l != "auto"]
        return langs or None


def build_stages(opts: PipelineOptions) -> list[Stage]:
    from .dedup.exact import ExactDuplicates
    from .extractors.base import OptionError, get_extractor
    from .extractors.clean import DEFAULT_EXTRACTOR, Clean
    from .text.stage import Tokenize

    clean = Clean(extractor=opts.extractor or DEFAULT_EXTRACTOR, languages=opts.languages,
                  stoplist_file=opts.stoplist_file, max_bytes=opts.max_bytes,
                  min_bytes=opts.min_bytes, no_stoplist=opts.no_stoplist, **opts.extractor_options)
    stages: list[Stage] = [clean]
    # site-level methods decide in stream order, right after the page-level pass
    stream_stage = getattr(clean.extractor, "stream_stage", None)
    if stream_stage is not None:
        stages.append(stream_stage(clean.extractor.params, reason="boilerplate"))
    elif opts.template_evidence:
        # another extractor's paragraphs, re-examined with a site-level method's evidence
        method = get_extractor(opts.template_evidence)
        evidence_stage = getattr(method, "stream_stage", None)
        if evidence_stage is None:
            raise OptionError(f"--template-evidence needs a site-level method, not {opts.template_evidence!r}")
        if getattr(method, "keep_html", False):
            clean.keep_html = True
        stages.append(evidence_stage(method.params, reason="template", evidence=True))
    if opts.langfilter:
        from .language.filter import LanguageFilter
        stages.append(LanguageFilter(languages=opts.wanted_languages(), min_confidence=opts.min_lang_confidence,
                                     method=opts.lang_method, paragraph_level=opts.paragraph_lang))
    # cheapest de-duplication first: each removes what the next would compare
    if opts.dedup_exact:
        stages.append(ExactDuplicates())
    if opts.dedup_near:
        from .dedup.near import NearDuplicates
        stages.append(NearDuplicates(threshold=opts.near_threshold))
    if opts.dedup_para:
        from .dedup.onion import Onion
        stages.append(Onion(**opts.onion_options))
    stages.append(Tokenize())
    return stages


def make_executor(opts: PipelineOptions):
    """The executor for ``opts.engine``: local processes or Apache Spark."""
    if opts.engine == "spark":
        from .executors.spark import SparkExecutor
        return SparkExecutor(master=opts.spark_master, workers=opts.workers, doc_timeout=opts.doc_timeout)
    if opts.engine != "local":
        from .extractors.base import OptionError
        raise OptionError(f"unknown engine {opts.engine!r}; choose local or spark")
    return LocalExecutor(workers=opts.workers, doc_timeout=opts.doc_timeout)


class Pipeline:
    """Inputs -> stages -> writer, with statistics for every stage."""

    def __init__(self, inputs: list[str], output: str, options: PipelineOptions | None = None,
                 input_format: str = "auto", output_format: str | None = None,
                 on_drop: Callable[[Document, str], None] | None = None, progress: bool = False) -> None:
        from .readers import make_reader
        from .writers.base import check_output_path, open_writer

        check_output_path(output, inputs)     # before anything is read or written
        self.options = options or PipelineOptions()
        self.inputs = list(inputs)
        self.input_format = input_format
        self.on_drop = on_drop
        # the clean stage, first of the stages, decompresses the pages in its supervised worker
        self.reader = make_reader(inputs, input_format=input_format, max_bytes=self.options.max_bytes,
                                  defer_decoding=True)
        self.stages = build_stages(self.options)
        for st in [self.reader, *self.stages]:
            st.on_drop = on_drop
        self.executor = make_executor(self.options)
        self.profile = CorpusProfile()
        self.structures: dict[str, set[str]] | None = None     # what the vertical writer wrote
        self.output = output
        self.output_format = output_format
        self.progress = progress
        self._open_writer = open_writer
        self._lock = None

    def lock_output(self) -> None:
        """Hold ``OUTPUT.lock``: a second run writing the same output is refused at once (OptionError)."""
        from .writers.base import OutputLock
        if self.output != "-" and self._lock is None:
            self._lock = OutputLock(self.output).acquire()

    def unlock_output(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def documents(self) -> Iterator[Document]:
        """The kept documents, as a stream (no writer)."""
        source: Iterable[Document] = self.reader.read()
        if self.progress:
            from .progress import with_progress
            source = with_progress(source, self.inputs, sys.stderr)
        return self.executor.run(source, self.stages)

    def run(self) -> list[StageStats]:
        held = self._lock is not None
        self.lock_output()
        try:
            writer = self._open_writer(self.output, self.output_format, **self._writer_options())
            try:
                for doc in self.documents():
                    writer.write(doc)
                    self.profile.add(doc)
                writer.close()
                self._note_structures(writer)
            except BaseException:
                writer.abort()      # an error or a signal: no partial output is left behind
                raise
        finally:
            if not held:
                self.unlock_output()
        for st in self.stages:
            st.close()
        return self.stats()

    # -- resumable runs ------------------------------------------------------
    # Each INPUT argument is a shard. After a shard has gone through every
    # stage, the output written so far (plain, in OUTPUT.partial), the state of
    # every stage (what the de-duplication stages have seen) and the counters
    # are saved in OUTPUT.checkpoint. A run started again with the same inputs
    # and options continues after the last finished shard; at the end the
    # partial output becomes OUTPUT (compressed when it ends in .gz) and the
    # checkpoint is removed. Per-document and de-duplication stages decide the
    # same with or without shard boundaries; site-level methods that buffer a
    # site's pages decide each shard's buffer at the shard's end.

    def fingerprint(self) -> str:
        import dataclasses
        import hashlib
        import json
        key = {"inputs": [os.path.abspath(i) for i in self.inputs], "format": self.input_format,
               "output_format": self.output_format, "options": dataclasses.asdict(self.options)}
        return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()

    def checkpoint_path(self) -> str:
        return self.output + ".checkpoint"

    def load_checkpoint(self) -> dict | None:
        """The saved state of an interrupted run of this pipeline, if any."""
        import pickle
        from .extractors.base import OptionError
        path = self.checkpoint_path()
        if not os.path.exists(path):
            return None
        with open(path, "rb") as fh:
            state = pickle.load(fh)
        if state.get("fingerprint") != self.fingerprint():
            raise OptionError(f"{path} was written by a run with other inputs or options; "
                              f"remove it to start afresh")
        return state

    def run_resumable(self, rejects_size: Callable[[], int] | None = None) -> list[StageStats]:
        """Like :meth:`run`, but restartable after an interruption (see above)."""
        from .extractors.base import OptionError

        if self.output == "-":
            raise OptionError("a resumable build needs an output file, not stdout")
        if self.options.engine != "local":
            raise OptionError("resumable builds run on the local engine")
        held = self._lock is not None
        self.lock_output()
        try:
            return self._run_resumable(rejects_size)
        finally:
            if not held:
                self.unlock_output()

    def _run_resumable(self, rejects_size: Callable[[], int] | None) -> list[StageStats]:
        import pickle
        from .extractors.base import OptionError
        from .readers import make_reader
        from .writers.base import finish_output, format_for, remove_quietly

        partial = self.output + ".partial"
        state = self.load_checkpoint()
        done = 0
        if state is not None:
            done = state["done"]
            self.stages = state["stages"]
            self.reader.stats = state["reader_stats"]
            self.profile = state["profile"]
            for st in [self.reader, *self.stages]:
                st.on_drop = self.on_drop
            with open(partial, "r+b") as fh:   # drop what a shard wrote before the interruption
                fh.truncate(state["output_bytes"])
        else:
            open(partial, "wb").close()
        fmt = self.output_format or format_for(self.output)
        writer = self._open_writer(partial, fmt, append=True, **self._writer_options())
        try:
            for index in range(done, len(self.inputs)):
                reader = make_reader([self.inputs[index]], input_format=self.input_format,
                                     max_bytes=self.options.max_bytes, defer_decoding=True)
                reader.on_drop = self.on_drop
                for doc in self.executor.run(reader.read(), self.stages):
                    writer.write(doc)
                    self.profile.add(doc)
                self.reader.stats.merge(reader.stats)
                size = writer.flush()
                for st in self.stages:
                    st.on_drop = None   # the rejects file is no part of the state
                try:
                    data = pickle.dumps({"fingerprint": self.fingerprint(), "done": index + 1,
                                         "output_bytes": size, "stages": self.stages,
                                         "reader_stats": self.reader.stats, "profile": self.profile,
                                         "rejects_bytes": rejects_size() if rejects_size else 0})
                except (pickle.PicklingError, TypeError, AttributeError) as exc:
                    raise OptionError(f"this configuration cannot be resumed: {exc}") from None
                finally:
                    for st in self.stages:
                        st.on_drop = self.on_drop
                tmp = self.checkpoint_path() + ".tmp"
                try:
                    with open(tmp, "wb") as fh:
                        fh.write(data)
                    os.replace(tmp, self.checkpoint_path())
                except BaseException:
                    remove_quietly(tmp)
                    raise
        finally:
            writer.close()
            self._note_structures(writer, resumed=done > 0)
        for st in self.stages:
            st.close()
        finish_output(partial, self.output)
        os.unlink(self.checkpoint_path())
        return self.stats()

    def _note_structures(self, writer, resumed: bool = False) -> None:
        """The structures and attributes written, for the corpus managers' configurations
        (writers/registry.py); a resumed build declares all it could have written before."""
        written = getattr(writer, "structures", None)
        if written is None:
            return
        if resumed:
            from .writers.vertical import DOC_ATTRIBUTES
            written = {k: set(v) for k, v in written.items()}
            written["doc"] |= set(DOC_ATTRIBUTES)
            if self.options.sentences:
                written["s"] = set()
            written["g"] = set()
            if self.options.paragraph_lang:
                written["p"].add("lang")
        self.structures = written

    def _writer_options(self) -> dict[str, Any]:
        fmt = self.output_format
        base = self.output[:-3] if self.output.endswith(".gz") else self.output
        if fmt == "vert" or (fmt is None and not base.endswith((".txt", ".text", ".jsonl", ".json"))):
            counts = self.stages[-1].stats.extra if self.stages else None
            return {"sentences": self.options.sentences, "target": self.options.target, "counts": counts}
        return {}

    def stats(self) -> list[StageStats]:
        return [self.reader.stats, *[s.stats for s in self.stages]]
