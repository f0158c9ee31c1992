"""``corpustool build``: the whole pipeline in one command."""
from __future__ import annotations

import argparse
import os
import sys

from ..errors import OptionError
from ..options import ONION_OPTIONS, ONION_PREFIX, OPTIONS, PIPELINE_NAMES, add_options
from .common import (RejectsWriter, add_clean_options, add_stats_options, add_vertical_options, check_outputs,
                     clean_kwargs)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="run the whole pipeline: crawl in, vertical corpus out",
                       description="Read crawls (WARC/ARC, HTML files or directories, JSON Lines, '-' for "
                                   "stdin), remove boilerplate, filter by language, remove exact, near- and "
                                   "paragraph-level duplicates, tokenize, and write the corpus.")
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("-o", "--output", required=True,
                   help="output file: .vert/.vrt (vertical), .txt, .jsonl; add .gz to compress; - for stdout")
    p.add_argument("--format", dest="output_format", choices=("vert", "text", "jsonl"),
                   help="output format (default: from the file name)")
    p.add_argument("--input-format", default="auto", choices=("auto", "warc", "html", "jsonl", "text"),
                   help="input format (default: from the file names / content)")
    add_clean_options(p)
    add_options(p, ("template_evidence",))
    g = p.add_argument_group("language filter")
    add_options(g, ("langfilter", "min_lang_confidence", "lang_method", "paragraph_lang", "quality"))
    g = p.add_argument_group("de-duplication")
    add_options(g, ("dedup_exact", "dedup_near", "near_threshold", "dedup_para"))
    g = p.add_argument_group("paragraph de-duplication (onion; the options of corpustool dedup-para)")
    add_options(g, tuple(ONION_OPTIONS), ONION_OPTIONS, prefix=ONION_PREFIX)
    g = p.add_argument_group("output and execution")
    add_vertical_options(g)
    g.add_argument("--registry", metavar="DIR",
                   help="also write, in DIR, a CWB registry entry, a Manatee/NoSketch Engine configuration "
                        "and encode.sh (sh DIR/encode.sh cwb|manatee) for the vertical output")
    add_options(g, ("workers", "doc_timeout"))
    add_options(g, ("engine", "spark_master"))
    g.add_argument("--no-merge", action="store_true",
                   help="with --engine spark: leave the output as OUTPUT.parts/ (part files in document order, "
                        "a manifest; join them with 'corpustool merge') instead of merging it into OUTPUT")
    g.add_argument("--report", metavar="FILE", help="also write an HTML report with plots of the statistics")
    g.add_argument("--resume", action="store_true",
                   help="checkpoint after each INPUT; run again with the same arguments to continue an "
                        "interrupted build after its last finished input")
    add_stats_options(p, table=True)
    p.set_defaults(func=run)


def options_from_args(args: argparse.Namespace):
    """:class:`PipelineOptions` from build's arguments, checked (a message names the parameter)."""
    from ..pipeline import PipelineOptions
    from .onion import onion_options_from_args

    kw = clean_kwargs(args)
    if args.master is not None and args.engine != "spark":
        raise OptionError("--master needs --engine spark")
    fields = {name: OPTIONS[name].value(args) for name in PIPELINE_NAMES}
    return PipelineOptions(
        languages=kw.pop("languages"), extractor=kw.pop("extractor"), stoplist_file=kw.pop("stoplist_file"),
        extractor_options={k: v for k, v in kw.items() if k not in fields}, sentences=args.sentences,
        template_evidence=args.template_evidence, onion_options=onion_options_from_args(args, ONION_PREFIX),
        **fields).validate()


def run(args: argparse.Namespace) -> int:
    from ..pipeline import Pipeline

    options = options_from_args(args)
    check_outputs(args, args.inputs)
    if args.registry:
        from ..writers.base import format_for
        if args.output == "-" or (args.output_format or format_for(args.output)) != "vert":
            raise OptionError("--registry needs a vertical output file (-o NAME.vert or .vert.gz)")
        if os.path.exists(args.registry) and not os.path.isdir(args.registry):
            raise OptionError(f"--registry {args.registry!r} is not a directory")
        from ..writers.registry import check_paths
        try:        # refused before the build, not after it; the library's message names no flag
            check_paths(args.registry, args.output, args.target)
        except OptionError as exc:
            raise OptionError(f"--registry: {exc}") from None
    progress = not args.quiet and sys.stderr.isatty()
    pipeline = Pipeline(args.inputs, args.output, options, input_format=args.input_format,
                        output_format=args.output_format, progress=progress)
    pipeline.require_documents = True       # inputs with no document: one line, exit 1
    if args.no_merge:
        if args.engine != "spark" or args.resume:
            raise OptionError("--no-merge needs --engine spark (and no --resume)")
        pipeline.executor.merge = False
    from ..writers.base import OutputLock
    locks: list[OutputLock] = []
    try:
        pipeline.lock_output()      # held until the statistics are written too
        for path in (args.rejects, args.stats, args.report):   # every output, not -o alone
            if path and path != "-":
                locks.append(OutputLock(path).acquire())
        _build(args, pipeline)
    finally:
        for lock in reversed(locks):
            lock.release()
        pipeline.unlock_output()
    return 0


def _check_resumed_rejects(args: argparse.Namespace, pipeline, state: dict) -> None:
    """A resume writes the rejects file of the interrupted run on: without it, or with another one,
    the drops of the finished inputs would be missing from it (or left in a stray .partial file)."""
    path = pipeline.checkpoint_path()
    if "rejects" in state:      # checkpoints written before the rejects path was recorded: not checked
        before = state["rejects"]
        if before != pipeline.rejects_path:
            was = f"--rejects {before}" if before else "no --rejects"
            now = f"--rejects {args.rejects}" if pipeline.rejects_path else "no --rejects"
            raise OptionError(f"{path} was written by a run with {was}, this one has {now}: the rejects of "
                              f"its finished inputs would be lost; give the same --rejects, or remove "
                              f"{path} to start afresh")
    if pipeline.rejects_path and state.get("rejects_bytes", 0) > 0 and state.get("done", 0) < len(args.inputs):
        partial = args.rejects + ".partial"
        if not os.path.exists(partial):     # moved into place only once every input is done
            raise OptionError(f"{partial} is missing (the rejects of the finished inputs); remove {path} "
                              f"to start afresh")


def _build(args: argparse.Namespace, pipeline) -> list:
    from ..stats import print_table, write_stats

    if args.resume and args.rejects and args.rejects != "-":
        pipeline.rejects_path = os.path.abspath(args.rejects)
    state = pipeline.load_checkpoint() if args.resume else None
    if state is not None:
        _check_resumed_rejects(args, pipeline, state)
    if state is not None and not args.quiet:
        print(f"corpustool build: resuming after input {state['done']} of {len(args.inputs)}", file=sys.stderr)
    rejects = RejectsWriter(args.rejects, resume_at=state["rejects_bytes"] if state else None,
                            resumable=args.resume)
    pipeline.on_drop = rejects
    for st in [pipeline.reader, *pipeline.stages]:
        st.on_drop = rejects
    # every output is finished under its temporary name first; the corpus, the rejects, the
    # statistics and the report take their names only when all of them were written
    ready: list[tuple[str, str]] = []
    try:
        stats = (pipeline.run_resumable(rejects.size, commit=False, keep_checkpoint=True) if args.resume
                 else pipeline.run(commit=False))
        rejects.finish()
        extra = {"options": _jsonable(vars(args)), "corpus": pipeline.profile.to_dict()}
        if args.stats and args.stats != "-":
            ready.append((write_stats(args.stats, stats, commit=False, **extra), args.stats))
        if args.report and args.report != "-":
            from ..report import write_report
            from ..stats import stats_dict
            ready.append((write_report(stats_dict(stats, **extra), args.report, commit=False), args.report))
        pipeline.commit_output()
    except BaseException:
        rejects.abort()
        pipeline.abort_output()
        from ..writers.base import remove_quietly
        for tmp, _ in ready:
            remove_quietly(tmp)
        raise
    rejects.commit()
    for tmp, path in ready:
        os.replace(tmp, path)
    # standard output cannot be taken back: written once every file is in place
    if args.stats == "-":
        write_stats("-", stats, **extra)
    if args.report == "-":
        from ..report import render_report
        from ..stats import stats_dict
        sys.stdout.write(render_report(stats_dict(stats, **extra)))
        sys.stdout.flush()
    if args.registry and pipeline.structures is not None:
        from ..writers.registry import write_registry
        write_registry(args.registry, args.output, pipeline.structures, args.target)
    if args.resume:     # everything is written: a kill before this resumes with nothing but the above to do
        pipeline.discard_checkpoint()
    if not args.quiet:
        print_table(stats, file=sys.stderr)
    return stats


def _jsonable(d: dict) -> dict:
    return {k: v for k, v in sorted(d.items()) if k != "func" and isinstance(v, (str, int, float, bool, list, type(None)))}
