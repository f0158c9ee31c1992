"""The HTML reports fit a 1280-pixel window and their charts' labels can be read (issue 22).

`corpustool report`: the x-axis tick labels of every chart do not overlap
(measured on the rendered matplotlib figure) and the page is no wider than the
window. `corpustool eval --html`: the worst-pages table shows every extractor's
column within the window, however long the page ids and URLs. The pages are
laid out by a real headless Chromium (skipped when it is not installed) with a
1280 x 900 window; a script added to a copy of each page writes the widths it
measures into the DOM, read back with --dump-dom, and a screenshot is taken.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import lxml.html
import pytest

from corpustool import report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
WIDTH = 1280
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

MEASURE = """<script>
window.addEventListener('load', function () {
  var out = document.createElement('pre'); out.id = 'measured';
  var m = {scroll: document.documentElement.scrollWidth, inner: window.innerWidth, cells: []};
  document.querySelectorAll('%s').forEach(function (c) {
    var r = c.getBoundingClientRect(); m.cells.push([c.textContent, Math.round(r.left), Math.round(r.right)]);
  });
  out.textContent = JSON.stringify(m); document.body.appendChild(out);
});
</script>"""


def chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--no-first-run", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'chromium-profile'}", f"--window-size={WIDTH},900", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def measure(page: Path, selector: str, tmp_path: Path) -> dict:
    """Lay ``page`` out at 1280 px: document width, window width and the boxes of ``selector``."""
    import json

    probe = page.with_name(page.stem + ".measure.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE % selector + "</body>"),
                     encoding="utf-8")
    dom = lxml.html.document_fromstring(chromium(["--dump-dom", probe.as_uri()], tmp_path).stdout)
    shot = page.with_suffix(".png")
    chromium([f"--screenshot={shot}", page.as_uri()], tmp_path)
    assert shot.stat().st_size > 0
    return json.loads(dom.get_element_by_id("measured").text)


# -- corpustool report ------------------------------------------------------------------------

def _figures(monkeypatch) -> list:
    figs = []
    original = report._png

    def keep(fig):
        figs.append(fig)
        return original(fig)
    monkeypatch.setattr(report, "_png", keep)
    return figs


def _stats(scale: int) -> dict:
    stage = lambda name, din, dout, win, wout, drops: {   # noqa: E731
        "stage": name, "docs_in": din, "docs_out": dout, "paragraphs_in": din * 9, "paragraphs_out": dout * 9,
        "words_in": win, "words_out": wout, "bytes_in": win * 40 if name == "read" else 0, "drops": drops}
    return {"stages": [
        stage("read", 3 * scale, 3 * scale, 0, 0, {}),
        stage("clean", 3 * scale, 2 * scale, 900 * scale, 400 * scale, {"empty": scale, "binary": scale // 7}),
        stage("langfilter", 2 * scale, scale + scale // 2, 400 * scale, 310 * scale, {"unwanted-language": scale // 2}),
        stage("dedup-exact", scale + scale // 2, scale, 310 * scale, 240 * scale, {"exact-duplicate": scale // 2}),
        stage("dedup-near", scale, scale - scale // 9, 240 * scale, 210 * scale, {"near-duplicate": scale // 9}),
        stage("tokenize", scale - scale // 9, scale - scale // 9, 210 * scale, 210 * scale, {}),
    ]}


def _overlaps(fig) -> list[tuple[str, str]]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bad = []
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in labels]
        for (a, ta), (b, tb) in zip(zip(boxes, labels), list(zip(boxes, labels))[1:]):
            if a.x1 > b.x0:
                bad.append((ta.get_text(), tb.get_text()))
    return bad


@pytest.mark.parametrize("scale", [7, 1_000, 100_000, 3_000_000])
def test_report_chart_axis_labels_do_not_overlap(monkeypatch, scale):
    figs = _figures(monkeypatch)
    report.render_report(_stats(scale))
    assert len(figs) >= 3
    for fig in figs:
        assert _overlaps(fig) == [], f"overlapping tick labels at scale {scale}"


@needs_chromium
def test_report_fits_the_window(tmp_path):
    page = tmp_path / "report.html"
    report.write_report(_stats(3_000_000), str(page))
    m = measure(page, "img", tmp_path)
    assert m["inner"] == WIDTH
    assert m["scroll"] <= WIDTH
    assert m["cells"] and all(right <= WIDTH for _, _, right in m["cells"])


# -- corpustool eval --html -------------------------------------------------------------------

GOOD_TEXT = ("The little town was founded in the twelfth century by a group of farmers who had come from the "
             "north, and over the years it grew into a busy market place where people from all the villages "
             "around would come to sell what they had and to buy what they needed for the winter.")
EXTRACTORS = ["justext-plus", "justext", "justext-package", "bte", "tcsw", "boilerpipe"]


@needs_chromium
def test_eval_worst_pages_table_shows_every_extractor_within_the_window(tmp_path):
    from corpustool.eval.gold import read_gold
    from corpustool.eval.report import write_html
    from corpustool.eval.runner import Evaluation, parse_config

    d = tmp_path / "ce"
    (d / "html").mkdir(parents=True)
    for n in range(3):
        name = f"{n:03d}" + hashlib.sha256(str(n).encode()).hexdigest() * 2      # an id without a break
        body = f"<ul><li><a href='/'>Home</a></li></ul><p>{GOOD_TEXT}</p>"
        (d / "html" / f"{name}.html").write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
        url = f"http://www.example.com/{n}/article?utm_source=" + "y" * 200
        (d / f"{name}.txt").write_text(f"URL: {url}\n<p> {GOOD_TEXT}\n", encoding="utf-8")
    ev = Evaluation(read_gold(f"cleaneval:{d}"), [parse_config(x) for x in EXTRACTORS])
    ev.run()
    index = write_html(ev, tmp_path / "report", [ev.summary(c.label, resamples=0) for c in ev.configs])
    m = measure(index, "#pages tr:first-child th", tmp_path)
    assert m["scroll"] <= WIDTH
    headers = {text: (left, right) for text, left, right in m["cells"]}
    assert set(EXTRACTORS) <= set(headers)
    for name in EXTRACTORS:
        left, right = headers[name]
        assert 0 <= left < right <= WIDTH, (name, left, right)
