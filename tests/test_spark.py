"""The Spark engine (local mode) gives exactly the local executor's corpus, statistics and rejects."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpustool.executors.spark import spark_available

_REASON = spark_available()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

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
    """One local Spark context for the module (the JVM start dominates the run time)."""
    from corpustool.executors.spark import SparkExecutor

    sc, created = SparkExecutor(workers=2)._context()
    yield sc
    if created:
        sc.stop()


def _run(src: Path, out: Path, engine: str, **options):
    from corpustool.cli.common import RejectsWriter
    from corpustool.executors.spark import SparkExecutor
    from corpustool.pipeline import Pipeline, PipelineOptions

    rejects = RejectsWriter(str(out) + ".rejects.jsonl")
    pipeline = Pipeline([str(src)], str(out), PipelineOptions(languages=["en"], **options), on_drop=rejects)
    if engine == "spark":
        pipeline.executor = SparkExecutor(workers=2, chunk_size=3)   # five partitions
    try:
        stats = pipeline.run()
    finally:
        rejects.close()
    return [s.to_dict() for s in stats], out.read_bytes(), Path(str(out) + ".rejects.jsonl").read_text()


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
    assert spark_rejects == local_rejects            # same documents, same stages, same order

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
        assert driver and driver[0].name.startswith("dedup")      # near/paragraph dedup run in the driver
    else:
        assert driver == []                                       # the whole chain ran on Spark


def test_spark_engine_on_empty_input(spark_context, tmp_path):
    src = tmp_path / "empty.jsonl"
    src.write_text("", encoding="utf-8")
    stats, out, rejects = _run(src, tmp_path / "spark.vert", "spark")
    assert out == b"" and rejects == ""
    assert all(s["docs_out"] == 0 for s in stats)
