"""The language guess before cleaning (corpustool/language/identify.py), on both backends.

:class:`PageWords` finds a page's words once and shares them between :func:`identify`,
:func:`stopword_density`, :func:`guess_stoplist_language` and :func:`no_stoplist_reason`;
a text of :data:`~corpustool.language.identify.SHORT_TEXT` characters or more is split at
white space and its distinct chunks are counted (scanned in C on the compiled backend),
a shorter one goes through the word regex directly. Counting the chunks must give exactly
what the regex over the whole text gives: every field of the identification, the stop-word
density (to the last bit), the guess, the drop reason, the clean stage's stoplist choice; on
texts and pages written here and generated (always) and on every development page (when
../shared/data/snippets is present). :func:`page_text` collects the text a guess reads.
(The compiled scans against their Python twins: tests/native/test_backend_parity.py.)
"""
from __future__ import annotations

import random
from collections import Counter
from contextlib import contextmanager

import pytest

from corpustool.document import Document
from corpustool.extractors.base import Page, parse_html
from corpustool.extractors.clean import Clean
from corpustool.language import identify as ident
from corpustool.language.identify import (PageWords, guess_stoplist_language, identify, no_stoplist_reason,
                                          page_text, stopword_density)
from corpustool.language.stoplists import has_stoplist
from tests.language.test_language import GERMAN_ARTICLE, SAMPLES

CANDIDATE_SETS = (None, ["en", "de", "cs"], ["fr", "es"], ["zh", "ja", "en"], ["th", "ko", "el", "he"],
                  ["ko", "el", "hy", "ka"])


def guessable(cands) -> bool:
    """The stoplist guess takes only languages with a stoplist (the clean stage refuses others)."""
    return not cands or all(has_stoplist(c) for c in cands)


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



def random_page(rng: random.Random) -> str:
    tags = ("p", "div", "span", "b", "script", "style", "noscript", "li", "td", "a", "h1")
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
    return _html(body) if rng.random() < 0.8 else body


# -- the distinct chunks counted and the regex over the whole text: the same answers ----------

@contextmanager
def short_text(limit: int):
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ident, "SHORT_TEXT", limit)
        yield


def chunked_and_direct(fn, *args):
    """``fn``'s answer with every text's chunks counted, and with every text through the regex."""
    with short_text(0):
        chunked = fn(*args)
    with short_text(1 << 62):
        direct = fn(*args)
    return chunked, direct


def text_answers(text: str) -> list:
    """Every answer about one text: on the string and on one shared PageWords (asked in the clean
    stage's order, so its memory is used), which must agree."""
    words = PageWords(text)
    out = []
    for cands in CANDIDATE_SETS:
        answer = identify(text, cands)
        assert identify(words, cands) == answer == identify(words, cands), cands      # (remembered)
        out.append(answer)
        if guessable(cands):
            guess = guess_stoplist_language(words, cands)
            assert guess_stoplist_language(text, cands) == guess, cands
            out.append(guess)
        out.append(no_stoplist_reason(words, cands))
    for prior in ({"es": 0.9}, {"de": 0.5, "en": 0.5}):
        out.append(identify(words, prior=prior))
    codes = {"en", "de", "cs", "ja", "zh", "th", "el", "tr", identify(text).lang}
    for code in sorted(c for c in codes if has_stoplist(c)):
        density = stopword_density(words, code)
        assert stopword_density(text, code) == density, code
        out.append((code, density.hex()))
    return out + [words.n_words, words.letters]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text_answers_counted_in_chunks_are_the_regexs(name, native_backend):
    chunked, direct = chunked_and_direct(text_answers, TEXTS[name])
    assert chunked == direct


def test_random_texts_counted_in_chunks_are_the_regexs(native_backend):
    rng = random.Random(20240607)
    texts = [random_text(rng) for _ in range(400)]
    chunked, direct = chunked_and_direct(lambda: [text_answers(t) for t in texts])
    for text, a, b in zip(texts, chunked, direct):
        assert a == b, text[:200]


def test_greek_final_sigma_density_counts_words_lower_cased_alone(native_backend):
    # lower-casing a whole text and lower-casing each word give the same final sigma:
    # "ΚΑΙ" and "ΤΗΣ" are stop words (lower case "και", "της"), "ΟΔΟΣ" and "ΣΑΣ" are not
    assert chunked_and_direct(stopword_density, "ΟΔΟΣ ΚΑΙ ΤΗΣ ΣΑΣ", "el") == (0.5, 0.5)


def test_stop_word_share_lower_cases_as_str_lower(native_backend):
    """"İ" lower-cases to two characters; capitals are lower-cased, lower case is kept (a long
    text: its distinct chunks are counted)."""
    text = " ".join(["The THE the İ i\u0307 Und und x"] * 500)
    assert len(text) >= ident.SHORT_TEXT
    assert PageWords(text).stopword_share(frozenset({"the", "i\u0307", "und"})) == 7 / 8


def stoplist_choices(htmls: list[str], languages: list[str]) -> list[tuple]:
    """The clean stage's stoplist choice of each page (Clean.choose_stoplist), and its counters."""
    stage = Clean(languages=languages)
    out = []
    for html in htmls:
        doc = Document(id="1", url="http://example.com/", html=html)
        page = Page(html, url=doc.url)
        if page.tree is None:
            out.append(("no tree",))
            continue
        kept = stage.choose_stoplist(doc, page)
        out.append((kept, doc.stoplist_lang, doc.lang, doc.drop_reason, dict(doc.meta), page.language,
                    page.stoplist, dict(page.meta)))
    return out + [dict(stage.stats.extra)]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_answers_counted_in_chunks_are_the_regexs(name, native_backend):
    html = PAGES[name]
    text = page_text(parse_html(html))
    assert chunked_and_direct(text_answers, text)[0] == chunked_and_direct(text_answers, text)[1]
    for languages in ([], ["en", "de"], ["es", "pt"], ["cs", "sk"]):
        chunked, direct = chunked_and_direct(stoplist_choices, [html], languages)
        assert chunked == direct, languages


def test_random_pages_counted_in_chunks_are_the_regexs(native_backend):
    rng = random.Random(7)
    htmls = [random_page(rng) for _ in range(150)]
    texts = [page_text(parse_html(html)) for html in htmls]
    chunked, direct = chunked_and_direct(lambda: [text_answers(t) for t in texts])
    for html, a, b in zip(htmls, chunked, direct):
        assert a == b, html[:200]


def test_dev_pages_counted_in_chunks_are_the_regexs(snippets_dir, snippets_gold, native_backend):
    from corpustool.encoding import decode

    files = sorted({e["file"] for e in snippets_gold.values()})
    assert len(files) > 100
    htmls = [decode((snippets_dir / "pages" / name).read_bytes(), None).text for name in files]

    def answers():
        out = []
        for html in htmls:
            words = PageWords(page_text(parse_html(html)))
            found = identify(words)
            out.append((found, guess_stoplist_language(words), no_stoplist_reason(words),
                        stopword_density(words, found.lang).hex() if has_stoplist(found.lang) else None))
        return out, stoplist_choices(htmls, ["auto"]), stoplist_choices(htmls, ["en", "de", "cs"])

    chunked, direct = chunked_and_direct(answers)
    for name, a, b in zip(files, chunked[0], direct[0]):
        assert a == b, name
    assert chunked[1:] == direct[1:]
    assert len({a[0].lang for a in chunked[0]}) >= 5    # the dev pages are in many languages


# -- the page text ------------------------------------------------------------------------------

COMMENTS_TEXT = ("Die Brückewird fertig Nach Angaben der Behörde werden die Kosten nicht höher sein als geplant. "
                 "Für die Anwohner bedeutet das, dass sie noch einige Zeit mit dem Lärm der Baustelle leben müssen, "
                 "aber die Umleitung wird verbessert.")


def test_page_text_of_odd_roots(native_backend):
    """The words of the text nodes below the root (a comment between two text nodes glues them:
    the parser merges them), the body when it has children; nothing of a comment or of no tree.
    (The compiled walk's string is the element walk's; the XPath of the Python backend has the
    same words in document order.)"""
    from lxml import etree

    tree = parse_html(PAGES["comments"])
    body = tree.find("body")
    for root, expected in ((body, COMMENTS_TEXT), (body[0], "Die Brückewird fertig"), (tree, COMMENTS_TEXT),
                           (etree.Comment("the comment"), ""), (None, "")):
        assert Counter(page_text(root).split()) == Counter(expected.split())
    # a tree built by hand: adjacent text nodes cannot come from the parser, but .text is read
    # as lxml reads it (the whole run)
    el = etree.Element("div")
    el.text = "Die"
    script = etree.SubElement(el, "script")
    script.text = "var the;"
    script.tail = "Stadt"
    assert page_text(el) == "Die Stadt"


def test_page_text_keeps_script_tails_and_drops_script_code(native_backend):
    text = page_text(parse_html(PAGES["script-tails"]))
    assert "und der Fluss" in text and "sind schön" in text and "leer" in text
    assert "var" not in text.split() and "color:" not in text.split()
