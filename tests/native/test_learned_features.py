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

    from corpustool.extractors.template_lines import FIRST_ANSWER, line_verdict

    asked = []

    def counted(*args):
        asked.append(args)
        return line_verdict(*args)

    columns = backend.features.get("PageColumns")(
        jl.FEATURES, jl.NEIGHBOUR_KEYS, jl.KINDS, jl._TAG_CODE, jl._CF_CODE, jl._REASON_CODE,
        "".join(jl._SENTENCE_END), counted, jl._PRICE.search, jl._WORDS.findall, jl.SATURATED,
        jl.SATURATION, FIRST_ANSWER)
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
