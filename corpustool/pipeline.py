"""The whole pipeline, from inputs to a corpus file, as a library object.

    read -> clean (decode, stoplist, extractor) -> langfilter -> quality -> dedup-exact
         -> dedup-near -> dedup-para (onion) -> tokenize -> write

:class:`PipelineOptions` holds every option of ``corpustool build``;
:func:`build_stages` turns them into stage objects; :class:`Pipeline` runs
them with an executor and returns the per-stage statistics.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from .errors import DataError, OptionError
from .options import check, default
from .document import Document
from .corpus_profile import CorpusProfile
from .executors.local import LocalExecutor
from .stage import Stage, StageStats

if TYPE_CHECKING:
    from .dedup.onion_options import OnionOptions


@dataclass
class PipelineOptions:
    """Every option of ``corpustool build``; the defaults are the option table's (options.py)."""

    languages: list[str] = field(default_factory=lambda: [default("languages")])
    extractor: str | None = default("extractor")
    extractor_options: dict[str, Any] = field(default_factory=dict)   # preset, length_low, ... (the extractor's)
    stoplist_file: str | None = default("stoplist_file")
    max_bytes: int = default("max_bytes")
    min_bytes: int = default("min_bytes")
    max_paragraphs: int = default("max_paragraphs")     # more blocks: dropped as too-many-paragraphs (clean.py)
    no_stoplist: str = default("no_stoplist")           # or "drop": pages in languages without a stoplist
    langfilter: bool = default("langfilter")
    min_lang_confidence: float = default("min_lang_confidence")
    lang_method: str = default("lang_method")
    paragraph_lang: bool = default("paragraph_lang")
    quality: str = default("quality")       # quality marks (quality.py): off | mark | drop
    dedup_exact: bool = default("dedup_exact")
    dedup_near: bool = default("dedup_near")
    near_threshold: float = default("near_threshold")
    dedup_para: bool = default("dedup_para")
    # the onion stage's options (dedup/onion.py OnionOptions; a dict of its fields is taken too); None: defaults
    onion_options: "OnionOptions | dict[str, Any] | None" = None
    # pass 2 of onion's two-pass form: duplicate n-grams (a `corpustool dupngrams` file or an array of hashes)
    onion_dup_ngrams: Any = None
    template_evidence: str | None = default("template_evidence")    # a site-level method: urltree, ...
    sentences: bool = default("sentences")  # <s> in vertical output
    target: str = default("target")         # vertical escaping: manatee | cwb (writers/vertical.py)
    workers: int = default("workers")
    doc_timeout: float = default("doc_timeout")   # seconds per document in a worker (0: no limit); then "timeout"
    engine: str = default("engine")         # local | spark
    spark_master: str | None = default("spark_master")

    def validate(self) -> "PipelineOptions":
        """Check every option against the table; an :class:`OptionError` names the parameter."""
        for name in ("max_bytes", "min_bytes", "max_paragraphs", "no_stoplist", "min_lang_confidence",
                     "lang_method", "quality", "near_threshold", "target", "workers", "doc_timeout", "engine"):
            check(name, getattr(self, name))
        if self.onion_options is not None:
            self.onion_options = _onion_options(self.onion_options)
        if self.spark_master is not None and self.engine != "spark":
            raise OptionError("spark_master needs engine spark", option="spark_master")
        return self

    def wanted_languages(self) -> list[str] | None:
        langs = [l for l in self.languages if l != "auto"]
        return langs or None


def _onion_options(given: "OnionOptions | dict[str, Any]") -> "OnionOptions":
    """The onion stage's options, checked; a message names them as build's fields (onion_threshold)."""
    from .dedup.onion_options import OnionOptions

    try:
        return (given if isinstance(given, OnionOptions) else OnionOptions(**given)).validate()
    except TypeError as exc:        # an unknown field in a dict
        raise OptionError(f"onion_options: {exc}") from None
    except OptionError as exc:
        if exc.option is None:
            raise
        raise OptionError(f"onion_{exc}", option=f"onion_{exc.option}") from None


def build_stages(opts: PipelineOptions) -> list[Stage]:
    from .dedup.exact import ExactDuplicates
    from .errors import OptionError
    from .extractors.clean import DEFAULT_EXTRACTOR, Clean
    from .extractors.registry import get_extractor
    from .text.stage import Tokenize

    clean = Clean(extractor=opts.extractor or DEFAULT_EXTRACTOR, languages=opts.languages,
                  stoplist_file=opts.stoplist_file, max_bytes=opts.max_bytes,
                  min_bytes=opts.min_bytes, max_paragraphs=opts.max_paragraphs, no_stoplist=opts.no_stoplist,
                  **opts.extractor_options)
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
            raise OptionError(f"template_evidence needs a site-level method, not {opts.template_evidence!r}",
                              option="template_evidence")
        if getattr(method, "keep_html", False):
            clean.keep_html = True
        stages.append(evidence_stage(method.params, reason="template", evidence=True))
    if opts.langfilter:
        from .language.filter import LanguageFilter
        stages.append(LanguageFilter(languages=opts.wanted_languages(), min_confidence=opts.min_lang_confidence,
                                     method=opts.lang_method, paragraph_level=opts.paragraph_lang))
    if opts.quality != "off":
        from .quality import QualityMarks
        stages.append(QualityMarks(mode=opts.quality, stoplist_file=opts.stoplist_file))
    # cheapest de-duplication first: each removes what the next would compare
    if opts.dedup_exact:
        stages.append(ExactDuplicates())
    if opts.dedup_near:
        from .dedup.near import NearDuplicates
        stages.append(NearDuplicates(threshold=opts.near_threshold))
    if opts.dedup_para:
        from .dedup.onion import Onion
        stages.append(Onion(_onion_options(opts.onion_options or {}), dup_ngrams=opts.onion_dup_ngrams))
    stages.append(Tokenize())
    return stages


def make_executor(opts: PipelineOptions):
    """The executor for ``opts.engine``: local processes or Apache Spark."""
    if opts.engine == "spark":
        from .executors.spark import SparkExecutor
        return SparkExecutor(master=opts.spark_master, workers=opts.workers, doc_timeout=opts.doc_timeout)
    # (build --no-merge sets the Spark executor's ``merge``: it is no option of the pipeline's result)
    if opts.engine != "local":
        from .errors import OptionError
        raise OptionError(f"unknown engine {opts.engine!r}; choose local or spark")
    return LocalExecutor(workers=opts.workers, doc_timeout=opts.doc_timeout)


class Pipeline:
    """Inputs -> stages -> writer, with statistics for every stage."""

    def __init__(self, inputs: list[str], output: str, options: PipelineOptions | None = None,
                 input_format: str = "auto", output_format: str | None = None,
                 on_drop: Callable[[Document, str], None] | None = None, progress: bool = False) -> None:
        from .readers import make_reader
        from .writers import open_writer
        from .writers.base import check_output_path

        check_output_path(output, inputs)     # before anything is read or written
        self.options = (options or PipelineOptions()).validate()
        self.inputs = list(inputs)
        self.input_format = input_format
        self.on_drop = on_drop
        # the clean stage, first of the stages, decompresses the pages in its supervised worker
        readable = list(inputs)
        remote: list[str] = []
        if self.options.engine == "spark":      # its executors also read file: URIs, Hadoop reads the others
            from .executors.spark import local_path
            readable = [local_path(i) or i for i in inputs]
            remote = [i for i in inputs if local_path(i) is None]
        self.reader = make_reader(readable, input_format=input_format, max_bytes=self.options.max_bytes,
                                  defer_decoding=True, remote=remote)
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
        # build: inputs that hold no document at all are an error (DataError, "no documents in ..."),
        # raised before the output takes its name
        self.require_documents = False
        # the --rejects file a resumable build writes (absolute path, None without one): kept in the
        # checkpoint, so a resume that would leave the rejects of the finished inputs out is refused
        self.rejects_path: str | None = None
        self._pending: tuple | None = None     # an output finished but not yet moved into place
        self._order = 0                          # the next document's place in the input (_numbered)

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
        source: Iterable[Document] = self._numbered(self.reader.read())
        if self.progress:
            from .progress import with_progress
            source = with_progress(source, self.inputs, sys.stderr)
        return self.executor.run(source, self.stages)

    def _numbered(self, docs: Iterable[Document]) -> Iterator[Document]:
        """Each document with its place in the input (``_order``): the ``--rejects`` file lists the
        dropped ones in that order, whatever stage dropped them and however the stages batch
        (a resumed build's stages decide at every input's end, an uninterrupted one's in mid-batch)."""
        for doc in docs:
            doc._order = self._order         # type: ignore[attr-defined]  (pickled with the document)
            self._order += 1
            yield doc

    def _kept(self, doc: Document) -> None:
        kept = getattr(self.on_drop, "kept", None)
        if kept is not None:
            kept(doc)

    def commit_output(self) -> None:
        """Move the output finished by ``run(commit=False)`` into place (a rename)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if pending[0] == "writer":
            pending[1].commit()
        else:
            from .writers.base import commit_output
            _, ready, partial = pending
            commit_output(ready, partial, self.output)     # the checkpoint goes last (discard_checkpoint)

    def abort_output(self) -> None:
        """Discard the output finished by ``run(commit=False)`` (a resumable build keeps its
        partial output and checkpoint)."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        if pending[0] == "writer":
            pending[1].abort()
        elif pending[0] == "merged":         # the parts merged into a temporary file: nothing to keep
            from .writers.base import remove_quietly
            remove_quietly(pending[1])
            remove_quietly(pending[2])
        elif pending[1] != pending[2]:
            from .writers.base import remove_quietly
            remove_quietly(pending[1])

    def run(self, commit: bool = True) -> list[StageStats]:
        """Every input through every stage into the output; without ``commit`` the finished
        output waits under its temporary name for :meth:`commit_output` (or :meth:`abort_output`)."""
        if getattr(self.executor, "can_build", None) is not None and self.executor.can_build(self):
            return self._run_parts(commit)
        held = self._lock is not None
        self.lock_output()
        try:
            writer = self._open_writer(self.output, self.output_format, **self._writer_options())
            self.reader.hold_notes = self.require_documents
            try:
                for doc in self.documents():
                    writer.write(doc)
                    self._kept(doc)
                    self.profile.add(doc)
                self._check_documents()
                writer.close(commit=commit)
                if not commit:
                    self._pending = ("writer", writer)
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

    def _run_parts(self, commit: bool = True) -> list[StageStats]:
        """:meth:`run` by an executor that reads, runs every stage and writes the output in parts
        itself (the Spark engine: ``OUTPUT.parts/``, merged into OUTPUT unless it was told not to)."""
        held = self._lock is not None
        self.lock_output()
        try:
            self.reader.hold_notes = self.require_documents
            result = self.executor.build(self, commit=False)
            self.profile = result["profile"]
            if result["structures"] is not None:
                self._note_structures(_Written(result["structures"]))
            if result["ready"] is not None:
                self._pending = ("merged", result["ready"], result["plain"])
            try:
                self._check_documents()
            except DataError:
                import shutil
                self.abort_output()
                shutil.rmtree(result["parts"], ignore_errors=True)
                raise
            if commit:
                self.commit_output()
        finally:
            if not held:
                self.unlock_output()
        for st in self.stages:
            st.close()
        return self.stats()

    # -- resumable runs ------------------------------------------------------
    # Each INPUT argument is a shard. After a shard has gone through every
    # stage, the output written so far (plain, in OUTPUT.partial) is flushed and
    # a checkpoint is added to OUTPUT.checkpoint/ (corpustool/checkpoint.py):
    # one append-only segment with what the stages' state gained in the shard
    # (hashes, sketches, ids), then a manifest with the counters and the sizes
    # of the partial output and rejects. A run started again with the same
    # inputs and options rebuilds the stages from the segments and continues
    # after the last finished shard; at the end the partial output becomes
    # OUTPUT (compressed when it ends in .gz) and the checkpoint is removed.
    # Per-document and de-duplication stages decide the same with or without
    # shard boundaries; site-level methods that buffer a site's pages decide
    # each shard's buffer at the shard's end.

    def fingerprint(self) -> str:
        import dataclasses
        import hashlib
        import json
        options = dataclasses.asdict(self.options)
        del options["workers"]      # the output is byte-identical for every worker count
        key = {"inputs": [os.path.abspath(i) for i in self.inputs], "format": self.input_format,
               "output_format": self.output_format, "options": options}

        def value(v: Any) -> str:   # an array (onion_dup_ngrams) by its contents, not numpy's shortened repr
            return hashlib.sha256(v.tobytes()).hexdigest() if hasattr(v, "tobytes") else str(v)
        return hashlib.sha256(json.dumps(key, sort_keys=True, default=value).encode()).hexdigest()

    def checkpoint_path(self) -> str:
        return self.output + ".checkpoint"

    def load_checkpoint(self) -> dict | None:
        """The manifest of an interrupted run of this pipeline, if any."""
        from .checkpoint import Checkpoint
        from .errors import OptionError
        path = self.checkpoint_path()
        state = Checkpoint(path).load_manifest()
        if state is None:
            return None
        if state.get("fingerprint") != self.fingerprint():
            raise OptionError(f"{path} was written by a run with other inputs or options; "
                              f"remove it to start afresh")
        # a finished input replaced or changed since: its old documents are in the partial output
        for name, saved in zip(self.inputs, state.get("input_states", [])):
            if saved != _input_state(name):
                raise OptionError(f"{name} changed after {path} was written; remove it to start afresh")
        return state

    def discard_checkpoint(self) -> None:
        from .checkpoint import Checkpoint
        Checkpoint(self.checkpoint_path()).clear()

    def run_resumable(self, rejects_size: Callable[[], int] | None = None, commit: bool = True,
                      keep_checkpoint: bool = False) -> list[StageStats]:
        """Like :meth:`run`, but restartable after an interruption (see above).

        ``keep_checkpoint``: leave the finished checkpoint for the caller to remove
        (:meth:`discard_checkpoint`) once it has written its other outputs, so that a
        kill before then resumes with nothing to do but those. Without ``commit`` the
        output waits under its temporary name for :meth:`commit_output`.
        """
        from .errors import OptionError

        if self.output == "-":
            raise OptionError("a resumable build needs an output file, not stdout")
        if self.options.engine != "local":
            raise OptionError("resumable builds run on the local engine")
        held = self._lock is not None
        self.lock_output()
        try:
            stats = self._run_resumable(rejects_size, commit)
            if not keep_checkpoint:
                self.discard_checkpoint()
            return stats
        finally:
            if not held:
                self.unlock_output()

    def _restore(self, state: dict, segments: list[dict], opaque: dict) -> None:
        """Counters, profile and stage state from a checkpoint (stages matched by name, in order)."""
        from .errors import OptionError

        _load_stats(self.reader.stats, state["reader_stats"])
        self.profile = CorpusProfile.from_state(state["profile"])
        saved = state["stages"]
        j = 0
        for st in self.stages:
            while j < len(saved) and saved[j]["name"] != st.name:
                j += 1
            if j == len(saved):
                raise OptionError(f"{self.checkpoint_path()} holds no state of the {st.name} stage; "
                                  f"remove it to start afresh")
            _load_stats(st.stats, saved[j]["stats"])
            if st.checkpoint_format:
                prefix = f"{j}."
                deltas = [{k[len(prefix):]: v for k, v in seg.items() if k.startswith(prefix)} for seg in segments]
                st.checkpoint_restore(saved[j].get("numbers", {}), deltas)
            elif j in opaque or str(j) in opaque:
                vars(st).update(opaque.get(j, opaque.get(str(j))))
            j += 1

    def _save_checkpoint(self, checkpoint, done: int, output_bytes: int,
                         rejects_size: Callable[[], int] | None, input_states: list) -> None:
        import pickle
        from .errors import OptionError

        arrays: dict[str, Any] = {}
        stages: list[dict[str, Any]] = []
        opaque: dict[int, Any] = {}
        for j, st in enumerate(self.stages):
            entry: dict[str, Any] = {"name": st.name, "stats": st.stats.to_dict()}
            if st.checkpoint_format:
                numbers, delta = st.checkpoint_delta()
                entry["numbers"] = numbers
                arrays.update({f"{j}.{k}": v for k, v in delta.items()})
            else:
                opaque[j] = {k: v for k, v in vars(st).items() if k not in ("stats", "on_drop")}
            stages.append(entry)
        blob = None
        if opaque:
            try:
                blob = pickle.dumps(opaque, protocol=pickle.HIGHEST_PROTOCOL)
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                raise OptionError(f"this configuration cannot be resumed: {exc}") from None
        rejects_bytes = rejects_size() if rejects_size else 0
        manifest = {"fingerprint": self.fingerprint(), "output_bytes": output_bytes,
                    "rejects_bytes": rejects_bytes, "rejects": self.rejects_path, "input_states": input_states,
                    "reader_stats": self.reader.stats.to_dict(),
                    "profile": self.profile.state(), "stages": stages}
        checkpoint.write(done, manifest, arrays, blob)

    def _run_resumable(self, rejects_size: Callable[[], int] | None, commit: bool = True) -> list[StageStats]:
        from .checkpoint import Checkpoint
        from .errors import OptionError
        from .readers import make_reader
        from .readers.reader import shared_names
        from .writers.base import format_for, prepare_output, remove_quietly

        partial = self.output + ".partial"
        checkpoint = Checkpoint(self.checkpoint_path())
        state = self.load_checkpoint()
        done = 0
        finished = False
        input_states: list = []
        if state is not None:
            done = state["done"]
            input_states = state.get("input_states", [])[:done]
            self._restore(state, checkpoint.load_segments(done), checkpoint.load_opaque(done))
            for st in [self.reader, *self.stages]:
                st.on_drop = self.on_drop
            if not os.path.exists(partial):
                if done == len(self.inputs) and os.path.exists(self.output):
                    finished = True     # stopped after the output was renamed into place
                else:
                    raise OptionError(f"{partial} is missing; remove {checkpoint.path} to start afresh")
            else:
                with open(partial, "r+b") as fh:   # drop what a shard wrote before the interruption
                    fh.truncate(state["output_bytes"])
        else:
            checkpoint.clear()      # what a run stopped before its first checkpoint left
            open(partial, "wb").close()
        for st in self.stages:
            st.checkpoint_start()
        fmt = self.output_format or format_for(self.output)
        if finished:
            if fmt == "vert":   # what a resumed vertical writer declares (see _note_structures)
                self._note_structures(_Written({"doc": set(), "p": {"heading"}}), resumed=True)
            for st in self.stages:
                st.close()
            return self.stats()
        writer = self._open_writer(partial, fmt, append=True, **self._writer_options())
        id_names = shared_names(self.reader._displays())     # ids as one reading of all inputs makes them
        links = self.reader.links_read_elsewhere()     # and the links it skips (to a file of another input)
        try:
            for index in range(done, len(self.inputs)):
                # taken before reading: a change while the input is read refuses the resume too
                input_states.append(_input_state(self.inputs[index]))
                reader = make_reader([self.inputs[index]], input_format=self.input_format,
                                     max_bytes=self.options.max_bytes, defer_decoding=True)
                reader.on_drop = self.on_drop
                reader.id_names = id_names
                reader.links = links
                for doc in self.executor.run(self._numbered(reader.read()), self.stages):
                    writer.write(doc)
                    self._kept(doc)
                    self.profile.add(doc)
                self.reader.stats.merge(reader.stats)
                size = writer.flush()
                self._save_checkpoint(checkpoint, index + 1, size, rejects_size, input_states)
        finally:
            writer.close()
            self._note_structures(writer, resumed=done > 0)
        try:
            self._check_documents()
        except DataError:
            remove_quietly(partial)      # nothing to resume: the inputs hold no document
            checkpoint.clear()
            raise
        for st in self.stages:
            st.close()
        self._pending = ("resumable", prepare_output(partial, self.output), partial)
        if commit:
            self.commit_output()
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

    def _check_documents(self) -> None:
        if self.require_documents and self.reader.stats.docs_in == 0:
            raise DataError(self.reader.no_documents_message())

    def _writer_options(self) -> dict[str, Any]:
        fmt = self.output_format
        base = self.output[:-3] if self.output.endswith(".gz") else self.output
        if fmt == "vert" or (fmt is None and not base.endswith((".txt", ".text", ".jsonl", ".json"))):
            counts = self.stages[-1].stats.extra if self.stages else None
            return {"sentences": self.options.sentences, "target": self.options.target, "counts": counts}
        return {}

    def stats(self) -> list[StageStats]:
        return [self.reader.stats, *[s.stats for s in self.stages]]


class _Written:
    def __init__(self, structures: dict[str, set[str]]) -> None:
        self.structures = structures


def _input_state(path: str) -> list | None:
    """Size and modification time (ns) of each file of an input (release.input_files: a directory's
    files in sorted order); None for standard input (its bytes cannot be checked again) or a path
    that is no file or directory."""
    from .errors import OptionError
    from .release import input_files

    if path == "-":
        return None
    files = []
    try:
        for full, shown in input_files([path]):
            try:
                st = os.stat(full)
                files.append([shown, st.st_size, st.st_mtime_ns])
            except OSError:             # a broken symbolic link: its name only
                files.append([shown, None, None])
    except (OptionError, OSError):
        return None
    return files


def _load_stats(target: StageStats, saved: dict[str, Any]) -> None:
    """Set a stage's counters in place (other objects may hold them) to saved ones."""
    src = StageStats.from_dict(saved)
    for key in ("docs_in", "docs_out", "paragraphs_in", "paragraphs_out", "words_in", "words_out", "bytes_in"):
        setattr(target, key, getattr(src, key))
    target.drops.clear()
    target.drops.update(src.drops)
    target.extra.clear()
    target.extra.update(src.extra)
