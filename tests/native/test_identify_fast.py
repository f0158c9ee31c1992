"""The compiled scans of the language guess give exactly the answers of the Python code.

``corpustool.language.identify`` uses three C loops of ``corpustool.native.text_scan`` when the
extension is built: :func:`chunk_words` (the word regex's words, count and letters of a
page's distinct chunks), :func:`stop_occurrences` (jusText's stop-word count) and
:func:`stop_word_scores` (the per-language sums of the stop words' weights). Each is compared
with a reference kept here (the regex, ``str.lower`` and the Python loop they replace) on
seeded random texts mixing scripts, digits, punctuation, soft hyphens, apostrophes, CJK,
combining marks, underscores and characters beyond the Basic Multilingual Plane, and on
every character of Unicode; the whole identification (every field of ``identify``'s answer,
``guess_stoplist_language``'s code and density to the last bit) is compared with the module's
pure-Python path on the same texts and, when ../shared/data/snippets is present, on every
development page.
"""
from __future__ import annotations

import operator
import random
from collections import Counter
from itertools import compress

import pytest

from corpustool.language import identify as ident
from corpustool.language.identify import PageWords, guess_stoplist_language, identify, no_stoplist_reason
from corpustool.language.stoplists import stoplist
from corpustool.native import backend

scan = pytest.importorskip("corpustool.native.text_scan")

# -- references: the Python code the C loops replace ------------------------------------------


def ref_chunk_words(counts):
    extra = letters = 0
    words = []
    for chunk, n in counts.items():
        if chunk.isalpha():
            letters += n * len(chunk)
            continue
        found = ident._WORD.findall(chunk)
        words += found
        extra += n * (len(found) - 1)
        letters += n * sum(map(len, found))
    return extra, letters, words


def ref_stop_occurrences(counts, stop):
    return sum(compress(counts.values(), map(stop.__contains__, map(str.lower, counts))))


def ref_scores(index, words):
    sums, counts = {}, {}
    for word in sorted(words):
        for i, weight in index[word]:
            sums[i] = sums.get(i, 0.0) + weight
            counts[i] = counts.get(i, 0) + 1
    return sums, counts


POOLS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "äöüßéèêçñÄÖÜÉøåæłśźżąęčřžšťďİıǅǈ",
    "0123456789٠١٢۳४५", ".,;:!?()[]{}\"'«»-–—/\\|@#$%^&*+=<>~`", "\u00ad\u200b\u200c\u200d", "'’'’", "_",
    "的一是不了人在有我他这中大来上个国到说们为", "あいうえおかきくけこアイウエオカキクケコｱｲ",
    "\u0301\u0308\u0327\u093e\u0947\u064e\u064f\u20dd", "\U00020000\U0002a6d6\U0001d400\U0001f600\U00010400\U000e0101",
    "абвгдежзийклмнопрстуфхцчшщыэюяАБВ", "αβγδεζηθικλμνξοπρστυφχψωΣ", "กขคงจฉชซ\u0e31\u0e34", "한국어입니다",
    "אבגדהוזח", "ნაცემ", "աբգդ", "ⅠⅡⅢ½²³ↁ〇", "नमस्ते", "ﬁﬀ", "\ud800\udfff",
]
WORDS = ["the", "and", "of", "der", "die", "und", "le", "la", "et", "el", "los", "je", "se", "na", "и", "в",
         "не", "που", "και", "的", "の", "は", "ที่", "는", "이", "it's", "l'homme", "Süd-Ost", "The", "THE",
         "Und", "A", "a", "I", "e", "ja", "av", "af", "og", "och", "på", "för", "jsou", "sú", "İstanbul", "ve",
         "bir", "Wer\u00adte", "don’t", "'the'", "(and)", "the,", "e-mail", "x_y", "a1b"]
SEPARATORS = [" ", " ", " ", "", "\n", "\u00a0", "\t", " , ", "\u3000", "\u2003"]


def random_text(rng: random.Random, length: int) -> str:
    parts = []
    for _ in range(length):
        r = rng.random()
        if r < 0.5:
            parts.append(rng.choice(WORDS))
        elif r < 0.85:
            pool = rng.choice(POOLS)
            parts.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 8))))
        else:
            parts.append("".join(rng.choice(rng.choice(POOLS)) for _ in range(rng.randint(1, 10))))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts)


def random_texts(n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        yield random_text(rng, rng.choice([0, 1, 3, 10, 50, 300, 1200]))


@pytest.fixture
def python_path(monkeypatch):
    """The module with its pure-Python code (the extension's functions switched off)."""
    def use_python():
        for name in ("_chunk_words", "_stop_occurrences", "_stop_word_scores"):
            monkeypatch.setattr(ident, name, None)
    return use_python


def test_extension_is_used():
    # (the comparisons below would compare Python with itself if the import failed silently)
    if backend.FORCED == "python":
        pytest.skip("the Python backend is forced (CORPUSTOOL_BACKEND=python)")
    assert ident._chunk_words is scan.chunk_words
    assert ident._stop_occurrences is scan.stop_occurrences
    assert ident._stop_word_scores is scan.stop_word_scores


def test_chunk_words_on_random_texts():
    marks = ident._mark_flags()
    for text in random_texts(1500, seed=1):
        counts = Counter(text.split())
        extra, letters, words = scan.chunk_words(counts, marks)
        ref_extra, ref_letters, ref_words = ref_chunk_words(counts)
        assert (extra, letters) == (ref_extra, ref_letters), text
        assert Counter(words) == Counter(ref_words), text


def test_chunk_words_on_every_character():
    # every code point between letters, after a letter with an apostrophe, alone and as a run
    marks = ident._mark_flags()
    for lo in range(0, 0x110000, 0x10000):
        chars = list(map(chr, range(lo, lo + 0x10000)))
        counts = Counter()
        for c in chars:
            counts[f"x{c}y"] += 1
            counts[f"a'{c}"] += 2
            counts[f"{c}’{c}{c}"] += 1
            counts[c] += 3
        extra, letters, words = scan.chunk_words(counts, marks)
        ref_extra, ref_letters, ref_words = ref_chunk_words(counts)
        assert (extra, letters) == (ref_extra, ref_letters), hex(lo)
        assert Counter(words) == Counter(ref_words), hex(lo)


def test_chunk_words_refuses_bad_arguments():
    with pytest.raises(ValueError):
        scan.chunk_words({"a": 1}, b"\x00" * 10)
    with pytest.raises(TypeError):
        scan.chunk_words(["a"], ident._mark_flags())
    with pytest.raises(TypeError):
        scan.chunk_words({b"a": 1}, ident._mark_flags())


def test_stop_occurrences_on_random_texts():
    stops = [stoplist(code) for code in ("en", "de", "tr", "ru", "el", "cs")]
    for text in random_texts(800, seed=2):
        counts = Counter(text.split())
        for stop in stops:
            assert scan.stop_occurrences(counts, stop) == ref_stop_occurrences(counts, stop), text
    # "İ" lower-cases to two characters; ASCII capitals are lower-cased, ASCII lower case is kept
    counts = Counter("The THE the İ i\u0307 Und und x".split())
    assert scan.stop_occurrences(counts, frozenset({"the", "i\u0307", "und"})) == 7


def test_stop_word_scores_on_random_word_sets():
    rng = random.Random(3)
    for cands in (ident.default_candidates(), ("de", "en"), ("cs", "sk", "pl")):
        model = ident._model(cands)
        keys = sorted(model.index)
        for size in (0, 1, 5, 39, 40, 41, 200, 1000):
            words = rng.sample(keys, min(size, len(keys)))
            sums, counts = scan.stop_word_scores(model.index, words, len(model.langs))
            ref_sums, ref_counts = ref_scores(model.index, words)
            assert counts == ref_counts
            # the same floats to the last bit
            assert {i: x.hex() for i, x in sums.items()} == {i: x.hex() for i, x in ref_sums.items()}


def _answers(text: str):
    words = PageWords(text)
    out = [identify(words), identify(text, ["de", "en", "fr"]), identify(text, ["cs", "sk"]),
           identify(text, ["ja", "zh", "en"]), identify(text, prior={"de": 0.8}),
           no_stoplist_reason(words, ["en"]), words.n_words, words.letters]
    for cands in (None, ["en", "de"], ["ru", "uk", "bg"]):
        code, density = guess_stoplist_language(PageWords(text), cands)
        out.append((code, density.hex()))
    return out


def test_identification_equals_python_path_on_random_texts(python_path):
    texts = list(random_texts(400, seed=4))
    rng = random.Random(5)
    # long texts of one language's words (the chunk path, not the short text's direct regex)
    for code in ("en", "de", "cs", "el", "tr"):
        words = sorted(stoplist(code))
        texts.append(" ".join(rng.choice(words) + rng.choice(["", ",", ".", "’s", "-x"]) for _ in range(2000)))
        texts.append(random_text(rng, 1500) + " " + texts[-1])
    compiled = [_answers(t) for t in texts]
    python_path()
    assert ident._chunk_words is None
    for text, answers in zip(texts, compiled):
        assert _answers(text) == answers, text[:200]


def test_dev_pages_equal_python_path(snippets_dir, python_path):
    from corpustool.encoding import decode
    from corpustool.extractors.base import html_bytes, parse_html

    texts = []
    for path in sorted((snippets_dir / "pages").glob("*.html")):
        html = decode(path.read_bytes(), None).text
        texts.append(ident.page_text(parse_html(html)))
    compiled = [_answers(t) for t in texts]
    python_path()
    mismatches = [i for i, (t, a) in enumerate(zip(texts, compiled)) if _answers(t) != a]
    assert not mismatches
    assert len(texts) > 100 and operator.countOf((a[0].method for a in compiled), "stopwords") > 100
