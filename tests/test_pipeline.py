"""Document model, stages, executor, writers, statistics: the pipeline's skeleton."""
import gzip
import re
import json
import subprocess
import sys

import pytest

from corpustool.document import BAD, GOOD, Document, Paragraph
from corpustool.dedup.exact import ExactDuplicates
from corpustool.executors.local import LocalExecutor
from corpustool.errors import OptionError
from corpustool.extractors.justext_params import PRESETS, JustextParams
from corpustool.stage import DocumentStage
from corpustool.stats import corpus_sizes, format_table
from corpustool.text.stage import Tokenize
from corpustool.writers import open_writer
from corpustool.writers.vertical import escape_attr


def make_doc(i, texts, cls=GOOD):
    return Document(id=f"d{i}", url=f"http://example.com/{i}",
                    paragraphs=[Paragraph(text=t, cls=cls) for t in texts])


class DropOdd(DocumentStage):
    name = "drop-odd"

    def process(self, doc):
        if int(doc.id[1:]) % 2:
            return doc.drop("odd")
        doc.paragraphs.append(Paragraph(text=f"added to {doc.id}"))
        self.stats.extra["seen"] += 1
        return doc


def test_document_roundtrip_keeps_classes_and_tokens():
    d = make_doc(1, ["Hello world."])
    d.paragraphs.append(Paragraph(text="menu", cls=BAD, reason="boilerplate", cf_class="bad"))
    d.paragraphs[0].tokens, d.paragraphs[0].glue = ["Hello", "world", "."], [False, False, True]
    back = Document.from_dict(json.loads(json.dumps(d.to_dict())))
    assert back.clean_text() == "Hello world."
    assert back.paragraphs[1].cls == BAD and back.paragraphs[1].reason == "boilerplate"
    assert back.paragraphs[0].glue == [False, False, True]


def test_document_from_dict_accepts_html_or_base64():
    a = Document.from_dict({"url": "u", "html": "<p>x</p>"}, fallback_id="f:1")
    assert a.id == "f:1" and a.html == "<p>x</p>" and a.raw == b"<p>x</p>"
    b = Document.from_dict({"id": "x", "html_base64": "PHA+eTwvcD4="})
    assert b.raw == b"<p>y</p>" and b.html is None


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_executor_output_and_counts_do_not_depend_on_workers(workers):
    docs = [make_doc(i, [f"text {i}"]) for i in range(50)]
    stage, tok = DropOdd(), Tokenize()
    dropped = []
    stage.on_drop = lambda d, s: dropped.append((d.id, s, d.drop_reason))
    out = list(LocalExecutor(workers=workers, batch_size=4).run(docs, [stage, tok]))
    assert [d.id for d in out] == [f"d{i}" for i in range(0, 50, 2)]
    assert all(d.paragraphs[-1].text == f"added to {d.id}" for d in out)
    assert all(p.tokens for d in out for p in d.paragraphs)
    assert dropped == [(f"d{i}", "drop-odd", "odd") for i in range(1, 50, 2)]
    assert stage.stats.docs_in == 50 and stage.stats.docs_out == 25
    assert stage.stats.drops == {"odd": 25} and stage.stats.extra["seen"] == 25
    assert tok.stats.extra["tokens"] == 25 * (2 + 3)


def test_executor_refuses_zero_workers():
    with pytest.raises(OptionError):
        LocalExecutor(workers=0)


def test_more_workers_than_the_cpus_can_use_are_cut_with_a_word(tmp_path):
    """--workers 100000 started processes until the machine ran out of memory (a new user's
    test, session 28): a request past WORKERS_PER_CPU per CPU runs that many, says so, and the
    corpus is the one a small number of workers writes."""
    import os
    from corpustool.executors.local import WORKERS_PER_CPU
    cpus = len(os.sched_getaffinity(0))
    pages = tmp_path / "pages"
    pages.mkdir()
    stories = ["The ferry to the island runs twice a day in winter, and the first boat leaves at seven "
               "from the old harbour when the weather allows it to sail at all.",
               "Our bakery opened on the corner of the market square in the spring, and the rye bread "
               "that my grandmother taught us to bake has been sold out by noon every day since then.",
               "The choir meets on Thursday evenings in the school hall, where anyone who likes to sing "
               "is welcome to join us, whether or not they have ever read a note of music."]
    for i, text in enumerate(stories):
        (pages / f"{i}.html").write_text(f"<html><body><p>{text}</p></body></html>")
    outs = {}
    for workers in ("1", "100000"):
        out = tmp_path / f"w{workers}.vert"
        run = subprocess.run([sys.executable, "-m", "corpustool", "build", str(pages), "-o", str(out),
                              "--workers", workers, "--lang", "en"], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        outs[workers] = (out.read_bytes(), run.stderr)
    assert outs["100000"][0] == outs["1"][0] and outs["1"][0].count(b"<doc ") == 3
    assert f"100000 workers are more than {cpus} CPU" in outs["100000"][1]
    assert f"running {WORKERS_PER_CPU * cpus} " in outs["100000"][1]
    assert "workers are more" not in outs["1"][1]


def test_exact_duplicates_normalise_case_and_space():
    st = ExactDuplicates()
    docs = [make_doc(1, ["Hello  World"]), make_doc(2, ["hello world"]), make_doc(3, ["other"])]
    kept = list(st.run(docs))
    assert [d.id for d in kept] == ["d1", "d3"]
    assert st.stats.drops == {"exact-duplicate": 1}
    assert docs[1].meta["duplicate_of"] == "d1"


@pytest.mark.parametrize("target", ["cwb", "manatee"])
def test_vertical_writer_structure_escaping_and_glue(tmp_path, target):
    d = make_doc(7, ['He said "a<b" & left.', "Second one"])
    d.title = 'A "quoted" <title> & more \\'
    d.paragraphs[1].heading = True
    d.paragraphs.append(Paragraph(text="boilerplate", cls=BAD))
    path = tmp_path / "c.vert"
    w = open_writer(str(path), sentences=False, target=target)
    w.write(d)
    w.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    if target == "cwb":         # XML entities, for cwb-encode -x
        title, lt, amp = "A &quot;quoted&quot; &lt;title&gt; &amp; more \\", "&lt;", "&amp;"
    else:                       # Manatee decodes no entities; \" and \\ inside a quoted value
        title, lt, amp = 'A \\"quoted\\" <title> & more \\\\', "<", "&"
    assert lines[0].startswith(f'<doc id="d7" url="http://example.com/7" title="{title}"')
    assert 'domain="example.com"' in lines[0]
    assert lines[1] == '<p heading="0">'
    body = lines[2:lines.index("</p>")]
    assert body == ["He", "said", '"', "<g/>", "a", "<g/>", lt, "<g/>", "b", "<g/>", '"', amp, "left", "<g/>", "."]
    assert '<p heading="1">' in lines and "boilerplate" not in lines
    assert lines[-1] == "</doc>"
    assert lines.count("<p heading=\"0\">") + lines.count("<p heading=\"1\">") == lines.count("</p>") == 2


def test_vertical_writer_sentences_by_default(tmp_path):
    path = tmp_path / "c.vert"
    w = open_writer(str(path))
    w.write(make_doc(1, ["One sentence here. Another one follows!"]))
    w.close()
    assert path.read_text(encoding="utf-8").count("<s>") == 2


def test_vertical_writer_bounds_and_cleans_whatever_the_document_holds(tmp_path):
    d = make_doc(3, ["x" * 9000 + " a\x01b \ufdd0 \u200e \u202b end"])
    d.title = "T\x7f\uffff" + "é" * 5000
    path = tmp_path / "c.vert"
    w = open_writer(str(path), sentences=False)
    w.write(d)
    w.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    title = re.search(r'title="([^"]*)"', lines[0]).group(1)
    assert title.startswith("Té") and len(title.encode()) <= 4095
    body = lines[2:lines.index("</p>")]
    assert body[:5] == ["x" * 4095, "<g/>", "x" * 4095, "<g/>", "x" * 810]
    assert body[5:] == ["a", "<g/>", "b", "end"]            # the control character was a token of its own
    assert dict(w.counts) == {"values_cut": 1, "tokens_split": 1, "tokens_dropped": 2}   # (the tokenizer drops bidi marks itself)


def test_vertical_sentences_and_gzip_is_deterministic(tmp_path):
    d = make_doc(1, ["One sentence here. Another one follows! Last."])
    outs = []
    for name in ("a.vert.gz", "b.vert.gz"):
        w = open_writer(str(tmp_path / name), sentences=True)
        w.write(d)
        w.close()
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]
    text = gzip.decompress(outs[0]).decode()
    assert text.count("<s>") == 3 and text.count("</s>") == 3


def test_writer_is_atomic_on_abort(tmp_path):
    path = tmp_path / "x.vert"
    w = open_writer(str(path))
    w.write(make_doc(1, ["a"]))
    w.abort()
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_text_and_jsonl_writers(tmp_path):
    d = make_doc(1, ["first", "second"])
    for name in ("o.txt", "o.jsonl"):
        w = open_writer(str(tmp_path / name))
        w.write(d)
        w.close()
    assert (tmp_path / "o.txt").read_text() == "first\nsecond\n\n"
    rec = json.loads((tmp_path / "o.jsonl").read_text())
    assert [p["text"] for p in rec["paragraphs"]] == ["first", "second"]


def test_escape_attr_removes_newlines():
    assert escape_attr("a\nb\t c") == "a b c"


def test_justext_parameters_are_validated():
    with pytest.raises(OptionError):
        JustextParams(length_low=300, length_high=200)
    with pytest.raises(OptionError):
        JustextParams(stopwords_low=1.5)
    with pytest.raises(OptionError):
        JustextParams(stopwords_low=0.4, stopwords_high=0.3)
    with pytest.raises(OptionError):
        PRESETS["A"].with_options(lenght_low=3)
    assert PRESETS["B"].length_low == 0 and PRESETS["B"].length_unit == "tokens"
    assert PRESETS["justext"].length_unit == "chars"


def test_stats_table_and_corpus_sizes():
    st = ExactDuplicates()
    list(st.run([make_doc(1, ["a b c"]), make_doc(2, ["a b c"])]))
    table = format_table([st.stats])
    assert "dedup-exact" in table and "exact-duplicate=1" in table
    rows = corpus_sizes([st.stats])
    assert rows[-1]["words"] == 3


def test_cli_refuses_invalid_options_with_one_line():
    r = subprocess.run([sys.executable, "-m", "corpustool", "clean", "--length-low", "500", "--length-high", "10"],
                       input="", capture_output=True, text=True)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert "--length-low (500) must be <= --length-high (10)" in r.stderr
    r = subprocess.run([sys.executable, "-m", "corpustool", "clean", "--lang", "xx-nonsense"],
                       input="", capture_output=True, text=True)
    assert r.returncode == 2 and "unknown language" in r.stderr
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", "--bogus"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_tokenizer_fast_path_equals_the_regular_expression_on_the_whole_text():
    from corpustool.text.tokenizer import _TOKEN, tokenize

    def reference(text):
        tokens, glue, end = [], [], -1
        for m in _TOKEN.finditer(text):
            tokens.append(m.group())
            glue.append(end == m.start())
            end = m.end()
        if glue:
            glue[0] = False
        return tokens, glue

    samples = ["Hello, world! See https://example.com/a?b=1. Mail me@x.org (e.g. U.S. and z.B.) 1,000.50",
               "well-known rock'n'roll... 123abc abc123 Mühle naïve", "Dr. Novák řekl, tj. atd. 12:30",
               "我们是中国人。日本語テキスト", "हिन्दी भाषा", "ภาษาไทย ง่าย", "  leading and trailing  ", ""]
    for text in samples:
        assert tokenize(text) == reference(text), text


def test_the_chain_of_filters_writes_the_corpus_build_writes(tmp_path):
    """Each stage is also a filter (README): read | clean | langfilter | quality | dedup-exact |
    dedup-near | dedup-para | vert gives build's corpus byte for byte, <doc> attributes (the
    quality marks: there was no quality filter) and the paragraphs that the context smoothing
    revises by jusText's classes (written only under --detail before) included."""
    from tests.support.paths import DEMO_WARC

    def corpustool(*args, stdin=None):
        res = subprocess.run([sys.executable, "-m", "corpustool", *args], input=stdin, capture_output=True,
                             cwd=tmp_path, timeout=600)
        assert res.returncode == 0, res.stderr.decode()[-2000:]
        return res.stdout

    langs = ["--lang", "en,de,cs"]
    corpustool("build", str(DEMO_WARC), "-o", "built.vert", *langs, "-q")
    stream = corpustool("read", str(DEMO_WARC))
    for stage in (["clean", *langs], ["langfilter", *langs], ["quality"], ["dedup-exact"], ["dedup-near"],
                  ["dedup-para"]):
        stream = corpustool(*stage, "-q", stdin=stream)
    piped = corpustool("vert", stdin=stream)
    built = (tmp_path / "built.vert").read_bytes()
    assert built.count(b"<doc ") > 20 and b' q="' in built
    assert piped == built


@pytest.mark.parametrize("how", [[], ["--workers", "2"], ["--resume"]], ids=["one-worker", "two-workers", "resume"])
def test_build_ids_unique_when_two_warc_inputs_share_a_name(tmp_path, how):
    """d1/crawl.warc.gz and d2/crawl.warc.gz made the same <doc id="crawl.warc.gz:N">; a resumable build
    reads its inputs one at a time and must name them as one reading of all of them does."""
    from corpustool.cli import main
    from tests.support.paths import REPO

    for d in ("d1", "d2"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "crawl.warc.gz").write_bytes((REPO / "data" / "demo" / "crawl.warc.gz").read_bytes())
    out = tmp_path / "c.vert"
    inputs = [str(tmp_path / "d1" / "crawl.warc.gz"), str(tmp_path / "d2" / "crawl.warc.gz")]
    assert main(["build", *inputs, "-o", str(out), "--lang", "en,de,cs", "-q", "--no-dedup-exact",
                 "--no-dedup-near", "--no-dedup-para", *how]) == 0
    ids = re.findall(r'<doc id="([^"]*)"', out.read_text(encoding="utf-8"))
    assert ids and len(ids) == len(set(ids))
    assert {i.rsplit(":", 1)[0] for i in ids} == set(inputs)
