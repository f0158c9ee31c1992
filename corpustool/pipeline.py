"""The whole pipeline, from inputs to a corpus file, as a library object.

    read -> clean (decode, stoplist, extractor) -> langfilter -> dedup-exact
         -> dedup-near -> dedup-para (onion) -> tokenize -> write

:class:`PipelineOptions` holds every option of ``corpustool build``;
:func:`build_stages` turns them into stage objects; :class:`Pipeline` runs
them with an executor and returns the per-stage statistics.
"""
from __future__ import annotations

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
    sentences: bool = False
    workers: int = 1
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
                  min_bytes=opts.min_bytes, **opts.extractor_options)
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
        stages.append(evidence_stage(method.params, reason="template"))
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
        return SparkExecutor(master=opts.spark_master, workers=opts.workers)
    if opts.engine != "local":
        from .extractors.base import OptionError
        raise OptionError(f"unknown engine {opts.engine!r}; choose local or spark")
    return LocalExecutor(workers=opts.workers)


class Pipeline:
    """Inputs -> stages -> writer, with statistics for every stage."""

    def __init__(self, inputs: list[str], output: str, options: PipelineOptions | None = None,
                 input_format: str = "auto", output_format: str | None = None,
                 on_drop: Callable[[Document, str], None] | None = None, progress: bool = False) -> None:
        from .readers import make_reader
        from .writers.base import open_writer

        self.options = options or PipelineOptions()
        self.reader = make_reader(inputs, input_format=input_format, max_bytes=self.options.max_bytes)
        self.stages = build_stages(self.options)
        for st in [self.reader, *self.stages]:
            st.on_drop = on_drop
        self.executor = make_executor(self.options)
        self.profile = CorpusProfile()
        self.output = output
        self.output_format = output_format
        self.progress = progress
        self._open_writer = open_writer

    def documents(self) -> Iterator[Document]:
        """The kept documents, as a stream (no writer)."""
        source: Iterable[Document] = self.reader.read()
        if self.progress:
            from tqdm import tqdm
            source = tqdm(source, desc="documents", unit="doc", file=sys.stderr, mininterval=0.5)
        return self.executor.run(source, self.stages)

    def run(self) -> list[StageStats]:
        writer = self._open_writer(self.output, self.output_format, **self._writer_options())
        try:
            for doc in self.documents():
                writer.write(doc)
                self.profile.add(doc)
        except BaseException:
            writer.abort()
            raise
        writer.close()
        for st in self.stages:
            st.close()
        return self.stats()

    def _writer_options(self) -> dict[str, Any]:
        fmt = self.output_format
        base = self.output[:-3] if self.output.endswith(".gz") else self.output
        if fmt == "vert" or (fmt is None and not base.endswith((".txt", ".text", ".jsonl", ".json"))):
            return {"sentences": self.options.sentences}
        return {}

    def stats(self) -> list[StageStats]:
        return [self.reader.stats, *[s.stats for s in self.stages]]
