"""The fast language guess before cleaning gives exactly the answers of the code it replaced.

``corpustool.language.identify`` finds a page's words once (:class:`PageWords`)
and shares them between :func:`identify`, :func:`stopword_density`,
:func:`guess_stoplist_language` and :func:`no_stoplist_reason`; :func:`page_text`
collects the text nodes with one XPath. The reference copies below are the
previous implementations, verbatim (they use the module's unchanged helpers:
the word regex, the model, the script counts). The differential tests compare
both on generated pages and texts (always) and on every development page
(when ../shared/data/snippets is present): the multiset of page-text words,
every field of the identification, the stop-word density (exact float), the
guess, the drop reason and the clean stage's stoplist choice.

``scripts/bench_clean_stage.py`` times the reference against the new code.
"""
from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from corpustool.document import Document
from corpustool.extractors.base import Page, parse_html
from corpustool.extractors.clean import Clean
from corpustool.language import identify as ident
from corpustool.language.identify import (PageWords, guess_stoplist_language, identify, no_stoplist_reason,
                                          page_text, stopword_density)
from corpustool.language.stoplists import has_stoplist, stoplist

from tests.language.test_language import GERMAN_ARTICLE, SAMPLES


# -- reference: the previous implementation, verbatim ------------------------------------------
def ref_identify(text, candidates=None, *, prior=None):
    explicit = bool(candidates)
    cands = ident._candidates(candidates)
    words = ident._WORD.findall(text)
    n_words = len(words)
    if not n_words:
        return ident.Identification(ident.UNDETERMINED, 0.0, "none")
    letters = sum(map(len, words))
    by_script = ident._script_language(text, letters, cands if explicit else None)
    if by_script is not None:
        return ident.Identification(by_script[0], round(by_script[1], 4), "script", None, n_words, 0)
    model = ident._model(cands)
    index = model.index
    scores = {}
    hits = {}
    for word in set(words) & index.keys():
        for i, weight in index[word]:
            scores[i] = scores.get(i, 0.0) + weight
            hits[i] = hits.get(i, 0) + 1
    if not scores:
        return ident._unique_script(text, letters, n_words, cands if explicit else None)
    langs = model.langs
    log_prior = ident._log_prior(prior, langs)
    if log_prior:
        for i in log_prior:
            scores.setdefault(i, 0.0)
            hits.setdefault(i, 0)
    base = model.base
    logit = {i: sc / ident.TEMPERATURE + base[i] + log_prior.get(i, log_prior.get(-1, 0.0))
             for i, sc in scores.items()}
    order = sorted(logit, key=lambda i: (-logit[i], langs[i]))
    best = order[0]
    top = logit[best]
    posterior = 1.0 / sum(math.exp(logit[i] - top) for i in order)
    support = 1.0 - math.exp(-hits[best] / ident.SUPPORT_WORDS)
    if hits[best] == 0:
        return ident.Identification(langs[best], 0.0, "prior", None, n_words, 0)
    runner = langs[order[1]] if len(order) > 1 else None
    second = 0.0
    if runner is not None:      # the runner-up's confidence (lang_diff on <doc>)
        other = order[1]
        second = posterior * math.exp(logit[other] - top) * (1.0 - math.exp(-hits[other] / ident.SUPPORT_WORDS))
    return ident.Identification(langs[best], round(posterior * support, 4), "stopwords", runner,
                                n_words, hits[best], round(second, 4))


def ref_stopword_density(text, code):
    from corpustool.text.tokenizer import justext_words

    words = justext_words(text)
    if not words:
        return 0.0
    stop = stoplist(code)
    return sum(1 for w in words if w.lower() in stop) / len(words)


def ref_guess_stoplist_language(text, candidates=None, min_density=ident.MIN_DENSITY):
    cands = tuple(c for c in ident._candidates(candidates, require_stoplist=True))
    if len(cands) == 1:
        return cands[0], 1.0
    result = ref_identify(text, cands if candidates else None)
    if result.lang == ident.UNDETERMINED or not has_stoplist(result.lang):
        return None, 0.0
    density = ref_stopword_density(text, result.lang)
    if density < min_density:
        return None, density
    return result.lang, density


def ref_no_stoplist_reason(text, candidates=None):
    lang = ref_identify(text).lang
    if lang == ident.UNDETERMINED:
        return "unknown-language", None
    if candidates and lang not in ident._candidates(candidates):
        return "unwanted-language", lang
    if not has_stoplist(lang):
        return "no-stoplist", lang
    return "unknown-language", lang


_NO_TEXT_TAGS = frozenset(("script", "style"))


def ref_page_text(root):
    if root is None:
        return ""
    body = root.find("body")
    if body is not None and len(body):
        root = body
    parts = []
    for el in root.iter():
        tag = el.tag
        if isinstance(tag, str) and tag not in _NO_TEXT_TAGS and el.text:
            parts.append(el.text)
        if el.tail and el is not root:
            parts.append(el.tail)
    return " ".join(parts)


class RefClean(Clean):
    """The clean stage choosing its stoplist with the previous functions: the language
    module's functions are swapped for the reference ones while the stage's own code runs."""

    REFERENCE = {"PageWords": lambda text: text, "page_text": ref_page_text,
                 "guess_stoplist_language": ref_guess_stoplist_language,
                 "no_stoplist_reason": ref_no_stoplist_reason, "identify": ref_identify,
                 "stopword_density": ref_stopword_density}

    def choose_stoplist(self, doc, page):
        saved = {name: getattr(ident, name) for name in self.REFERENCE}
        try:
            for name, fn in self.REFERENCE.items():
                setattr(ident, name, fn)
            return super().choose_stoplist(doc, page)
        finally:
            for name, fn in saved.items():
                setattr(ident, name, fn)


# -- comparisons ------------------------------------------------------------------------------
CANDIDATE_SETS = (None, ["en", "de", "cs"], ["fr", "es"], ["zh", "ja", "en"], ["th", "ko", "el", "he"],
                  ["ko", "el", "hy", "ka"])


def guessable(cands) -> bool:
    """The stoplist guess takes only languages with a stoplist (the clean stage refuses others)."""
    return not cands or all(has_stoplist(c) for c in cands)


def assert_same_text_answers(text: str, what: str) -> None:
    """Every answer about one text: the reference on the string, the new code on the string
    and on one shared PageWords (asked in the clean stage's order, so its memory is used)."""
    words = PageWords(text)
    for cands in CANDIDATE_SETS:
        want = ref_identify(text, cands)
        assert identify(text, cands) == want, (what, cands)
        assert identify(words, cands) == want, (what, cands)
        assert identify(words, cands) == want, (what, cands, "remembered")
        if guessable(cands):
            want_guess = ref_guess_stoplist_language(text, cands)
            assert guess_stoplist_language(words, cands) == want_guess, (what, cands)
            assert guess_stoplist_language(text, cands) == want_guess, (what, cands)
        assert no_stoplist_reason(words, cands) == ref_no_stoplist_reason(text, cands), (what, cands)
    for prior in ({"es": 0.9}, {"de": 0.5, "en": 0.5}):
        assert identify(words, prior=prior) == ref_identify(text, prior=prior), (what, prior)
    codes = {"en", "de", "cs", "ja", "zh", "th", "el", "tr", ref_identify(text).lang}
    for code in sorted(c for c in codes if has_stoplist(c)):
        want = ref_stopword_density(text, code)
        assert stopword_density(words, code) == want, (what, code)
        assert stopword_density(text, code) == want, (what, code)


def assert_same_page_text(tree, what: str) -> tuple[str, str]:
    """The compiled walk gives the reference's string itself; the XPath fallback (used
    without the extension) the same words in another order."""
    old, new = ref_page_text(tree), page_text(tree)
    if ident._compiled_page_text is not None:
        assert new == old, what
    assert Counter(fallback_page_text(tree).split()) == Counter(old.split()), what
    return old, new


def fallback_page_text(tree) -> str:
    compiled = ident._compiled_page_text
    try:
        ident._compiled_page_text = None
        return page_text(tree)
    finally:
        ident._compiled_page_text = compiled


def assert_same_page_answers(html: str, what: str, clean_langs=((),)) -> None:
    tree = parse_html(html)
    old, new = assert_same_page_text(tree, what)
    words = PageWords(new)
    for cands in CANDIDATE_SETS:
        assert identify(words, cands) == ref_identify(old, cands), (what, cands)
        if guessable(cands):
            assert guess_stoplist_language(words, cands) == ref_guess_stoplist_language(old, cands), (what, cands)
        assert no_stoplist_reason(words, cands) == ref_no_stoplist_reason(old, cands), (what, cands)
    for code in sorted(c for c in {"en", "de", ref_identify(old).lang} if has_stoplist(c)):
        assert stopword_density(words, code) == ref_stopword_density(old, code), (what, code)
    for langs in clean_langs:
        assert_same_choice(html, list(langs), what)


def choice(stage: Clean, html: str) -> tuple:
    doc = Document(id="1", url="http://example.com/", html=html)
    page = Page(html, url=doc.url)
    if page.tree is None:
        return ("no tree",)
    kept = stage.choose_stoplist(doc, page)
    return (kept, doc.stoplist_lang, doc.lang, doc.drop_reason, dict(doc.meta), page.language,
            page.stoplist, dict(page.meta), dict(stage.stats.extra))


def assert_same_choice(html: str, languages: list[str], what: str) -> None:
    assert choice(Clean(languages=languages), html) == choice(RefClean(languages=languages), html), \
        (what, languages)


# -- generated pages and texts (always run) --------------------------------------------------
GREEK_CAPS = "ΟΔΟΣ ΚΑΙ Ο ΚΟΣΜΟΣ ΤΗΣ ΑΘΗΝΑΣ, ΣΟΦΟΣ. ΣΑΣ"      # final sigma depends on the context
TURKISH = "İstanbul'da bugün hava çok güzel ve biz de dışarı çıktık. İŞTE BU KADAR."
EXTRA = {
    "el-caps": GREEK_CAPS,
    "tr": TURKISH,
    "marks": "Cafe\u0301 de\u0301ja\u0300 vu, l'homme d’affaires, Vor- und Nachteile, km² ½ Ⅻ x_y 3rd",
    "zh-smp": "𠀀𠀁 汉字 々〇 中文 测试",
    "mixed-menu": ("English Deutsch Français 中文 日本語 ไทย 한국어 Ελληνικά עברית Հայերեն ქართული "
                   + SAMPLES["en"]),
    "kana-few": "これは テスト です " + SAMPLES["en"],
    "hebrew": "שלום עולם זה טקסט בעברית עם כמה מילים",
    "armenian": "Բարեւ աշխարհ սա հայերեն տեքստ է",
    "georgian": "გამარჯობა მსოფლიო ეს ქართული ტექსტია",
    "digits": "12 34 56 2020-01-01 3.14 +420 ___",
    "punct": "... --- !!! ??? «» “” () [] {}",
    "spaces": "a\x1cb\x1dc\x1ed\x1fe\x85f\u2028g\u2029h\u3000i\u00a0j\u202fk\u205fl\u1680m\u2000n\tthe\x0bo\x0cp",
    "invisible": "Mag\u00adda\u00adle\u00adner und\u200bder Tag\u2060es \ufeffist",
    "caps": "THE END OF THE WORLD AND ALL OF THAT",
    "empty": "",
    "blank": " \n\t ",
}
TEXTS = {**SAMPLES, **EXTRA, "de-article": " ".join(GERMAN_ARTICLE)}

# characters for random texts: the word regex's letters, marks and apostrophes, the scripts
# the identification counts, white space str.split knows, digits, "_", punctuation
_POOL = (list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") + list("äöüßéèçñøåčřžİıΣσς")
         + list("'’-_.,;:!?()0123456789²½") + ["\u0301", "\u0308", "\u093e", "\u094d", "\u200c"]
         + list("中文汉字日本語のはをカタ々〇") + ["\U00020000"] + list("ไทยກາລ្ខ") + list("한국어αβγאבגաბ")
         + [" "] * 12 + ["\n", "\t", "\u00a0", "\u3000", "\x1c", "\u2028", "\x85"])


def random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 60)):
        r = rng.random()
        if r < 0.45:   # a real word of some language, sometimes with punctuation glued to it
            word = rng.choice(rng.choice(list(SAMPLES.values())).split())
            parts.append(word if rng.random() < 0.7 else rng.choice("(\"'«") + word + rng.choice(",.;’'"))
        elif r < 0.55:
            parts.append(rng.choice(ident.ranked_words(rng.choice(("en", "de", "fr", "cs", "ko", "el")))[:50]))
        else:
            parts.append("".join(rng.choice(_POOL) for _ in range(rng.randint(1, 12))))
    return rng.choice(("", " ", "\n", "\u00a0")).join(parts) if rng.random() < 0.2 else " ".join(parts)


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text_answers_equal_reference(name):
    assert_same_text_answers(TEXTS[name], name)


def test_random_texts_equal_reference():
    rng = random.Random(20240607)
    for k in range(400):
        assert_same_text_answers(random_text(rng), f"random text {k}")


def test_greek_final_sigma_density_counts_words_lower_cased_alone():
    # lower-casing a whole text and lower-casing each word give the same final sigma
    text = "ΟΔΟΣ ΚΑΙ ΤΗΣ ΣΑΣ"
    assert stopword_density(text, "el") == ref_stopword_density(text, "el") > 0


def _html(body: str, head: str = "<title>Titel der Seite</title>", lang: str = "") -> str:
    return f"<html{lang}><head>{head}</head><body>{body}</body></html>"


PAGES = {
    "article": _html("<div>Home | About</div>" + "".join(f"<p>{p}</p>" for p in GERMAN_ARTICLE)),
    "script-tails": _html("<p>Die Stadt</p><script>var the = 1; if (a in b) {}</script>und der Fluss"
                          "<style>p { color: red }</style>sind schön<script></script>  leer"
                          + "".join(f"<p>{p}</p>" for p in GERMAN_ARTICLE)),
    "script-first": _html("<script>for (the of window) {}</script>" + SAMPLES["en"]),
    "noscript": _html("<noscript><p>" + GERMAN_ARTICLE[0] + "</p></noscript><script>var x;</script>"),
    "comments": _html("<p>Die Brücke<!-- the end of the world -->wird fertig</p><!-- a --><p>"
                      + GERMAN_ARTICLE[1] + "</p>"),
    "processing-instruction": _html("<p>The <?php echo 'the'; ?>government has decided</p><p>"
                                    + SAMPLES["en"] + "</p>"),
    "inline-splits-words": _html("<p>Gov<b>ern</b>ment has de<i>ci</i>ded th<span>at</span> the</p>"
                                 + "<p>" + SAMPLES["en"] + "</p>"),
    "empty-body": "<html><head><title>The title of the page</title></head><body></body></html>",
    "body-text-only": "<html><head><title>Der Titel</title></head><body>" + GERMAN_ARTICLE[0] + "</body></html>",
    "no-body": "<p>" + SAMPLES["es"] + "<p>" + SAMPLES["gl"],
    "fragment": SAMPLES["cs"],
    "tag-soup": ("<table><tr><td>Die <b>Stadt<td>und <i>der</b> Fluss</i><p><p>" + GERMAN_ARTICLE[2]
                 + "</table></div></span><li>über<li>unter <br> oben"),
    "after-html": _html("<p>" + SAMPLES["pt"] + "</p>") + "texto depois do fim <p>e mais</p>",
    "zh": _html("<p>" + SAMPLES["zh"] + "</p><script>var a = '中文';</script>"),
    "ja": _html("<p>" + SAMPLES["ja"] + "</p>"),
    "th": _html("<div>" + SAMPLES["th"] + "</div><style>.a{}</style>หลัง"),
    "ko": _html("<p>" + SAMPLES["ko"] + "</p>"),
    "language-menu": _html("<ul><li>English<li>中文<li>日本語<li>ไทย<li>Ελληνικά</ul><p>"
                           + SAMPLES["en"] + "</p>"),
    "entities": _html("<p>Caf&eacute; &amp; cr&egrave;me &nbsp;br&ucirc;l&eacute;e &#x4E2D;&#25991; &bogus; "
                      + SAMPLES["es"] + "</p>"),
    "svg-style": _html("<svg><style>.cls{fill:red}</style><text>the end</text></svg><p>"
                       + SAMPLES["de"] + "</p>"),
    "only-script": _html("<script>var the = document.window;</script>"),
    "digits-only": _html("<p>12 34 56</p><p>2020</p>"),
    "mixed-en-es": _html("<div>Cookie notice: we use cookies and you can opt out of them at any time.</div>"
                         + "".join(f"<p>{SAMPLES['es']}</p>" for _ in range(3))),
    "xml-declaration": '<?xml version="1.0" encoding="utf-8"?>' + _html("<p>" + SAMPLES["nb"] + "</p>"),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_answers_equal_reference(name):
    assert_same_page_answers(PAGES[name], name, clean_langs=((), ("en", "de"), ("es", "pt"), ("cs", "sk")))


def test_random_pages_equal_reference():
    rng = random.Random(7)
    tags = ("p", "div", "span", "b", "script", "style", "noscript", "li", "td", "a", "h1")
    for k in range(150):
        parts = []
        for _ in range(rng.randint(0, 25)):
            tag = rng.choice(tags)
            inner = random_text(rng).replace("<", " ").replace("&", " ")
            tail = rng.choice(("", " ", random_text(rng).replace("<", " ").replace("&", " ")))
            close = f"</{tag}>" if rng.random() < 0.85 else ""
            if rng.random() < 0.1:
                parts.append("<!-- the comment -->")
            parts.append(f"<{tag}>{inner}{close}{tail}")
        body = "".join(parts)
        html = _html(body) if rng.random() < 0.8 else body
        assert_same_page_answers(html, f"random page {k}: {html[:200]!r}")


def test_compiled_page_text_is_used_when_built():
    from corpustool.extractors import justext_engine

    # the compiled walk is built with the jusText engine's; where that one is, this one is too
    assert (ident._compiled_page_text is not None) == bool(justext_engine.COMPILED)


def test_page_text_of_odd_roots_equals_reference():
    from lxml import etree

    tree = parse_html(PAGES["comments"])
    body = tree.find("body")
    for root in (body, body[0], tree, etree.Comment("the comment"), None):
        assert page_text(root) == ref_page_text(root)
    # a tree built by hand: adjacent text nodes cannot come from the parser, but the
    # compiled walk reads .text as lxml does (the whole run)
    el = etree.Element("div")
    el.text = "Die"
    script = etree.SubElement(el, "script")
    script.text = "var the;"
    script.tail = "Stadt"
    assert page_text(el) == ref_page_text(el) == "Die Stadt"


def test_page_text_keeps_script_tails_and_drops_script_code():
    text = page_text(parse_html(PAGES["script-tails"]))
    assert "und der Fluss" in text and "sind schön" in text and "leer" in text
    assert "var" not in text.split() and "color:" not in text.split()


# -- every development page (skipped without ../shared) ---------------------------------------
def test_dev_pages_equal_reference(snippets_dir, snippets_gold):
    from corpustool.encoding import decode

    files = sorted({e["file"] for e in snippets_gold.values()})
    assert len(files) > 100
    auto, wanted = Clean(languages=["auto"]), Clean(languages=["en", "de", "cs"])
    ref_auto, ref_wanted = RefClean(languages=["auto"]), RefClean(languages=["en", "de", "cs"])
    langs = Counter()
    for name in files:
        html = decode((snippets_dir / "pages" / name).read_bytes(), None).text
        tree = parse_html(html)
        old, new = assert_same_page_text(tree, name)
        words = PageWords(new)
        want = ref_identify(old)
        assert identify(words) == want, name
        assert guess_stoplist_language(words) == ref_guess_stoplist_language(old), name
        assert no_stoplist_reason(words) == ref_no_stoplist_reason(old), name
        if has_stoplist(want.lang):
            assert stopword_density(words, want.lang) == ref_stopword_density(old, want.lang), name
        langs[want.lang] += 1
        for new_stage, ref_stage in ((auto, ref_auto), (wanted, ref_wanted)):
            assert choice(new_stage, html)[:-1] == choice(ref_stage, html)[:-1], (name, new_stage.languages)
    assert auto.stats.extra == ref_auto.stats.extra and wanted.stats.extra == ref_wanted.stats.extra
    assert len(langs) >= 5    # the dev pages are in many languages: the comparison covers them
