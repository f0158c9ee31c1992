"""The HTML report (corpustool report) and the corpus profile behind it."""
from __future__ import annotations

import base64
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from corpustool.cli import main
from corpustool.corpus_profile import CorpusProfile, SpaceSaving
from corpustool.document import BAD, Document, Paragraph

_ARTICLES = [
    ("Rivers and towns", "The river was the reason the town was built where it is. For hundreds of years the "
     "boats that came up from the sea brought salt, cloth and news, and they took back wool and timber from the "
     "hills. When the railway arrived the river trade declined, but the old warehouses along the water are "
     "still there and most of them have been turned into flats and small shops."),
    ("A short history of the bicycle", "The first machines that we would recognise as bicycles were built in "
     "the second half of the nineteenth century. They were heavy, they had no gears and riding them on the "
     "rough roads of the time was hard work. It was the invention of the pneumatic tyre that made cycling "
     "comfortable enough for people who did not think of it as a sport."),
    ("Keeping bees in the city", "More and more people in large cities keep bees on their roofs and in their "
     "gardens. The bees do well because there are many different flowers in parks and on balconies, and "
     "there are fewer pesticides than in the fields outside the city. A single hive can produce a surprising "
     "amount of honey in a good summer, and the neighbours are usually happy to help eat it."),
    ("How to bake bread at home", "Baking bread at home is not as difficult as many people think. All you "
     "need is flour, water, salt and yeast, and a little patience while the dough rises. The most common "
     "mistake is to add too much flour when the dough feels sticky; it is better to knead it for a few more "
     "minutes and let the gluten do its work before you put it into the oven."),
]


def _page(title: str, text: str) -> str:
    paras = "".join(f"<p>{text} This is paragraph {i} of the article about {title.lower()}, and it "
                    f"goes on for a while so that it is long enough to count as real text.</p>\n"
                    for i in range(1, 4))
    return (f"<html><head><title>{title}</title></head><body>"
            "<div class='nav'><a href='/'>Home</a> | <a href='/about'>About</a> | <a href='/contact'>Contact</a>"
            f"</div><h1>{title}</h1>\n{paras}<div class='footer'>Copyright 2024 Example</div></body></html>")


def _write_input(path: Path) -> None:
    """JSON Lines input: four articles on three hosts, one exact duplicate, one empty page."""
    rows = []
    hosts = ["news.example.org", "news.example.org", "blog.example.com", "www.example.net"]
    for i, ((title, text), host) in enumerate(zip(_ARTICLES, hosts)):
        rows.append({"id": f"d{i}", "url": f"https://{host}/article/{i}", "html": _page(title, text)})
    rows.append({"id": "dup", "url": "https://mirror.example.net/copy", "html": _page(*_ARTICLES[0])})
    rows.append({"id": "empty", "url": "https://news.example.org/empty", "html": "<html><body></body></html>"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture(scope="module")
def stats_file(tmp_path_factory) -> Path:
    """Statistics of a real pipeline run with a corpus profile of the kept documents."""
    from corpustool.pipeline import Pipeline, PipelineOptions
    from corpustool.stats import write_stats

    tmp = tmp_path_factory.mktemp("report")
    src = tmp / "input.jsonl"
    _write_input(src)
    pipeline = Pipeline([str(src)], str(tmp / "corpus.vert"), PipelineOptions(languages=["en"]))
    profile = CorpusProfile()
    writer = pipeline._open_writer(pipeline.output, None)
    for doc in pipeline.documents():
        writer.write(doc)
        profile.add(doc)
    writer.close()
    out = tmp / "stats.json"
    write_stats(str(out), pipeline.stats(), options={"lang": "en"}, corpus=profile.to_dict())
    return out


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def _images(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)]


# -- corpus profile ------------------------------------------------------------

def _doc(i: int, words: int, lang: str | None, url: str | None) -> Document:
    d = Document(id=str(i), url=url, lang=lang)
    d.paragraphs = [Paragraph(" ".join(["w"] * words)), Paragraph("boilerplate words here", cls=BAD)]
    return d


def test_profile_counts_languages_lengths_and_domains():
    prof = CorpusProfile()
    prof.add(_doc(1, 5, "en", "https://A.example.org/x"))
    prof.add(_doc(2, 10, "en", "https://a.example.org/y"))
    prof.add(_doc(3, 150, "de", "http://b.example.de/"))
    prof.add(_doc(4, 150000, None, None))
    d = prof.to_dict()
    assert d["docs"] == 4 and d["words"] == 5 + 10 + 150 + 150000   # bad paragraphs not counted
    assert d["languages"] == {"en": 2, "de": 1, "unknown": 1}
    assert d["language_words"]["de"] == 150
    bins = {(b["min"], b["max"]): b["docs"] for b in d["doc_lengths"]["bins"]}
    assert bins[(0, 9)] == 1 and bins[(10, 19)] == 1 and bins[(100, 199)] == 1 and bins[(100000, None)] == 1
    assert sum(bins.values()) == 4
    assert (d["doc_lengths"]["min"], d["doc_lengths"]["max"]) == (5, 150000)
    assert d["domains"] == {"a.example.org": 2, "b.example.de": 1}   # host names are case-insensitive
    assert d["docs_without_domain"] == 1 and d["domains_exact"] and d["domains_distinct"] == 2


def test_profile_merge_equals_single_pass():
    docs = [_doc(i, 7 * i, "en" if i % 3 else "cs", f"https://h{i % 4}.example/") for i in range(30)]
    whole, a, b = CorpusProfile(), CorpusProfile(), CorpusProfile()
    for d in docs:
        whole.add(d)
    for d in docs[:13]:
        a.add(d)
    for d in docs[13:]:
        b.add(d)
    a.merge(b)
    assert a.to_dict() == whole.to_dict()


def test_space_saving_is_exact_below_capacity_and_an_upper_bound_beyond():
    stream = ["a"] * 50 + ["b"] * 30 + [f"rare{i}" for i in range(40)] + ["c"] * 20 + ["a"] * 5
    exact = SpaceSaving(capacity=1000)
    small = SpaceSaving(capacity=8)
    for key in stream:
        exact.add(key)
        small.add(key)
    assert exact.exact and exact.top(3) == [("a", 55), ("b", 30), ("c", 20)]
    assert not small.exact and len(small.counts) == 8
    # heavy hitters survive and no count is below the truth (Metwally et al. guarantee)
    top = dict(small.top(3))
    assert set(top) == {"a", "b", "c"}
    assert top["a"] >= 55 and top["b"] >= 30 and top["c"] >= 20
    assert top["a"] - small.errors.get("a", 0) <= 55


# -- report ----------------------------------------------------------------------

def test_report_has_every_section_with_the_run_s_numbers(stats_file, tmp_path):
    out = tmp_path / "report.html"
    assert main(["report", str(stats_file), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    data = json.loads(stats_file.read_text(encoding="utf-8"))
    # Table 3.9 rows: every step with its word count
    for row in data["corpus_sizes"]:
        assert f"<td>{row['step']}</td><td class=\"n\">{row['words']:,}</td>" in html
    # per-stage counters and every drop reason of the run
    for st in data["stages"]:
        assert f"<td>{st['stage']}</td>" in html
    reasons = {r for st in data["stages"] for r in st["drops"]}
    assert "exact-duplicate" in reasons and len(reasons) >= 2     # + the clean stage's reason for the empty page
    for reason in reasons:
        assert f"<td>{reason}</td>" in html
    assert 'id="duplicates"' in html
    dedup = next(s for s in data["stages"] if s["stage"] == "dedup-exact")
    assert f"{100.0 * (dedup['docs_in'] - dedup['docs_out']) / dedup['docs_in']:.1f}%" in html
    # corpus profile sections
    assert 'id="languages"' in html and "<td>en</td>" in html
    assert 'id="lengths"' in html
    assert 'id="domains"' in html and "<td>news.example.org</td>" in html
    assert "mirror.example.net" not in html    # the duplicate was dropped before the profile saw it
    # self-contained: no external resource of any kind
    assert not re.search(r'(src|href)="(?!data:)', html)
    images = _images(html)
    assert len(images) == 6   # sizes, drops, duplicates, languages, lengths, domains
    for png in images:
        w, h = _png_size(png)
        assert w > 200 and h > 50


def test_report_is_deterministic_and_handles_stats_without_profile(stats_file, tmp_path):
    from corpustool.report import render_report

    data = json.loads(stats_file.read_text(encoding="utf-8"))
    assert render_report(data) == render_report(json.loads(stats_file.read_text(encoding="utf-8")))
    bare = {"stages": data["stages"]}        # e.g. an older stats file: no corpus_sizes, no corpus section
    html = render_report(bare, title="Bare <run>")
    assert "<title>Bare &lt;run&gt;</title>" in html
    assert "after clean" in html               # rows derived from the stage counters
    assert 'id="languages"' not in html and 'id="domains"' not in html
    assert len(_images(html)) == 3


def test_report_accepts_a_plain_list_of_document_lengths():
    from corpustool.report import length_histogram

    labels, counts, summary = length_histogram([3, 12, 12, 250, 7000])
    assert labels == ["0–9", "10–19", "20–49", "50–99", "100–199", "200–499", "500–999", "1,000–1,999",
                      "2,000–4,999", "5,000–9,999"]
    assert counts == [1, 2, 0, 0, 0, 1, 0, 0, 0, 1]
    assert summary == {"count": 5, "sum": 7277, "min": 3, "max": 7000}


def test_report_refuses_bad_statistics_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["report", str(bad), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert "not a JSON file" in err and len(err.splitlines()) == 1
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"docs": 3}', encoding="utf-8")
    assert main(["report", str(wrong), "-o", str(tmp_path / "r.html")]) == 2
    assert "not a corpustool statistics file" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.json"), "-o", str(tmp_path / "r.html")]) == 2
    assert "cannot read statistics file" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


# -- a real browser ----------------------------------------------------------------

_CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

# Appended to a copy of the report: once everything has loaded, write each image's
# decoded size into the DOM, which --dump-dom then prints.
_PROBE = """<script>
window.addEventListener('load', function () {
  var out = [];
  document.querySelectorAll('img').forEach(function (img) {
    out.push([img.complete, img.naturalWidth, img.naturalHeight]);
  });
  var pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({images: out, tables: document.querySelectorAll('table').length,
                                    h2: Array.from(document.querySelectorAll('h2')).map(function (h) { return h.id; })});
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not installed")
def test_report_renders_in_headless_chromium(stats_file, tmp_path):
    out = tmp_path / "report.html"
    assert main(["report", str(stats_file), "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    expected = _images(html)
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    cmd = [_CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000", "--dump-dom",
           probe.as_uri()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">(.*?)</pre>', res.stdout, re.S)
    assert m, f"chromium printed no probe (status {res.returncode}): {res.stderr[-2000:]}"
    result = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    # every embedded PNG was decoded by the browser at its real size
    assert len(result["images"]) == len(expected) == 6
    for (complete, width, height), png in zip(result["images"], expected):
        assert complete and (width, height) == _png_size(png)
    assert result["h2"] == ["sizes", "stages", "drops", "duplicates", "languages", "lengths", "domains", "text-types",
                            "options"]
    assert result["tables"] >= 8
