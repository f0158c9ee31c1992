"""The WCXB gold: its layout, its bag-of-words metric, page types and domain folds."""
import gzip
import json

import pytest

from corpustool.eval.align import bag_confusion
from corpustool.eval.breakdown import fold_of, groups
from corpustool.eval.gold import read_gold, registered_domain
from corpustool.eval.tokens import words

from tests.eval.test_eval_command import NAV, P1, P2, page, run_cli

FORUM_POST = ("I have had the same problem with my bicycle for weeks now and nobody at the shop could tell me "
              "what was wrong with the gears when I brought it in last Friday afternoon.")


def write_page(d, key, html, url, main_content, ptype, with_=(), without=()):
    (d / "html" / f"{key}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
    entry = {"url": url, "file_id": key, "_internal": {"page_type": {"primary": ptype}},
             "ground_truth": {"title": None, "main_content": main_content, "with": list(with_),
                              "without": list(without)}}
    (d / "ground-truth" / f"{key}.json").write_text(json.dumps(entry), encoding="utf-8")


@pytest.fixture
def wcxb_dir(tmp_path):
    d = tmp_path / "wcxb"
    (d / "html").mkdir(parents=True)
    (d / "ground-truth").mkdir()
    write_page(d, "0001", page(), "https://www.example.com/a", f"{P1}\n\n{P2}", "article",
               with_=["founded in the twelfth century"], without=["About us"])
    write_page(d, "0002", page(p2=FORUM_POST), "https://forum.example.org/t/1", f"{P1}\n\n{FORUM_POST}", "forum")
    write_page(d, "0003", page(), "https://news.example.co.uk/x", "", "article")      # no main text
    return d


def test_reader_reads_layout_type_domain_and_skips_pages_without_text(wcxb_dir, capsys):
    pages = read_gold(str(wcxb_dir))           # the format is detected from the layout
    assert [p.id for p in pages] == ["0001", "0002"]
    assert all(p.format == "wcxb" for p in pages)
    assert pages[0].meta["page_type"] == "article" and pages[1].meta["page_type"] == "forum"
    assert pages[0].meta["domain"] == "example.com" and pages[1].meta["domain"] == "example.org"
    assert pages[0].with_snippets == ["founded in the twelfth century"]
    assert pages[0].load()[0].startswith(b"<html")
    assert "1 pages without a main text" in capsys.readouterr().err


def test_reader_skips_a_page_whose_snippets_are_not_a_list_of_strings(wcxb_dir, capsys):
    entry = json.loads((wcxb_dir / "ground-truth" / "0001.json").read_text(encoding="utf-8"))
    entry["ground_truth"]["without"] = "About us"
    (wcxb_dir / "ground-truth" / "0001.json").write_text(json.dumps(entry), encoding="utf-8")
    assert [p.id for p in read_gold(str(wcxb_dir))] == ["0002"]
    assert "0001.json: 'without' is not a list of strings; skipped" in capsys.readouterr().err


def test_registered_domain():
    assert registered_domain("https://news.bbc.co.uk/a") == "bbc.co.uk"
    assert registered_domain("http://www.example.com:8080/x") == "example.com"
    assert registered_domain("https://a.b.example.com/") == "example.com"
    assert registered_domain(None) == "" and registered_domain("not a url") == ""


def test_bag_of_words_ignores_order_counts_repeats():
    out = words("b a a c")
    gold = words("a b a d e")
    w, c = bag_confusion(out, gold, 10, 100)
    # bag intersection: a twice, b once; c is extra; d and e are missed
    assert (w.tp, w.fp, w.fn) == (3, 1, 2)
    assert w.f1 == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))
    assert c.tp == 3 and c.fp == 1


def test_folds_are_deterministic_by_domain_and_split_in_halves():
    assert fold_of("example.com", 4) == fold_of("example.com", 4)
    folds = {fold_of(f"site{i}.com", 4) for i in range(200)}
    assert folds == {0, 1, 2, 3}


def test_groups_keep_a_site_in_one_fold(wcxb_dir):
    pages = read_gold(str(wcxb_dir))
    # two pages of one site and the other page's copies: every site's pages share a fold
    pages += read_gold(str(wcxb_dir))
    named = dict(groups(pages, 4))
    assert named["type article"] == [0, 2] and named["type forum"] == [1, 3]
    for f in range(4):
        ids = named.get(f"fold {f}", [])
        assert {pages[i].meta["domain"] for i in ids} <= {"example.com", "example.org"}
        for i in ids:
            assert fold_of(pages[i].meta["domain"], 4) == f
    dev, held = named["dev half (folds 0-1)"], named["held-out half (folds 2-3)"]
    assert sorted(dev + held) == [0, 1, 2, 3]


def test_cli_reports_mean_word_f1_per_type_and_fold(wcxb_dir):
    code, out = run_cli(["eval", "--gold", f"wcxb:{wcxb_dir}", "--extractor", "justext-plus", "-q",
                         "--bootstrap", "0", "--folds", "2"])
    assert code == 0
    assert "wcxb" in out
    assert "mean per-page F1 by group" in out
    for group in ("type article", "type forum", "dev half (folds 0-0)", "held-out half (folds 1-1)"):
        assert group in out
    row = next(l for l in out.splitlines() if l.startswith("type article"))
    # the article's main text is the two paragraphs: the default finds them, and not the menu
    assert float(row.split()[-1]) > 0.9


def test_cli_refuses_one_fold(wcxb_dir, capsys):
    code, _ = run_cli(["eval", "--gold", f"wcxb:{wcxb_dir}", "--folds", "1", "-q"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--folds" in err and err.count("\n") == 1
