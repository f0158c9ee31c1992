"""The Spark engine (local mode) gives exactly the local executor's corpus and statistics, and the same rejects.

A build's rejects file is the same byte for byte: both write it in global document order. The
stages' ``on_drop`` callbacks, called by the executors directly, hear of drops in the order the
stages report them, which depends on the batch sizes inside the de-duplication stages locally, so
there only the order *between* stages may differ: each stage's own rejects come in input order in
both (docs/spark.md).
"""
from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from corpustool.executors.spark import spark_available

from tests.support.paths import REPO
CRAWL = REPO / "data" / "demo" / "crawl.warc.gz"
_REASON = spark_available()
needs_spark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def _same_rejects(local: list[str], spark: list[str]) -> None:
    """Same reject records; per stage in the same (input) order."""
    assert Counter(spark) == Counter(local)
    by_stage = lambda lines: {s: [l for l in lines if json.loads(l)["stage"] == s]
                              for s in {json.loads(l)["stage"] for l in lines}}
    assert by_stage(spark) == by_stage(local)

_TEXTS = [
    "The harbour was the reason the town grew where it did. Ships from the south brought wine, oil and news, "
    "and they left again with wool, timber and salted fish from the northern coast of the country.",
    "The path climbs slowly through the forest and then along the ridge, where on a clear day you can see the "
    "sea in the west and the mountains in the east. The whole walk takes about five hours.",
    "Most repairs that a bicycle needs can be done at home with a few simple tools. A puncture takes ten "
    "minutes to fix once you have done it a couple of times, and the brakes are not hard either.",
    "Tomatoes need a warm and sunny place, regular watering and something to climb on. If you pinch out the "
    "side shoots, the plant puts its energy into the fruit rather than into the leaves and stems.",
    "When the village library opened there were only a few hundred books on the shelves, most of them given "
    "by the people who lived there. Today it is one of the busiest places in the whole town.",
    "Bread needs only flour, water, salt and yeast, and a little patience while the dough rises. The most "
    "common mistake is to add too much flour when the dough feels sticky to the hands.",
]
_GERMAN = ("Die Stadt liegt an einem Fluss, und seit vielen hundert Jahren kommen die Schiffe aus dem Süden "
           "mit Wein und Öl. Heute sind die alten Lagerhäuser am Wasser zu Wohnungen geworden, und die "
           "Menschen, die dort leben, sind mit der Lage sehr zufrieden.")


def _page(title: str, text: str, extra: str = "") -> str:
    body = "".join(f"<p>{text} This is the {n} paragraph of the article, and it is written so that it is long "
                   f"enough and has enough common words to be recognised as the main text.</p>\n"
                   for n in ("first", "second", "third"))
    return (f"<html><head><title>{title}</title></head><body><ul><li><a href='/'>Home</a></li>"
            f"<li><a href='/news'>News</a></li></ul><h1>{title}</h1>\n{body}{extra}"
            "<div>Copyright 2024 | Privacy | Terms</div></body></html>")


def _input(path: Path) -> None:
    """Pages in an order that puts duplicates in different partitions, before and after their first copy."""
    rows = []
    for i, text in enumerate(_TEXTS):
        rows.append({"id": f"a{i}", "url": f"https://site{i % 3}.example/a{i}", "html": _page(f"A{i}", text)})
    rows.insert(2, {"id": "empty", "url": "https://site0.example/empty", "html": "<html><body></body></html>"})
    rows.append({"id": "dup-of-a4", "url": "https://mirror.example/a4", "html": _page("A4", _TEXTS[4])})
    rows.append({"id": "de", "url": "https://site.example/de", "html": _page("De", _GERMAN)})
    rows.append({"id": "dup-of-a0", "url": "https://mirror.example/a0", "html": _page("A0", _TEXTS[0])})
    # same text, different boilerplate: an exact duplicate by clean text
    rows.append({"id": "dup-of-a1", "url": "https://mirror.example/a1",
                 "html": _page("A1", _TEXTS[1], extra="<div><a href='/x'>Share</a> <a href='/y'>Print</a></div>")})
    rows.append({"id": "binary", "url": "https://site.example/file", "html": "\x00\x01\x02" * 50})
    rows.append({"id": "dup-of-a5", "url": "https://mirror.example/a5", "html": _page("A5", _TEXTS[5])})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture(scope="module")
def spark_context():
    if _REASON is not None:
        pytest.skip(_REASON)
    """One local Spark context for the module (the JVM start dominates the run time)."""
    from corpustool.executors.spark import SparkExecutor

    sc, created = SparkExecutor(workers=2)._context()
    yield sc
    if created:
        sc.stop()


def _run(src: Path, out: Path, engine: str, chunk_size: int = 3, **options):
    from corpustool.cli.common import RejectsWriter
    from corpustool.executors.spark import SparkExecutor
    from corpustool.pipeline import Pipeline, PipelineOptions

    rejects = RejectsWriter(str(out) + ".rejects.jsonl")
    pipeline = Pipeline([str(src)], str(out), PipelineOptions(languages=["en"], **options), on_drop=rejects)
    if engine == "spark":
        pipeline.executor = SparkExecutor(workers=2, chunk_size=chunk_size)   # (3: five partitions here)
    try:
        stats = pipeline.run()
    finally:
        rejects.close()
    return [s.to_dict() for s in stats], out.read_bytes(), Path(str(out) + ".rejects.jsonl").read_text()


@needs_spark
@pytest.mark.parametrize("options", [{}, {"dedup_near": False, "dedup_para": False}],
                         ids=["all-stages", "everything-in-spark"])
def test_spark_equals_local(spark_context, tmp_path, options):
    from corpustool.executors.spark import SparkExecutor
    from corpustool.pipeline import PipelineOptions, build_stages

    src = tmp_path / "input.jsonl"
    _input(src)
    local_stats, local_out, local_rejects = _run(src, tmp_path / "local.vert", "local", **options)
    spark_stats, spark_out, spark_rejects = _run(src, tmp_path / "spark.vert", "spark", **options)
    assert spark_out == local_out
    assert spark_stats == local_stats
    assert spark_rejects == local_rejects       # the rejects file: in input order in both

    # the run did what the input asks: four exact duplicates dropped, the first copy of each kept
    dedup = next(s for s in local_stats if s["stage"] == "dedup-exact")
    assert dedup["drops"] == {"exact-duplicate": 4}
    rejects = [json.loads(line) for line in local_rejects.splitlines()]
    assert [r["id"] for r in rejects if r["reason"] == "exact-duplicate"] == \
        ["dup-of-a4", "dup-of-a0", "dup-of-a1", "dup-of-a5"]
    assert local_out.count(b"<doc ") == len(_TEXTS)

    distributed, driver = SparkExecutor.split(build_stages(PipelineOptions(**options)))
    assert "dedup-exact" in [s.name for s in distributed]
    if not options:
        assert "dedup-near" in [s.name for s in distributed]
        assert driver and driver[0].name == "dedup-para"         # decided on Spark, applied in the driver
    else:
        assert driver == []                                       # the whole chain ran on Spark


@needs_spark
def test_spark_engine_on_empty_input(spark_context, tmp_path):
    src = tmp_path / "empty.jsonl"
    src.write_text("", encoding="utf-8")
    stats, out, rejects = _run(src, tmp_path / "spark.vert", "spark")
    assert out == b"" and rejects == ""
    assert all(s["docs_out"] == 0 for s in stats)


@needs_spark
def test_spark_equals_local_on_demo_crawl(spark_context, tmp_path):
    """The shipped demo crawl through every stage (cleaning, language filter, all three de-duplications)."""
    local_stats, local_out, local_rejects = _run(CRAWL, tmp_path / "local.vert", "local")
    spark_stats, spark_out, spark_rejects = _run(CRAWL, tmp_path / "spark.vert", "spark", chunk_size=8)
    assert spark_out == local_out
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    assert local_out.count(b"<doc ") > 0


# -- the de-duplication benchmark corpus: planted near-duplicate documents and duplicate paragraphs --

def _bench_corpus(directory: Path, size: int) -> list[str]:
    spec = importlib.util.spec_from_file_location("make_dedup_bench", REPO / "scripts" / "bench" / "make_dedup_bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_dedup_bench"] = mod
    spec.loader.exec_module(mod)
    assert mod.main(["--generated", "--size", str(size), "--out", str(directory), "--quiet"]) == 0
    return (directory / "corpus.jsonl").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def bench_lines(tmp_path_factory):
    return _bench_corpus(tmp_path_factory.mktemp("dedup-bench"), 150)


def _dedup_chain(executor, lines: list[str], with_stages: bool = False):
    """The de-duplication stages of `build` (and the tokenizer) on the benchmark documents."""
    from corpustool.dedup.exact import ExactDuplicates
    from corpustool.dedup.near import NearDuplicates
    from corpustool.dedup.onion import Onion
    from corpustool.document import Document
    from corpustool.text.stage import Tokenize

    stages = [ExactDuplicates(), NearDuplicates(threshold=0.8), Onion(), Tokenize()]
    rejects: list[str] = []
    for st in stages:
        st.on_drop = lambda doc, name: rejects.append(json.dumps({"stage": name, **doc.to_dict()}, sort_keys=True))
    docs = (Document.from_dict(json.loads(line)) for line in lines)
    out = [json.dumps(d.to_dict(), sort_keys=True) for d in executor.run(docs, stages)]
    for st in stages:
        st.close()
    if with_stages:
        return out, [st.stats.to_dict() for st in stages], rejects, stages
    return out, [st.stats.to_dict() for st in stages], rejects


@needs_spark
def test_spark_equals_local_on_dedup_bench(spark_context, bench_lines):
    from corpustool.executors.local import LocalExecutor
    from corpustool.executors.spark import SparkExecutor

    local_out, local_stats, local_rejects = _dedup_chain(LocalExecutor(), bench_lines)
    executor = SparkExecutor(workers=2, chunk_size=50)
    assert [s.name for s in executor.split(_dedup_chain_stages())[0]] == ["dedup-exact", "dedup-near"]
    spark_out, spark_stats, spark_rejects, stages = _dedup_chain(executor, bench_lines, with_stages=True)
    assert stages[2].engine.tokens_seen == 0     # pass 2 was decided in the executors, not in the driver
    print(f"onion fixpoint rounds: {stages[2].spark_rounds}")
    assert 1 <= stages[2].spark_rounds <= 5
    assert spark_out == local_out            # kept documents, paragraph classes, tokens, metadata
    assert spark_stats == local_stats        # incl. candidate/verified pairs, clusters, stored n-grams
    _same_rejects(local_rejects, spark_rejects)   # incl. near_duplicate_of and resemblance

    # the corpus exercises what is distributed: near-duplicates dropped against an earlier kept
    # document in another partition, and duplicate paragraphs removed
    stats = {s["stage"]: s for s in local_stats}
    assert stats["dedup-near"]["drops"]["near-duplicate"] >= 10
    assert stats["dedup-para"]["extra"]["paragraphs_removed"] >= 50
    near = [json.loads(r) for r in local_rejects if json.loads(r)["stage"] == "dedup-near"]
    position = {json.loads(line)["id"]: i for i, line in enumerate(bench_lines)}
    assert any(position[r["id"]] // 50 != position[r["meta"]["near_duplicate_of"]] // 50 for r in near)


def _dedup_chain_stages():
    from corpustool.dedup.exact import ExactDuplicates
    from corpustool.dedup.near import NearDuplicates
    from corpustool.dedup.onion import Onion
    from corpustool.text.stage import Tokenize

    return [ExactDuplicates(), NearDuplicates(threshold=0.8), Onion(), Tokenize()]


# -- the pieces, without Spark ---------------------------------------------------------------

def test_keep_first_follows_stream_mode_on_chains():
    """A ~ B ~ C with A !~ C: B goes (against A), C stays (it resembles only a dropped document)."""
    from corpustool.executors.spark import _keep_first

    # (a, b, id of a, equal sketch values); positions 0=A, 1=B, 2=C, 5=D, 7=E
    verified = [(1, 2, "B", 200), (0, 1, "A", 210),
                (5, 7, "D", 195), (2, 7, "C", 230), (0, 7, "A", 230)]
    dropped, absorbing = _keep_first(verified)
    assert dropped == {1: ("A", 210), 7: ("A", 230)}     # E: most similar kept one, ties -> earliest (A < C)
    assert absorbing == {0}


# -- a whole build on Spark: executors read the input files, tokenize and write the parts -----------

def split_warc(src: Path, directory: Path, pieces: int) -> list[Path]:
    """``src`` (one gzip member per record) cut into ``pieces`` WARC files on record boundaries."""
    from warcio.archiveiterator import ArchiveIterator

    data = src.read_bytes()
    bounds = []
    with open(src, "rb") as fh:
        it = ArchiveIterator(fh)
        for _record in it:
            bounds.append(it.get_record_offset())
    bounds.append(len(data))
    per = -(-len(bounds[:-1]) // pieces)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(pieces):
        lo, hi = bounds[min(i * per, len(bounds) - 1)], bounds[min((i + 1) * per, len(bounds) - 1)]
        path = directory / f"crawl-{i}.warc.gz"
        path.write_bytes(data[lo:hi])
        paths.append(path)
    return paths


def bench_html_line(line: str) -> str:
    """A benchmark document as a page (the build cleans HTML)."""
    rec = json.loads(line)
    html = "<html><body>" + "".join(f"<p>{p['text']}</p>\n" for p in rec["paragraphs"]) + "</body></html>"
    return json.dumps({"id": rec["id"], "url": rec.get("url"), "html": html}) + "\n"


def build_run(inputs: list[str], out: Path, executor=None, languages=("en",), **options):
    """A build through Pipeline.run (the CLI's path), with the given executor or the local one."""
    from corpustool.cli.common import RejectsWriter
    from corpustool.pipeline import Pipeline, PipelineOptions

    rejects = RejectsWriter(str(out) + ".rejects.jsonl")
    pipeline = Pipeline(inputs, str(out), PipelineOptions(languages=list(languages), **options), on_drop=rejects)
    if executor is not None:
        pipeline.executor = executor
    try:
        stats = pipeline.run()
    finally:
        rejects.close()
    return ([s.to_dict() for s in stats], Path(str(out) + ".rejects.jsonl").read_text(), pipeline)


@needs_spark
def test_build_on_spark_reads_and_writes_in_the_executors(spark_context, tmp_path, monkeypatch):
    """Demo crawl in four WARCs (a directory of three and a file: URI): the executors read every
    file and write one part per file; merged, the corpus is the local run's file, byte for byte."""
    from corpustool.executors.spark import SparkExecutor
    from corpustool.readers.reader import Reader
    from corpustool.writers.parts import read_manifest

    paths = split_warc(CRAWL, tmp_path / "crawl", 4)
    (tmp_path / "last").mkdir()
    last = tmp_path / "last" / "crawl-3.warc.gz"
    paths[3].rename(last)
    local_stats, local_rejects, local_pipe = build_run([str(tmp_path / "crawl"), str(last)],
                                                       tmp_path / "local.vert.gz")
    local_out = (tmp_path / "local.vert.gz").read_bytes()

    # the driver reads no input: its read stage would fail
    def no_reading(self):
        raise AssertionError("the driver read the input")
    monkeypatch.setattr(Reader, "read", no_reading)
    # nor does a rejected document: the tasks write the rejects file's lines, the driver concatenates
    from corpustool.cli.common import RejectsWriter

    def no_rejects_in_driver(self, doc, stage):
        raise AssertionError("a rejected document passed through the driver")
    monkeypatch.setattr(RejectsWriter, "__call__", no_rejects_in_driver)
    executor = SparkExecutor(workers=2)
    spark_stats, spark_rejects, spark_pipe = build_run([str(tmp_path / "crawl"), last.as_uri()],
                                                       tmp_path / "spark.vert.gz", executor, engine="spark")
    assert (tmp_path / "spark.vert.gz").read_bytes() == local_out
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    assert spark_pipe.profile.to_dict() == local_pipe.profile.to_dict()
    assert spark_pipe.structures == local_pipe.structures
    assert executor.last_build["partitions"] == 4 and executor.last_build["in_executors"]
    assert not (tmp_path / "spark.vert.gz.parts").exists()      # merged, then removed
    assert local_out and b"<doc " in __import__("gzip").decompress(local_out)

    # --no-merge: the parts stay, one per input file, and `corpustool merge` joins them
    executor.merge = False
    build_run([str(tmp_path / "crawl"), last.as_uri()], tmp_path / "kept.vert.gz", executor, engine="spark")
    parts = tmp_path / "kept.vert.gz.parts"
    assert not (tmp_path / "kept.vert.gz").exists()
    manifest = read_manifest(str(parts))
    assert [p["file"] for p in manifest["parts"]] == [f"part-{i:05d}.vert.gz" for i in range(4)]
    assert manifest["documents"] == __import__("gzip").decompress(local_out).count(b"<doc ")
    from corpustool.cli import main
    assert main(["merge", str(parts), "-o", str(tmp_path / "merged.vert.gz")]) == 0
    assert (tmp_path / "merged.vert.gz").read_bytes() == local_out
    assert main(["merge", str(parts), "-o", str(tmp_path / "merged.vert")]) == 0
    assert (tmp_path / "merged.vert").read_bytes() == __import__("gzip").decompress(local_out)


@needs_spark
def test_build_on_spark_equals_local_on_dedup_bench_files(spark_context, tmp_path, bench_lines):
    """The dedup benchmark in three JSON Lines files: near-duplicates and duplicate paragraphs
    across files, decided in the executors, tokenized and written there."""
    from corpustool.executors.spark import SparkExecutor

    inputs = []
    for i in range(3):
        path = tmp_path / f"bench-{i}.jsonl"
        path.write_text("".join(bench_html_line(l) for l in bench_lines[i::3]), encoding="utf-8")
        inputs.append(str(path))
    options = {"langfilter": False, "languages": ["auto"]}
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert", **options)
    executor = SparkExecutor(workers=2)
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert", executor, **options)
    assert (tmp_path / "spark.vert").read_bytes() == (tmp_path / "local.vert").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    stats = {s["stage"]: s for s in local_stats}
    assert stats["dedup-near"]["drops"].get("near-duplicate", 0) >= 3
    assert stats["dedup-para"]["extra"]["paragraphs_removed"] >= 20
    assert executor.last_build["partitions"] == 3 and executor.last_build["in_executors"]


def test_merge_refuses_a_damaged_part(tmp_path):
    from corpustool.errors import DataError
    from corpustool.writers.parts import merge_parts, write_manifest
    import hashlib

    part = tmp_path / "part-00000.vert"
    part.write_bytes(b"<doc id=\"a\">\n</doc>\n")
    write_manifest(str(tmp_path), {"parts": [{"file": part.name, "docs": 1, "bytes": part.stat().st_size,
                                              "sha256": hashlib.sha256(part.read_bytes()).hexdigest()}]})
    merge_parts(str(tmp_path), str(tmp_path / "out.vert"))
    assert (tmp_path / "out.vert").read_bytes() == part.read_bytes()
    part.write_bytes(b"<doc id=\"b\">\n</doc>\n")
    with pytest.raises(DataError, match="checksum"):
        merge_parts(str(tmp_path), str(tmp_path / "out2.vert"))
    assert not (tmp_path / "out2.vert").exists()


def test_merge_refuses_an_output_name_of_another_format(tmp_path, capsys):
    # vertical parts merged to "-o c.jsonl" wrote vertical text under a JSON Lines name, exit 0
    from corpustool.cli import main
    from corpustool.writers.parts import write_manifest
    import hashlib

    parts = tmp_path / "c.vert.parts"
    parts.mkdir()
    part = parts / "part-00000.vert"
    part.write_bytes(b"<doc id=\"a\">\n</doc>\n")
    write_manifest(str(parts), {"format": "vert", "suffix": ".vert",
                                "parts": [{"file": part.name, "docs": 1, "bytes": part.stat().st_size,
                                           "sha256": hashlib.sha256(part.read_bytes()).hexdigest()}]})
    for name in ("c.jsonl", "c.txt.gz"):
        assert main(["merge", str(parts), "-o", str(tmp_path / name)]) == 2
        assert "the parts are vert" in capsys.readouterr().err
        assert not (tmp_path / name).exists()
    for name in ("c.vert", "c.vrt.gz", "corpus"):
        assert main(["merge", str(parts), "-o", str(tmp_path / name)]) == 0


def test_spark_plans_use_only_the_stages_public_hooks():
    """The executor knows no stage's insides: no state, index or set of a de-duplication stage."""
    source = (REPO / "corpustool" / "executors" / "spark.py").read_text(encoding="utf-8")
    for inside in (".seen", ".index", "HashSet", "engine.out", "ExactDuplicates(", "_absorbing",
                   "OnionEngine", "DocumentUnit", "text_fingerprint", "document_tokens", ".sketcher"):
        assert inside not in source, inside


@needs_spark
def test_build_on_spark_splits_big_warc_files_on_record_boundaries(spark_context, tmp_path, monkeypatch):
    """Big WARC files (per-record gzip and uncompressed) read in byte ranges, one partition each:
    the corpus after merge, the statistics and the rejects are the local run's; a file where a
    range would begin inside a quoted WARC record is read again as one partition."""
    import gzip

    from corpustool.executors.spark import SparkExecutor
    from corpustool.writers.parts import read_manifest
    from tests.readers.test_warc_ranges import _file, _record

    plain = tmp_path / "in" / "crawl-plain.warc"
    plain.parent.mkdir()
    plain.write_bytes(gzip.decompress(CRAWL.read_bytes()))
    inner = b"".join(_record(100 + i) for i in range(3))
    trap = tmp_path / "in" / "quoted.warc"
    trap.write_bytes(_file([_record(i) for i in range(6)] + [_record(50, "resource", inner)]
                           + [_record(i) for i in range(6, 12)], False))
    inputs = [str(CRAWL), str(tmp_path / "in")]
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert.gz")
    local_out = (tmp_path / "local.vert.gz").read_bytes()

    executor = SparkExecutor(workers=2, split_bytes=20000, merge=False)
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert.gz", executor)
    manifest = read_manifest(str(tmp_path / "spark.vert.gz.parts"))
    ranged = [i for i in manifest["inputs"] if " bytes " in i]
    # the demo crawl (91 KB) and its uncompressed copy in ranges of 20 KB; the quoted file whole
    assert sum(str(CRAWL) in i for i in ranged) == 5
    assert sum("crawl-plain" in i for i in ranged) == -(-plain.stat().st_size // 20000) > 5
    assert str(trap) in manifest["inputs"]
    assert executor.last_build["partitions"] == len(manifest["parts"]) == len(ranged) + 1
    from corpustool.cli import main
    assert main(["merge", str(tmp_path / "spark.vert.gz.parts"), "-o", str(tmp_path / "merged.vert.gz")]) == 0
    assert (tmp_path / "merged.vert.gz").read_bytes() == local_out
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    assert gzip.decompress(local_out).count(b"<doc ") >= 10


@needs_spark
def test_build_on_spark_reads_inputs_through_hadoop(spark_context, tmp_path):
    """Inputs read through Hadoop's file system (``sc.binaryFiles``), as an hdfs:// or s3a:// URI
    is: here file: URIs sent that way. A directory of WARC files (walked as a local run walks it), a
    WARC file and a JSON Lines file: the corpus, statistics and rejects of the local run."""
    from corpustool.executors.spark import SparkExecutor

    paths = split_warc(CRAWL, tmp_path / "crawl", 3)
    single = tmp_path / "alone.warc.gz"
    paths[2].rename(single)
    (tmp_path / "crawl" / "notes.txt").write_text("not an archive: skipped in a directory\n")
    pages = tmp_path / "pages.jsonl"
    pages.write_text("".join(json.dumps({"id": f"j{i}", "url": f"https://j.example/{i}", "html": _page(f"J{i}", t)})
                             + "\n" for i, t in enumerate(_TEXTS[:3])), encoding="utf-8")
    local_stats, local_rejects, _ = build_run([str(tmp_path / "crawl"), str(single), str(pages)],
                                              tmp_path / "local.vert.gz")
    executor = SparkExecutor(workers=2)
    executor.through_hadoop = lambda inp: inp.startswith("file:")
    spark_stats, spark_rejects, _ = build_run([(tmp_path / "crawl").as_uri(), single.as_uri(), pages.as_uri()],
                                              tmp_path / "spark.vert.gz", executor, engine="spark")
    assert (tmp_path / "spark.vert.gz").read_bytes() == (tmp_path / "local.vert.gz").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    # two WARCs and the text file in the directory, two files: all read through Hadoop
    assert executor.last_build["partitions"] == executor.last_build["hadoop_partitions"] == 5
    assert any(s["extra"].get("skipped:file-type") == 1 for s in local_stats)


@needs_spark
def test_two_pass_paragraph_dedup_runs_in_the_executors(spark_context, tmp_path, bench_lines):
    """Onion with given duplicate n-grams (the two-pass form) is decided in the executors by the
    same fixpoint as streaming: the local run's corpus, statistics and rejects."""
    from corpustool.executors.spark import SparkExecutor

    inputs = []
    for i in range(3):
        path = tmp_path / f"bench-{i}.jsonl"
        path.write_text("".join(bench_html_line(l) for l in bench_lines[i::3]), encoding="utf-8")
        inputs.append(str(path))
    # and a page that repeats a paragraph of its own: not in G2+, so the two-pass form keeps both
    repeat = f"<p>{_TEXTS[2]}</p>" * 2 + f"<p>{_TEXTS[3]}</p>"
    with open(inputs[1], "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "repeats", "url": "https://r.example/", "html": f"<html><body>{repeat}</body></html>"})
                 + "\n")
    # G2+: two thirds of the n-grams in two or more of the benchmark's documents (as the stage hashes
    # them; a file made from a larger crawl, say); the others take no part in the two-pass form
    import numpy as np

    from corpustool.dedup.onion import Onion
    from corpustool.document import Document

    probe = Onion()
    seen = Counter(h for line in bench_lines for h in probe.ngram_keys(Document.from_dict(json.loads(line))))
    g2 = np.array(sorted(h for h, n in seen.items() if n >= 2 and h % 3), dtype=np.uint64)
    assert g2.size > 100
    options = {"langfilter": False, "languages": ["auto"], "onion_dup_ngrams": g2}
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert", **options)
    executor = SparkExecutor(workers=2)
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert", executor, engine="spark", **options)
    assert (tmp_path / "spark.vert").read_bytes() == (tmp_path / "local.vert").read_bytes()
    assert spark_stats == local_stats
    _same_rejects(local_rejects.splitlines(), spark_rejects.splitlines())
    words = [line.split("\t")[0] for line in (tmp_path / "local.vert").read_text().splitlines()]
    assert words.count("bicycle") == 2      # the repeated paragraph, kept twice
    para = {s["stage"]: s for s in local_stats}["dedup-para"]["extra"]
    assert para["paragraphs_removed"] >= 20 and para["stored_hashes"] > 0
    assert executor.last_build["in_executors"] and executor.last_build["partitions"] == 3


@needs_spark
def test_a_local_master_gets_no_more_workers_than_the_cpus_can_use(capsys):
    """local[N] runs N tasks at once, each with a Python worker: --workers 100000 is cut to 4 per
    CPU, as the local executor cuts it, and says so."""
    import os
    from corpustool.executors.local import WORKERS_PER_CPU
    from corpustool.executors.spark import SparkExecutor
    cpus = len(os.sched_getaffinity(0))
    assert SparkExecutor(workers=2).master == "local[2]"
    assert SparkExecutor(workers=100000).master == f"local[{WORKERS_PER_CPU * cpus}]"
    assert "100000 workers are more than" in capsys.readouterr().err


@needs_spark
def test_spark_ids_equal_local_when_two_inputs_share_a_name(spark_context, tmp_path):
    """Two crawl-0.warc.gz in different folders: each task reads one file, yet names its documents as
    the local run does (the path as given, since the name is shared), byte for byte, in ranges too."""
    from corpustool.executors.spark import SparkExecutor

    for d in ("d1", "d2"):
        split_warc(CRAWL, tmp_path / d, 1)
    inputs = [str(tmp_path / "d1" / "crawl-0.warc.gz"), str(tmp_path / "d2")]
    local_stats, _, _ = build_run(inputs, tmp_path / "local.vert", dedup_exact=False, dedup_near=False,
                                  dedup_para=False)
    local_out = (tmp_path / "local.vert").read_text(encoding="utf-8")
    ids = __import__("re").findall(r'<doc id="([^"]*)"', local_out)
    assert ids and len(ids) == len(set(ids))
    assert {i.rsplit(":", 1)[0] for i in ids} == {inputs[0], str(tmp_path / "d2" / "crawl-0.warc.gz")}
    for split_bytes in (None, 20000):
        executor = SparkExecutor(workers=2, split_bytes=split_bytes)
        spark_stats, _, _ = build_run(inputs, tmp_path / "spark.vert", executor, engine="spark",
                                      dedup_exact=False, dedup_near=False, dedup_para=False)
        assert (tmp_path / "spark.vert").read_text(encoding="utf-8") == local_out
        assert spark_stats == local_stats


@needs_spark
def test_spark_reads_a_directory_with_dangling_and_directory_links_as_local(spark_context, tmp_path):
    """A dangling link in an input directory is skipped and counted (error:unreadable-file) as a local
    run does: it failed the task, and so the job, as an 'input not found'. Links to directories are
    counted once (the driver lists the input twice and counted both listings)."""
    import os

    from corpustool.executors.spark import SparkExecutor

    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    for i, text in enumerate(_TEXTS[:3]):
        (pages / f"p{i}.html").write_text(_page(f"P{i}", text), encoding="utf-8")
    (pages / "sub" / "q.html").write_text(_page("Q", _TEXTS[3]), encoding="utf-8")
    os.symlink(tmp_path / "nowhere.html", pages / "dangling.html")
    os.symlink(pages / "sub", pages / "linked-dir")
    local_stats, local_rejects, _ = build_run([str(pages)], tmp_path / "local.vert")
    read = local_stats[0]["extra"]
    assert read["error:unreadable-file"] == 1 and read["skipped:symlinked-directory"] == 1
    spark_stats, spark_rejects, _ = build_run([str(pages)], tmp_path / "spark.vert", SparkExecutor(workers=2),
                                              engine="spark")
    assert (tmp_path / "spark.vert").read_bytes() == (tmp_path / "local.vert").read_bytes()
    assert spark_stats == local_stats and spark_rejects == local_rejects


@needs_spark
def test_spark_skips_links_to_files_read_by_another_path_as_local(spark_context, tmp_path, capfd):
    """A symbolic link in an input directory to a file the run reads by another path (a file of the same
    directory, a file of another input) is skipped, counted and named by the driver's listing as a local
    run skips it: the corpus, rejects and statistics are the same, each file read once."""
    import os

    from corpustool.executors.spark import SparkExecutor

    pages, other = tmp_path / "pages", tmp_path / "other"
    pages.mkdir()
    other.mkdir()
    for i, text in enumerate(_TEXTS[:3]):
        (pages / f"p{i}.html").write_text(_page(f"P{i}", text), encoding="utf-8")
    (other / "q.html").write_text(_page("Q", _TEXTS[3]), encoding="utf-8")
    os.symlink("p1.html", pages / "a-link.html")        # read before its own file, in sorted order
    os.symlink(other / "q.html", pages / "q-link.html")
    inputs = [str(pages), str(other)]
    local_stats, local_rejects, _ = build_run(inputs, tmp_path / "local.vert", dedup_exact=False,
                                              dedup_near=False, dedup_para=False)
    local_err = capfd.readouterr().err
    read = local_stats[0]
    assert read["docs_in"] == 4 and read["extra"]["skipped:symlinked-file"] == 2
    for link, path in [("a-link.html", pages / "p1.html"), ("q-link.html", other / "q.html")]:
        assert f"{pages / link}: skipped: a symbolic link to a file read as {path}" in local_err
    spark_stats, spark_rejects, _ = build_run(inputs, tmp_path / "spark.vert", SparkExecutor(workers=2),
                                              engine="spark", dedup_exact=False, dedup_near=False,
                                              dedup_para=False)
    spark_err = capfd.readouterr().err
    assert (tmp_path / "spark.vert").read_bytes() == (tmp_path / "local.vert").read_bytes()
    assert spark_stats == local_stats and spark_rejects == local_rejects
    assert spark_err.count("skipped: a symbolic link") == 2


@needs_spark
def test_quiet_spark_build_writes_nothing_on_stderr(tmp_path):
    """`build --engine spark -q` printed the JVM's own "WARNING: Using incubator modules:
    jdk.incubator.vector" (Spark's launcher adds the module; no log configuration reaches the line):
    -q is silent, and the corpus is the local run's."""
    import subprocess

    outs = {}
    for engine in ("local", "spark"):
        out = tmp_path / f"{engine}.vert"
        proc = subprocess.run([sys.executable, "-m", "corpustool", "build", str(CRAWL), "-o", str(out),
                               "--lang", "en,de,cs", "--engine", engine, "-q"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == "" and proc.stdout == "", proc.stderr
        outs[engine] = out.read_bytes()
    assert outs["spark"] == outs["local"]


def test_the_jvm_stderr_filter_leaves_out_its_start_warning_only():
    """What the driver's JVM writes on stderr (the Python workers' messages among it) passes through the
    filter byte for byte, however the pipe cuts it, but for the JVM's start-up warning lines."""
    import subprocess
    import time

    from corpustool.executors.spark import JVM_STDERR_FILTER

    pieces = [b"WARNING: Using incub", b"ator modules: jdk.incubator.vector\nWARN", b"ING: kept, not the JVM's",
              b" start warning\ncorpustool: read: a.warc.gz: truncated\n",
              b"WARNING: Using incubator modules: x\n", b"\xff\xfe binary, no newline",
              b" at first\nWARNING: Using", b" something else\n", b"WARNING: Using inc"]
    proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", JVM_STDERR_FILTER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for piece in pieces:        # each read on its own by the filter
        proc.stdin.write(piece)
        proc.stdin.flush()
        time.sleep(0.05)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == b""
    assert err == (b"WARNING: kept, not the JVM's start warning\ncorpustool: read: a.warc.gz: truncated\n"
                   b"\xff\xfe binary, no newline at first\nWARNING: Using something else\nWARNING: Using inc")


# -- a build stopped by a signal ---------------------------------------------------------------

def _pages_jsonl(directory: Path, files: int = 2, pages: int = 300) -> Path:
    """Pages enough to keep a local Spark build busy for some seconds after its tasks start."""
    import random

    words = ("the of and to in is that it was for on are with as his they be at one have this from or had by "
             "word but what some we can out other were all there when up use your how said an each she").split()
    directory.mkdir()
    for f in range(files):
        with open(directory / f"f{f}.jsonl", "w", encoding="utf-8") as fh:
            for i in range(pages):
                r = random.Random(f * 100_000 + i)
                paras = "".join(f"<p>{' '.join(r.choices(words, k=40))}.</p>" for _ in range(8))
                fh.write(json.dumps({"id": f"d{f}-{i}", "url": f"https://x.example/{f}/{i}",
                                     "html": f"<html><body>{paras}</body></html>"}) + "\n")
    return directory


def _below(pid: int) -> list[int]:
    """The processes below ``pid`` (from /proc)."""
    import os

    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        try:
            stat = (Path("/proc") / name / "stat").read_bytes() if name.isdigit() else b""
        except OSError:
            continue
        if stat:
            children.setdefault(int(stat[stat.rindex(b")") + 2:].split()[1]), []).append(int(name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found += [child]
            todo.append(child)
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""


def _running(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] != b"Z"


@needs_spark
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("how", ["SIGINT-group", "SIGINT", "SIGTERM", "SIGHUP"])
def test_spark_build_stopped_by_a_signal_says_one_line_and_leaves_nothing(tmp_path, how):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it), SIGINT, SIGTERM or SIGHUP to the
    build while its Spark tasks run: as with the local engine, one line, exit 128 + the signal, no
    traceback (py4j's, the JVM's tasks'), no OUT.parts/, .partial, lock or temporary file, the JVM and
    its Python workers ended, Spark's temporary directories removed; the next build of the output runs."""
    import os
    import signal
    import subprocess
    import time

    sig = getattr(signal, how.split("-")[0])
    pages = _pages_jsonl(tmp_path / "pages")
    out = tmp_path / "out"
    out.mkdir()
    scratch = tmp_path / "scratch"         # Spark's and pyspark's temporary files
    scratch.mkdir()
    env = dict(os.environ, SPARK_LOCAL_DIRS=str(scratch), TMPDIR=str(scratch))
    args = [sys.executable, "-m", "corpustool", "build", "-o", str(out / "c.vert"), "--lang", "en",
            "--engine", "spark", "--workers", "2", "--rejects", str(out / "rejects.jsonl"),
            "--stats", str(out / "stats.json"), "-q"]
    proc = subprocess.Popen(args[:4] + [str(pages)] + args[4:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, start_new_session=True)
    seen: set[int] = set()
    try:
        # under way once the JVM runs its Python workers (the tasks read and clean pages)
        deadline = time.monotonic() + 240
        while proc.poll() is None and time.monotonic() < deadline:
            below = _below(proc.pid)
            seen.update(below)
            if any(b"pyspark.daemon" in _cmdline(p) for p in below):
                break
            time.sleep(0.05)
        time.sleep(1.0)
        assert proc.poll() is None, "the build ended before it could be stopped"
        seen.update(_below(proc.pid))
        assert (out / "c.vert.parts").is_dir()
        if how == "SIGINT-group":
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    message = ("corpustool: interrupted" if sig == signal.SIGINT
               else f"corpustool build: stopped by {how}; no partial output was left")
    assert (proc.returncode, err) == (128 + sig, message + "\n")
    assert sorted(p.name for p in out.iterdir()) == []      # no OUT.parts/, .partial, lock, rejects, stats
    assert [p for p in seen if _running(p)] == []          # the JVM, the stderr filter, the Python workers
    assert sorted(p.name for p in scratch.iterdir()) == []
    if how == "SIGINT-group":       # nothing stands in the way of the next build of the same output
        small = tmp_path / "small.jsonl"
        _input(small)
        done = subprocess.run(args[:4] + [str(small)] + args[4:], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert sorted(p.name for p in out.iterdir()) == ["c.vert", "rejects.jsonl", "stats.json"]
