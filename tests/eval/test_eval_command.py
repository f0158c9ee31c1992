"""``corpustool eval`` end to end on hand-written pages with hand-computed expectations."""
import csv
import io
import json
from contextlib import redirect_stdout

import pytest

from corpustool.cli import main
from corpustool.eval.filter import Filter
from corpustool.eval.gold import read_gold
from corpustool.eval.runner import (Evaluation, expand_sweep, parse_config, parse_sweep)
from corpustool.eval.tokens import words
from corpustool.errors import OptionError

NAV = '<ul class="nav"><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/about">About us</a></li></ul>'
HEADING = "The history of the little town"
P1 = ("The little town was founded in the twelfth century by a group of farmers who had come from the "
      "north. They built their houses along the river, and over the years the town grew into a busy market "
      "place where people from all the villages around would come to sell what they had and to buy what they "
      "needed for the winter.")
P2 = ("In the nineteenth century the railway came to the town, and with it a new kind of life. Factories "
      "were built on the other side of the river, and many of the young people who had worked on the farms "
      "went to work in them, because the pay was better and the work was not as hard as it had been.")
FOOTER = '<div class="footer"><a href="/imprint">Imprint</a> | <a href="/privacy">Privacy policy</a> | Copyright 2024</div>'
NAV_WORDS = words("Home News About us")
FOOTER_WORDS = words("Imprint | Privacy policy | Copyright 2024")


def page(nav=NAV, heading=HEADING, p1=P1, p2=P2, footer=FOOTER):
    return (f'<html lang="en"><head><title>Test page</title></head><body>{nav}<h1>{heading}</h1>'
            f"<p>{p1}</p><p>{p2}</p>{footer}</body></html>")


@pytest.fixture
def cleaneval_dir(tmp_path):
    d = tmp_path / "ce"
    (d / "html").mkdir(parents=True)
    (d / "gold").mkdir()
    (d / "html" / "p1.html").write_text(page(), encoding="utf-8")
    (d / "gold" / "p1.txt").write_text(f"URL: http://example.com/p1\n<h> {HEADING}\n<p> {P1}\n<p> {P2}\n",
                                       encoding="utf-8")
    # page 2: the gold holds only the first paragraph, so the heading and P2 are false positives
    (d / "html" / "p2.html").write_text(page(), encoding="utf-8")
    (d / "gold" / "p2.txt").write_text(f"URL: http://example.com/p2\n<p> {P1}\n", encoding="utf-8")
    return d


def run_cli(argv):
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(argv)
    return code, buf.getvalue()


def read_csv(path):
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_word_counts_per_page_by_hand(cleaneval_dir, tmp_path):
    out = tmp_path / "r.csv"
    code, text = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "justext-package",
                          "--extractor", "A=justext-package:preset=A", "--csv", str(out), "-q", "--bootstrap", "50"])
    assert code == 0
    assert "justext-package" in text and "\nA " in text and "pages/s" in text
    rows = read_csv(out)
    assert [(r["page"], r["extractor"]) for r in rows] == [
        ("p1", "justext-package"), ("p1", "A"), ("p2", "justext-package"), ("p2", "A")]
    gold1 = len(words(HEADING)) + len(words(P1)) + len(words(P2))
    r = rows[0]
    # jusText keeps heading and both paragraphs, removes navigation and footer
    assert (int(r["tp"]), int(r["fp"]), int(r["fn"]), int(r["tn"])) == (
        gold1, 0, 0, len(NAV_WORDS) + len(FOOTER_WORDS))
    assert float(r["precision"]) == 1 and float(r["recall"]) == 1 and float(r["fallout"]) == 0
    assert r["lang"] == "en"
    assert int(r["fragments"]) == 1                                # one run of kept blocks
    r = rows[2]
    fp = len(words(HEADING)) + len(words(P2))
    assert (int(r["tp"]), int(r["fp"]), int(r["fn"])) == (len(words(P1)), fp, 0)
    assert float(r["precision"]) == pytest.approx(len(words(P1)) / (len(words(P1)) + fp), abs=1e-6)
    assert float(r["shingle_recall"]) == 1


def test_filter_keeps_matching_pages(cleaneval_dir, tmp_path):
    out = tmp_path / "r.csv"
    code, text = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "justext-package",
                          "--filter", "justext_package.precision < 0.9", "--csv", str(out), "-q"])
    assert code == 0
    assert "1 of 2 pages match" in text
    assert [r["page"] for r in read_csv(out)] == ["p2"]


def test_sweep_reports_best_configuration(cleaneval_dir):
    code, text = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "justext-package",
                          "--sweep", "length_low=0,70", "--sweep", "stopwords_low=0.3,0.5",
                          "--option", "stopwords_high=0.4", "-q", "--bootstrap", "0"])
    assert code == 0
    # (0.5 > stopwords_high 0.4) is an invalid combination: skipped and reported, not fatal
    assert "skipped: justext-package:length_low=0,stopwords_low=0.5 (invalid:" in text
    assert "justext-package:length_low=70,stopwords_low=0.3" in text
    assert "best F1: justext-package:length_low=" in text and "best F0.5:" in text


def test_lang_html_uses_the_page_attribute(cleaneval_dir, tmp_path):
    out = tmp_path / "r.csv"
    code, _ = run_cli(["eval", "--gold", str(cleaneval_dir), "--lang", "html", "--csv", str(out), "-q",
                       "--extractor", "justext-package", "--extractor", "peer:justext"])
    assert code == 0
    rows = read_csv(out)
    assert {r["lang"] for r in rows} == {"en"}
    by = {(r["page"], r["extractor"]): r for r in rows}
    # the justext package called directly agrees with our wrapper of its functions
    assert by[("p1", "peer:justext")]["tp"] == by[("p1", "justext-package")]["tp"]


def test_missing_peer_is_skipped_and_reported(cleaneval_dir, monkeypatch):
    import corpustool.eval.runner as runner
    monkeypatch.setattr(runner, "is_installed", lambda name: name != "resiliparse")
    code, text = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "justext-package",
                          "--extractor", "peer:resiliparse", "-q"])
    assert code == 0
    assert "skipped: peer:resiliparse (not installed)" in text


def test_trafilatura_peer(cleaneval_dir, tmp_path):
    pytest.importorskip("trafilatura")
    out = tmp_path / "r.csv"
    code, _ = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "peer:trafilatura",
                       "--csv", str(out), "-q"])
    assert code == 0
    row = read_csv(out)[0]
    assert float(row["recall"]) > 0.9
    assert row["fragments"] == ""           # text-only peer: no blocks, no fragmentation


@pytest.mark.parametrize("argv, message", [
    (["--extractor", "no-such-extractor"], "unknown extractor"),
    (["--extractor", "justext-package:length_low=abc"], "length_low"),
    (["--filter", "e1.precision > 0.5 and __import__('os')"], "not allowed"),
    (["--filter", "X.precision > 0.5"], "unknown extractor 'X'"),
    (["--filter", "e1.nonsense > 0.5"], "unknown metric"),
    (["--lang", "klingon"], "unknown language"),
    (["--sweep", "length_low"], "--sweep"),
    (["--limit", "0"], "--limit"),
    (["--cv", "3", "--folds", "4"], "--cv reports by its own 3 folds"),
    (["--extractor", "justext", "--sweep", "length_low=a,b"], "nothing to evaluate"),   # no skip notes first
    # a label e2 on the first extractor: --filter's e2 (the second) would silently win
    (["--extractor", "e2=justext", "--extractor", "justext-plus", "--filter", "e2.f1 > 0.5"],
     "the label e2 is also the name of extractor number 2"),
])
def test_invalid_options_exit_2(cleaneval_dir, capsys, argv, message):
    code = main(["eval", "--gold", str(cleaneval_dir), "-q", *argv])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("option, message", [
    (["--seed", "-1"], "--seed must be >= 0"),
    (["--csv", "{tmp}/no-such-folder/per-page.csv"], "cannot write --csv"),
    (["--csv", "{tmp}"], "is a directory"),
    (["--html", "{gold}/gold/p1.txt"], "--html"),
])
def test_an_output_or_seed_that_would_fail_after_the_run_is_refused_first(cleaneval_dir, tmp_path, capsys,
                                                                          monkeypatch, option, message):
    """A negative seed, or a --csv / --html that cannot be written, failed only once every page was
    evaluated (exit 1, the work lost); now refused first, in one line, exit 2."""
    import corpustool.eval.runner as runner

    def no_run(*args, **kwargs):
        raise AssertionError("the evaluation ran")

    monkeypatch.setattr(runner.Evaluation, "run", no_run)
    argv = [a.format(tmp=tmp_path, gold=cleaneval_dir) for a in option]
    code = main(["eval", "--gold", str(cleaneval_dir), "-q", *argv])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_node_level_gold_end_to_end(tmp_path):
    annotated = page(nav=NAV.replace('class="nav"', 'class="nav gold-bad"'),
                     footer=FOOTER.replace('class="footer"', 'class="footer gold-bad"'))
    annotated = annotated.replace("<h1>", '<h1 class="gold-good">').replace("<p>", '<p class="gold-good">')
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "a.html").write_text(annotated, encoding="utf-8")
    pages = read_gold(str(tmp_path / "ann"))
    ev = Evaluation(pages, [parse_config("justext-package")])
    ev.run()
    w = ev.results["justext-package"][0].words
    gold = len(words(HEADING)) + len(words(P1)) + len(words(P2))
    assert (w.tp, w.fp, w.fn, w.tn) == (gold, 0, 0, len(NAV_WORDS) + len(FOOTER_WORDS))
    gf = ev.gold_fragmentation()
    assert gf.fragments == 1                 # perfect cleaning: heading + both paragraphs in one run


def test_config_and_sweep_parsing():
    c = parse_config("B=justext-package:preset=B,length_low=5,stopwords_high=0.4,no_headings=true")
    assert (c.label, c.extractor, c.peer) == ("B", "justext-package", False)
    assert c.options == {"preset": "B", "length_low": 5, "stopwords_high": 0.4, "no_headings": True}
    c = parse_config("justext-package:preset=A")
    assert c.label == "justext-package:preset=A" and c.alias == "justext_package_preset_A"
    p = parse_config("peer:trafilatura:favor_precision=true")
    assert p.peer and p.extractor == "trafilatura" and p.options == {"favor_precision": True}
    grid = parse_sweep(["length_low=0,10,20", "stopwords_high=0.25,0.32"])
    assert len(grid) == 6 and grid[0] == {"length_low": 0, "stopwords_high": 0.25}
    configs = expand_sweep([c, p], grid)
    assert len(configs) == 7 and configs[0].label == "justext-package:preset=A,length_low=0,stopwords_high=0.25"
    with pytest.raises(OptionError):
        parse_config("justext-package:preset")


def test_filter_expressions():
    f = Filter("A.precision > 0.8 and B.precision < 0.5", {"A", "B"}, {"precision", "recall"})
    assert f({"A": {"precision": 0.9}, "B": {"precision": 0.2}})
    assert not f({"A": {"precision": 0.9}, "B": {"precision": 0.6}})
    assert not f({"A": {"precision": float("nan")}, "B": {"precision": 0.2}})    # undefined: false
    g = Filter("not (A.recall - B.recall > 0.3) or 0 < A.precision <= 0.1", {"A", "B"}, {"precision", "recall"})
    assert g({"A": {"recall": 0.5, "precision": 1}, "B": {"recall": 0.4, "precision": 1}})
    assert g({"A": {"recall": 0.9, "precision": 0.05}, "B": {"recall": 0.1, "precision": 1}})
    assert not g({"A": {"recall": 0.9, "precision": 0.5}, "B": {"recall": 0.1, "precision": 1}})
    for bad in ("A.precision.real > 1", "len(A) > 1", "A.precision > 'x'", "lambda: 1"):
        with pytest.raises(OptionError):
            Filter(bad, {"A"}, {"precision"})


def test_lang_html_differs_from_auto(tmp_path):
    # an English page that claims to be German: --lang html believes the attribute
    d = tmp_path / "ce"
    (d / "html").mkdir(parents=True)
    (d / "html" / "p.html").write_text(page().replace('lang="en"', 'lang="de-DE"'), encoding="utf-8")
    (d / "p.txt").write_text(f"URL: http://example.com/p\n<p> {P1}\n", encoding="utf-8")
    langs = {}
    for mode in ("html", "auto"):
        out = tmp_path / f"{mode}.csv"
        code, _ = run_cli(["eval", "--gold", f"cleaneval:{d}", "--lang", mode, "--csv", str(out), "-q",
                           "--extractor", "justext-package"])
        assert code == 0
        langs[mode] = read_csv(out)[0]
    assert langs["html"]["lang"] == "de" and langs["auto"]["lang"] == "en"
    assert float(langs["auto"]["recall"]) == 1
    assert float(langs["html"]["recall"]) < 0.5       # German stop words: P1 looks like boilerplate


def test_configurations_judge_template_lines_with_their_own_cache(cleaneval_dir):
    """justext-plus caches the verdicts of template lines; two configurations taking turns over the
    same pages each fill their own cache (the second would otherwise find every line judged), and
    the shared cache is back in place afterwards."""
    from corpustool.extractors import justext_plus_decide

    shared = justext_plus_decide.line_verdict
    pages = read_gold(str(cleaneval_dir))
    ev = Evaluation(pages, [parse_config("first=justext-plus"), parse_config("second=justext-plus")])
    ev.run()
    first, second = (ev.line_caches[label].cache_info() for label in ("first", "second"))
    assert first.misses > 0 and second.misses == first.misses
    assert first.hits > 0          # a configuration's own earlier pages (and its warm-up run) do count
    assert justext_plus_decide.line_verdict is shared
    assert ev.results["first"][0].words.tp > 0


def test_invalid_filter_is_refused_before_the_gold_is_read(tmp_path, capsys):
    """Reading a gold can print notes (pages without text); an invalid option still ends in one line."""
    for d in ("html", "ground-truth"):
        (tmp_path / d).mkdir()
    (tmp_path / "html" / "0001.html").write_text(page(), encoding="utf-8")
    (tmp_path / "ground-truth" / "0001.json").write_text(json.dumps(
        {"url": "http://example.com/1", "ground_truth": {"main_content": f"{HEADING}\n\n{P1}"}}), encoding="utf-8")
    (tmp_path / "ground-truth" / "0002.json").write_text(json.dumps(
        {"url": "http://example.com/2", "ground_truth": {"main_content": ""}}), encoding="utf-8")
    code = main(["eval", "--gold", f"wcxb:{tmp_path}", "-q", "--extractor", "justext", "--filter", "e1.f1 > (("])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--filter" in err, err
    # valid options: the note on the page without text is printed, and the page is scored
    assert main(["eval", "--gold", f"wcxb:{tmp_path}", "-q", "--extractor", "justext", "--bootstrap", "0"]) == 0
    captured = capsys.readouterr()
    assert "1 pages without a main text" in captured.err and "(1 pages, wcxb)" in captured.out


def test_lang_without_stoplist_is_evaluated_as_build_cleans_it(cleaneval_dir):
    """`eval --lang zh` was refused ("no stoplist") though build cleans such pages without a list."""
    code, text = run_cli(["eval", "--gold", str(cleaneval_dir), "--extractor", "justext", "--lang", "zh", "-q",
                          "--bootstrap", "0"])
    assert code == 0 and "lang: zh" in text


def test_cv_keeps_a_model_the_configuration_names(cleaneval_dir, capsys):
    """--cv trains a model per fold for justext-learned, but not over a model the configuration
    names: that one is used, and the note says its figures are not cross-validated."""
    code = main(["eval", "--gold", str(cleaneval_dir), "-q", "--cv", "2", "--bootstrap", "0",
                 "--extractor", "justext-learned:model=none", "--extractor", "justext"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "justext-learned:model=none uses the model it names (model=none)" in err
    # model=none is jusText's own classes: the same scores as classic jusText
    rows = {line.split()[0]: line.split()[-4:] for line in out.splitlines()
            if line.startswith(("justext-learned:model=none ", "justext "))}
    assert rows["justext-learned:model=none"] == rows["justext"]


def test_one_off_loads_are_not_charged_to_the_first_configuration(cleaneval_dir, monkeypatch):
    """What the clean stage loads once on a later page (the encoding detector, a language's
    stoplist) is loaded by an untimed warm-up pass over every page, not by whichever
    configuration meets it first; with one configuration there is nothing to compare."""
    calls = []
    real = Evaluation._run_stage

    def spy(self, cfg, index, *args, **kwargs):
        calls.append((cfg.label, index))
        return real(self, cfg, index, *args, **kwargs)

    monkeypatch.setattr(Evaluation, "_run_stage", spy)
    pages = read_gold(str(cleaneval_dir))
    for configs, warm in (([parse_config("justext"), parse_config("justext-plus")], 1), ([parse_config("justext")], 0)):
        calls.clear()
        ev = Evaluation(pages, configs)
        ev.run()
        # the first page warms each configuration; each later page is met first by the warm-up pass
        assert [c for c in calls if c[1] == -1] == [(c.label, -1) for c in configs] + [("\0warm-up", -1)] * warm
        assert set(ev.results) == {c.label for c in configs}



def test_an_unreadable_page_is_scored_as_empty_output(tmp_path, capsys):
    """A page whose file cannot be read (a damaged .html.gz) is counted as dropped and scored as
    empty output (its gold text missed), as the legend says of dropped pages."""
    import gzip

    (tmp_path / "html").mkdir()
    (tmp_path / "ground-truth").mkdir()
    (tmp_path / "html" / "0001.html.gz").write_bytes(gzip.compress(page().encode("utf-8")))
    (tmp_path / "html" / "0002.html.gz").write_bytes(b"not gzip")
    for n in ("0001", "0002"):
        (tmp_path / "ground-truth" / f"{n}.json").write_text(json.dumps(
            {"url": f"http://example.com/{n}", "ground_truth": {"main_content": f"{HEADING}\n\n{P1}"}}),
            encoding="utf-8")
    pages = read_gold(f"wcxb:{tmp_path}")
    assert len(pages) == 2
    ev = Evaluation(pages, [parse_config("justext-plus")])
    ev.run()
    capsys.readouterr()
    res = ev.results["justext-plus"][1]
    assert res.drop_reason == "unreadable" and res.words is not None and res.words.tp == 0
    summary = ev.summary("justext-plus")
    assert summary.dropped == 1 and summary.words.recall < 1.0


SITE_STORIES = {
    "park": "The city council voted on Tuesday to approve the construction of a new park in the northern district, "
            "ending a debate that had lasted for more than three years.",
    "storm": "A strong storm hit the coast on Sunday night, cutting power to thousands of homes and forcing the "
             "closure of several roads along the harbour.",
    "prices": "Consumer prices rose again in October, driven mainly by the cost of energy and food, and economists "
              "warned that interest rates might rise once more.",
    "school": "A new primary school opened its doors in the western suburbs on Monday, with room for four hundred "
              "pupils and a garden for lessons outdoors.",
}


def site_page(slug):
    links = "".join(f'<li><a href="http://news.example.org/{s}">The {s} story</a></li>' for s in SITE_STORIES)
    return (f'<html lang="en"><head><title>{slug}</title></head><body><div class="nav"><ul>{links}</ul></div>'
            f'<div id="main"><p>{SITE_STORIES[slug]}</p></div>'
            f'<div class="footer"><p>Copyright 2024 Example Media. Subscribe to our newsletter to get the news '
            f'every morning in your inbox.</p></div></body></html>')


@pytest.mark.parametrize("method", ["temex", "site-conex"])
def test_a_site_level_method_is_scored_after_its_stream_stage(tmp_path, method):
    """A site-level method's clean stage keeps every block and its stream stage decides, as build
    runs them: eval scored the pages before that stage, i.e. everything kept (the site's menu and
    footer counted as the method's output)."""
    (tmp_path / "html").mkdir()
    for slug in SITE_STORIES:
        (tmp_path / "html" / f"{slug}.html").write_text(site_page(slug), encoding="utf-8")
    (tmp_path / "ground-truth.json").write_text(json.dumps(
        {slug: {"url": f"http://news.example.org/{slug}", "articleBody": text}
         for slug, text in SITE_STORIES.items()}), encoding="utf-8")
    ev = Evaluation(read_gold(f"articles:{tmp_path}"), [parse_config(method)])
    ev.run()
    summary = ev.summary(method, resamples=0)
    assert summary.words.fp == 0                 # the shared menu and footer are template
    assert summary.words.recall == 1.0
    assert summary.seconds > 0
