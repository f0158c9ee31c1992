"""Metrics, alignment, shingles, snippets and fragmentation against hand-computed values."""
import math

import pytest

from corpustool.eval.align import labelled_confusion, matched_mask, text_confusion
from corpustool.eval.fragments import fragment_lengths, fragmentation
from corpustool.eval.metrics import Confusion, bootstrap_ci, macro, micro
from corpustool.eval.shingles import shingle_confusion, shingles
from corpustool.eval.snippets import match_snippets
from corpustool.eval.tokens import normalize_snippet, words


def test_scores_by_hand():
    c = Confusion(tp=8, fp=2, fn=4, tn=6)
    assert c.precision == pytest.approx(0.8)
    assert c.recall == pytest.approx(8 / 12)
    assert c.f1 == pytest.approx(16 / 22)              # 2TP / (2TP + FN + FP)
    assert c.f05 == pytest.approx(10 / 13)             # 1.25 TP / (1.25 TP + 0.25 FN + FP)
    assert c.fallout == pytest.approx(0.25)            # FP / (FP + TN)
    assert c.accuracy == pytest.approx(0.7)


def test_scores_match_seed_004_appendix_i2():
    # boilerpipe on "testOfInterest": TP 2177, FN 11, FP 104, TN 255 and the printed scores
    c = Confusion(tp=2177, fp=104, fn=11, tn=255)
    assert c.precision == pytest.approx(0.95440596, abs=1e-7)
    assert c.recall == pytest.approx(0.9949726, abs=1e-7)
    assert c.fallout == pytest.approx(0.2896936, abs=1e-7)
    assert c.f1 == pytest.approx(0.97426724, abs=1e-7)
    assert c.accuracy == pytest.approx(0.9548488, abs=1e-7)


def test_blocks_versus_words_seed_004_table_2_3():
    words_ = [10, 100, 50, 30, 1, 1000, 20, 300, 200, 50]
    kinds = ["TP"] * 4 + ["FP"] * 4 + ["FN"] * 2
    blocks = Confusion(tp=kinds.count("TP"), fp=kinds.count("FP"), fn=kinds.count("FN"))
    by_words = Confusion(tp=sum(w for w, k in zip(words_, kinds) if k == "TP"),
                         fp=sum(w for w, k in zip(words_, kinds) if k == "FP"),
                         fn=sum(w for w, k in zip(words_, kinds) if k == "FN"))
    assert blocks.precision == pytest.approx(0.5)
    assert blocks.recall == pytest.approx(4 / 6)
    assert round(100 * by_words.precision, 2) == 12.57


def test_undefined_scores_are_nan_and_f_is_zero_without_output():
    nothing_kept = Confusion(tp=0, fp=0, fn=5, tn=3)
    assert math.isnan(nothing_kept.precision)
    assert nothing_kept.recall == 0
    assert nothing_kept.f1 == 0 and nothing_kept.f05 == 0
    assert math.isnan(Confusion().f1)


def test_micro_and_macro():
    pages = [Confusion(tp=1, fp=1), Confusion(tp=3, fp=0), Confusion(tp=0, fp=0)]
    assert micro(pages).precision == pytest.approx(0.8)          # 4 / 5
    assert macro(pages, "precision") == pytest.approx(0.75)      # (0.5 + 1.0) / 2, third undefined


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    pages = [Confusion(tp=t, fp=f, fn=n) for t, f, n in
             [(10, 1, 2), (5, 5, 0), (0, 3, 7), (8, 0, 1), (20, 2, 2), (3, 1, 6), (9, 9, 1)]]
    a = bootstrap_ci(pages, "f1", resamples=500, seed=7)
    assert a == bootstrap_ci(pages, "f1", resamples=500, seed=7)
    assert a[0] <= micro(pages).f1 <= a[1]
    assert a[0] < a[1]
    same = [Confusion(tp=4, fp=1, fn=1)] * 5
    lo, hi = bootstrap_ci(same, "precision", resamples=200, seed=1)
    assert lo == pytest.approx(0.8) and hi == pytest.approx(0.8)


def test_words_and_snippet_normalisation():
    assert words("Hello, World! It's 2x") == ["hello", "world", "it", "s", "2x"]
    assert normalize_snippet("  31. Mai -- IMPRESSUM!") == "31 mai impressum"


def test_alignment_is_ordered_not_a_bag_of_words():
    out_mask, ref_mask = matched_mask(["four", "three", "two", "one"], ["one", "two", "three", "four"])
    assert sum(out_mask) == 1 and sum(ref_mask) == 1          # a bag of words would say 4


def test_text_confusion_by_hand():
    w, c = text_confusion(words("a b x d e"), words("a b c d e"), page_words=8, page_chars=8)
    assert (w.tp, w.fp, w.fn, w.tn) == (4, 1, 1, 2)
    w, c = text_confusion(words("alpha gamma delta"), words("alpha beta gamma"), page_words=5, page_chars=25)
    assert (w.tp, w.fp, w.fn) == (2, 1, 1)
    assert (c.tp, c.fp, c.fn) == (10, 5, 4)                    # alpha+gamma, delta, beta
    assert c.tn == 25 - 10 - 5 - 4


def test_labelled_confusion_on_seed_004_example():
    # the page: an article sentence pair and an advertisement; the extractor kept the
    # first article sentence and the advertisement (seed 004, Sect. 2.1.2)
    article = words("I am an interesting text. My content is about advertisement in modern times.")
    ad = words("And i am an advertisement for socks.")
    page = article + ad
    labels = ["good"] * len(article) + ["bad"] * len(ad)
    output = words("I am an interesting text. And i am an advertisement for socks.")
    w, c = labelled_confusion(output, page, labels)
    # text alignment would credit "advertisement" to the article; the labelled page does not
    assert (w.tp, w.fp, w.fn, w.tn) == (5, 7, 8, 0)
    assert c.tp == len("iamaninterestingtext")


def test_labelled_confusion_ignores_uncertain_and_counts_invented_words():
    page = ["home", "news", "good", "text", "here", "caption"]
    labels = ["bad", "bad", "good", "good", "good", "ignored"]
    w, _ = labelled_confusion(["good", "text", "caption", "extra"], page, labels)
    assert (w.tp, w.fp, w.fn, w.tn) == (2, 1, 1, 2)            # "extra" is FP, "caption" ignored


def test_shingles_by_hand():
    assert len(shingles(list("abcdef"))) == 3
    c = shingle_confusion(list("abcdex"), list("abcdef"))
    assert (c.tp, c.fp, c.fn) == (2, 1, 1)
    short = shingle_confusion(["a", "b"], ["a", "b"])
    assert (short.tp, short.fp, short.fn) == (1, 0, 0)
    assert shingle_confusion([], ["a"]).fn == 1


def test_snippet_hit_rates():
    out = "Die GEMA dreht völlig am Zeiger!! Siehe http://www.openpetition.de\nIMPRESSUM | 31.Mai"
    r = match_snippets(out, ["Die GEMA dreht völlig am Zeiger!", "http://www.openpetition.de", "Fehlt hier"],
                       ["31. Mai", "Impressum", "Steuerdarling", "!!!"])
    assert r.found_with == [True, True, False]
    assert r.found_without == [True, True, False]              # "!!!" normalises to nothing: left out
    assert r.with_rate == pytest.approx(2 / 3)
    assert r.without_rate == pytest.approx(1 / 3)
    c = r.confusion
    assert (c.tp, c.fn, c.fp, c.tn) == (2, 1, 2, 1)


def test_fragmentation_by_hand():
    blocks = [("x" * 10, True), ("y" * 5, True), ("nav", False), ("z" * 7, True), ("foot", False)]
    assert fragment_lengths(blocks) == [15, 7]
    assert fragment_lengths([("a", False)]) == []
    f = fragmentation([[15, 7], [], [30]])
    assert f.fragments == 3 and f.documents == 3
    assert f.per_document == pytest.approx(1.0)
    assert f.avg_length == pytest.approx(52 / 3)
    assert f.median_length == 15
