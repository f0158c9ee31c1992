"""What only the compiled feature matrix has (native/learned_features.pyx): its checks.

That it gives the Python twin's values is tests/native/test_backend_parity.py's part."""
from __future__ import annotations

import numpy as np
import pytest

from corpustool.document import Paragraph
from corpustool.extractors import justext_learned as jl
from corpustool.native import backend

pytestmark = pytest.mark.skipif(not backend.features.compiled, reason=backend.features.reason)

PARAS = [Paragraph("A first line of text.", tag="p", dom_path="html.body.p", xpath="/html[1]/body[1]/p[1]",
                   cf_class="good", features={"words": 5}),
         Paragraph("Home", tag="a", dom_path="html.body.a", xpath="/html[1]/body[1]/a[1]", cls="bad")]


def fill(X, ids=2, chains=2):
    return jl._COLUMNS.fill(PARAS, {}, [], [()] * chains, set(), 0.0, 0.0, 0.0, 0.0, X,
                            np.zeros(ids, dtype=np.int64), np.zeros(ids, dtype=np.int64), np.zeros(ids))


def test_a_matrix_of_another_shape_is_refused():
    for shape in ((1, len(jl.FEATURES)), (3, len(jl.FEATURES)), (2, len(jl.FEATURES) - 1)):
        with pytest.raises(ValueError, match="len\\(paras\\) x FEATURES"):
            fill(np.zeros(shape))


def test_structure_arrays_and_chains_of_another_length_are_refused():
    X = np.zeros((2, len(jl.FEATURES)))
    with pytest.raises(ValueError, match="one id and one length per paragraph"):
        fill(X, ids=1)
    with pytest.raises(ValueError, match="one evidence chain per paragraph"):
        fill(X, chains=1)
    assert fill(X) == -1 and X[0, jl._INDEX["log_chars"]] > 0


def test_a_layout_whose_blocks_are_split_is_refused():
    PageColumns = backend.features.get("PageColumns")
    args = (jl.NEIGHBOUR_KEYS, jl.KINDS, jl._TAG_CODE, jl._CF_CODE, jl._REASON_CODE, ".", jl.line_verdict,
            jl._PRICE.search, jl._WORDS.findall)
    swapped = list(jl.FEATURES)
    a, b = swapped.index("in_nav"), swapped.index("in_footer")
    swapped[a], swapped[b] = swapped[b], swapped[a]
    with pytest.raises(ValueError, match="evidence columns"):
        PageColumns(swapped, *args)
    swapped = list(jl.FEATURES)
    a, b = swapped.index("prev_log_words"), swapped.index("prev_link_density")
    swapped[a], swapped[b] = swapped[b], swapped[a]
    with pytest.raises(ValueError, match="neighbour columns"):
        PageColumns(swapped, *args)
    with pytest.raises(KeyError):
        PageColumns(jl.FEATURES[:-1], *args)


def test_the_price_gate_never_hides_a_price_the_pattern_finds():
    # (the compiled matrix searches for a price only on lines the gate passes: a line it
    # refuses must be one the pattern cannot match, in any case folding re.IGNORECASE does)
    import random

    price_candidate = backend.features.get("price_candidate")
    rnd = random.Random(7)
    alphabet = list("0123456789 .,-$€£¥₹uUsSdDeErRgGbBpPcChHfFzZkKlLnNčČłŁ") + ["\u017f", "\u212a"]
    lines = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 10))) for _ in range(100_000)]
    lines += ["12 u\u017fd", "12 \u212a\u010d", "12 KČ", "ZŁ 5", "5zł", "USD5", "EUR 10", "10 Chf", "10czk", "Pln 4",
              "5$", "£3", "¥ 7", "₹9", "4€"]
    priced = [t for t in lines if jl._PRICE.search(t)]
    assert len(priced) > 1000
    assert all(price_candidate(t) for t in priced)
    # and it refuses what holds no currency sign or code, whatever the digits
    assert not price_candidate("Posted 12 May 2020") and not price_candidate("1,299.00")


def test_the_first_answer_is_line_verdicts_answer():
    # (the compiled matrix answers most lines itself, without calling line_verdict: a line no
    # keyword pattern can match that is no date candidate; on every line its verdict must be
    # line_verdict's, at the limits of 80, 200 and 400 characters and 5 words, with digits of
    # other scripts and every kind of space, and for headings)
    import random

    from corpustool.extractors.template_lines import FIRST_ANSWER, line_verdict, lowered_verdict

    asked = []

    def counted(*args):
        asked.append(args)
        return line_verdict(*args)

    def counted_lowered(text, low, gate, heading, keep_meta):
        # (the lines under 400 characters it does not answer: with the line lower-cased and its mask)
        assert low == text.lower() and gate == FIRST_ANSWER[0](low)
        asked.append((text, heading, keep_meta))
        return lowered_verdict(text, low, gate, heading, keep_meta)

    columns = backend.features.get("PageColumns")(
        jl.FEATURES, jl.NEIGHBOUR_KEYS, jl.KINDS, jl._TAG_CODE, jl._CF_CODE, jl._REASON_CODE,
        "".join(jl._SENTENCE_END), counted, jl._PRICE.search, jl._WORDS.findall, jl.SATURATED,
        jl.SATURATION, FIRST_ANSWER[:-1] + (counted_lowered,))
    rnd = random.Random(11)
    words = ["the", "Home", "share", "Share this", "posted", "12", "May", "2020", "\u0663\u0664", "(c)", "\xa9",
             "{{x}}", "Read more", "Advertisement", "Foto:", "Reuters", "\u0130stanbul", "ΣΟΦΊΑ", "&copy;",
             "Menu", "Login", "3.", "Uhr", "Jan", "posted on", "comments", "Cookies", "Subscribe", "a" * 50]
    plain = ["river", "City", "data", "Haus", "über", "of", "a", "Straße", "42", "٣", "été", "Ünal", "go"]
    spaces = [" ", "  ", "\u00a0", "\u3000", "\t", "\n", "\u2003", "\x1c", ""]
    lines = []
    for _ in range(20_000):
        k = rnd.choice([1, 2, 4, 5, 6, 7, 12, 30, 90])
        lines.append("".join(rnd.choice(words if rnd.random() < 0.1 else plain) + rnd.choice(spaces)
                             for _ in range(k)))
    lines += ["x" * n for n in (79, 80, 81, 199, 200, 201, 399, 400, 401)]
    lines += [("7 " + "y" * (n - 2)) for n in (79, 80, 81, 199, 200, 201, 399, 400)]
    lines += ["", " ", "a b c d e", "a b c d e ", " a b c d e f", "a\u00a0b\u00a0c\u00a0d\u00a0e\u00a0f", "12 May 2020"]
    queries = {(t, heading) for t in lines for heading in (False, True)}
    for t, heading in queries:
        assert columns.verdict_of(t, heading) == tuple(line_verdict(t, heading, False)), (t, heading)
    # (and it answers many of them itself: line_verdict is asked the rest, once each)
    assert len(asked) == len(set(asked)) and len(queries) // 4 < len(queries) - len(asked)


def random_page(rng) -> list[Paragraph]:
    """Paragraphs as jusText leaves them: short and long texts, headings, repeated texts (a quote,
    a label), jusText's context-free classes."""
    texts = ["Home", "Reply", "Share this", "A heading of the page", "x" * 30, "y" * 29,
             "A paragraph long enough to be kept as text, with words. " * 3, "Posted on 12 May 2020"]
    page = []
    for _ in range(rng.randint(1, 60)):
        text = rng.choice(texts) if rng.random() < 0.5 else " ".join("word" for _ in range(rng.randint(1, 80)))
        page.append(Paragraph(text, cf_class=rng.choice(["good", "bad", "short", "neargood"]),
                              heading=rng.random() < 0.15, tag="p"))
    return page


def test_the_compiled_decision_is_decide_classes_py():
    # every phase at its limits: probabilities on the thresholds, the guard (nothing good), drops,
    # headings near and far from good text, repeats of 29 and 30 characters, each repeat setting
    import random

    assert jl._decide_classes is not None
    rng = random.Random(3)
    probs = [0.0, 0.2, 0.45 - 1e-12, jl.BAD_BELOW, 0.5, jl.GOOD_AT - 1e-12, jl.GOOD_AT, 0.9, 1.0]
    guarded = kept_heading = repeated = 0
    for k in range(3000):
        paras = random_page(rng)
        n = len(paras)
        scale = 0.5 if k % 5 == 0 else 1.0    # every fifth page: nothing reaches good, the guard decides
        prob = np.array([scale * (rng.choice(probs) if rng.random() < 0.7 else rng.random()) for _ in range(n)])
        drop = [rng.random() < 0.3 for _ in range(n)] if k % 3 == 0 else None
        inp = jl.PageInput(paras, {}, [], [()] * n, frozenset(), None, drop, rng.choice([0, 20, 150, 10**9]))
        for repeats in (None, False, True):
            compiled = jl.decide_classes(prob, inp, repeats)
            assert compiled == jl.decide_classes_py(prob, inp, repeats), (k, repeats)
        cf, cls = compiled
        revised = jl.revise(cf, [p.heading for p in paras], [p.text for p in paras], inp.max_heading_distance)
        guarded += "good" not in [c if not (drop and drop[i]) else "bad" for i, c in enumerate(revised)]
        kept_heading += any(p.heading and c == "good" and f != "good" for p, c, f in zip(paras, cls, cf))
        repeated += jl.REPEATED in jl.decide_classes(prob, inp, True)[1]
    assert guarded > 300 and kept_heading > 300 and repeated > 300


def test_the_compiled_decision_refuses_arrays_of_another_length():
    paras = [Paragraph("One", cf_class="short"), Paragraph("Two", cf_class="good")]
    decide = jl._decide_classes
    args = (jl.DROP_REPEATS, jl.GOOD_AT, jl.BAD_BELOW, jl.FALLBACK_SHARE, jl.REPEAT_MIN_CHARS, jl.REPEATED)
    with pytest.raises(ValueError, match="one probability a paragraph"):
        decide(np.array([0.9]), paras, None, 150, *args)
    with pytest.raises(ValueError, match="one drop flag a paragraph"):
        decide(np.array([0.9, 0.1]), paras, [True], 150, *args)
    with pytest.raises(ValueError, match="a page without paragraphs"):
        decide(np.zeros(0), [], None, 150, *args)
    assert decide(np.array([0.9, 0.1]), paras, None, 150, *args) == (["good", "bad"], ["good", "bad"])


class PlainParagraph(Paragraph):
    """A subclass with an instance dictionary: its fields are attributes, not the class's slots."""


class ShoutedParagraph(Paragraph):
    """A slotted subclass whose ``text`` is a property: the slot keeps the text as given, an
    attribute read finds the property and gets it upper-cased."""

    __slots__ = ()

    @property
    def text(self) -> str:
        return Paragraph.text.__get__(self).upper()

    @text.setter
    def text(self, value: str) -> None:
        Paragraph.text.__set__(self, value)


def test_the_matrix_reads_a_paragraph_as_its_attributes_read():
    # the compiled matrix reads a Paragraph's slots by offset; any other class (a subclass, one
    # overriding a field, a page mixing classes) must give what reading its attributes gives
    import random

    rng = random.Random(5)
    for k in range(40):
        page = random_page(rng)
        for i, p in enumerate(page):
            p.tag = rng.choice(["p", "h2", "li", "a"])
            p.xpath = f"/html[1]/body[1]/div[{rng.randint(1, 3)}]/{p.tag}[{i + 1}]"
            p.dom_path = "html.body.div." + p.tag
            p.cls = rng.choice(["good", "bad"])
            p.features = {"words": len(p.text.split()), "link_density": rng.random(), "stopwords": 2,
                          "stopword_density": rng.random()}
        chains = [("/html[1]/body[1]",)] * len(page)
        args = ({"/html[1]/body[1]": "main"}, [], chains, frozenset(), "A heading of the page")

        def copied(cls, p):
            return cls(p.text, cls=p.cls, cf_class=p.cf_class, heading=p.heading, tag=p.tag, dom_path=p.dom_path,
                       xpath=p.xpath, features=p.features)

        def same(a, b):
            (Xa, sa), (Xb, sb) = jl.page_columns(a, *args), jl.page_columns(b, *args)
            return np.array_equal(Xa, Xb) and all(np.array_equal(u, v) for u, v in zip(sa, sb))

        assert same(page, [copied(PlainParagraph, p) for p in page]), k
        # (a page whose first paragraph is a Paragraph: the others of another class are not read by its slots)
        shouted = [p if i % 2 == 0 else copied(ShoutedParagraph, p) for i, p in enumerate(page)]
        as_read = [copied(Paragraph, p) for p in shouted]      # (what their attributes say, in plain slots)
        assert [p.text for p in as_read] == [p.text if i % 2 == 0 else p.text.upper() for i, p in enumerate(page)]
        assert same(shouted, as_read), k
        assert len(page) < 2 or any(p.text != p.text.upper() for p in page[1::2]) is not same(shouted, page), k


def test_an_empty_slot_raises_as_reading_the_attribute_does():
    page = [Paragraph("A first line of text.", tag="p", xpath="/html[1]/body[1]/p[1]"),
            Paragraph("Home", tag="a", xpath="/html[1]/body[1]/a[1]")]
    del page[1].dom_path
    with pytest.raises(AttributeError, match="dom_path"):
        jl.page_columns(page, {}, [], [()] * 2, frozenset(), None)


def test_features_of_any_mapping_are_read_as_a_dict():
    from types import MappingProxyType

    page = [Paragraph("A first line of text, long enough.", tag="p", xpath="/html[1]/body[1]/p[1]",
                      features={"words": 7, "link_density": 0.25, "stopwords": 3, "stopword_density": 0.4}),
            Paragraph("Home", tag="a", xpath="/html[1]/body[1]/a[1]", features={"words": 1, "link_density": 1.0})]
    args = ({}, [], [()] * 2, frozenset(), None)
    X = jl.page_columns(page, *args)[0]
    for p in page:
        p.features = MappingProxyType(dict(p.features))
    assert np.array_equal(jl.page_columns(page, *args)[0], X)
    assert X[0, jl._INDEX["link_density"]] == 0.25 and X[1, jl._INDEX["link_density"]] == 1.0
