"""The entry points the fuzz harness (scripts/fuzz/fuzz_native.py) drives, without atheris.

``run(data)``: the first byte of ``data`` picks the entry point, the rest is the page or text.
tests/native/test_fuzz_corpus.py replays tests/native/fuzz_corpus/ through it, each input in a fresh child
process; the harness imports it under atheris's coverage instrumentation. The entry points:

* ``extract_plus``: ``corpustool.extract_text`` with the default extractor (justext-plus: the SAX
  parse into the compiled walk's arena, the evidence walk, the compiled decide), one language;
  then justext-learned's feature matrix of the page (``native/learned_features.pyx``), the same
  bits as its Python twin's, and its compiled decision's classes, the same as its twin's;
* ``extract_auto``: the same with ``language="auto"`` (the parse kept for the language guess,
  ``SaxPage``; the compiled language-guess scans);
* ``extract_engine``: the classic ``justext`` engine (``extract_html``: the engine's walk);
* ``raw_bytes``: the bytes straight to libxml2 with no decoding (invalid UTF-8, NUL bytes):
  ``extract_evidence_html`` then ``PageTree.record_families`` and the compiled decide, ``extract_html``, ``sax_page``'s page text
  and walk, ``sax_outline``, ``sax_build``;
* ``lxml_tree``: the compiled walk over lxml's own tree (``segment``, ``features``, ``extract``,
  ``page_text``, justext-plus's ``extract_evidence`` and decide);
* ``text_scans``: ``native/text_scan.pyx`` on the input as text (``utf8_bytes``,
  ``first_control``, ``has_control_bytes``, the keyword gate, the language guess's
  ``chunk_words``/``stop_occurrences``/``stop_word_scores`` through ``identify``, the quality
  marks' ``word_measures``, the page declarations' ``find_ascii``; each against its Python twin);
* ``text_scans`` also runs ``tree_arrays``: ``native/tree_scores.pyx`` (justext-learned's trees, and both stages
  with their context columns: ``two_stages``) on arrays made from the
  input, valid or not (indices out of range, cycles, mismatched lengths): either a ValueError or the
  sums of walking the trees node by node in Python.
"""
from __future__ import annotations

import itertools

import corpustool
from corpustool import quality
from corpustool.document import BAD, GOOD, Paragraph
from corpustool.encoding import strip_controls
from corpustool.extractors import justext_engine
from corpustool.extractors import justext_plus as jp
from corpustool.extractors import justext_plus_structure as structure
from corpustool.extractors import template_lines
from corpustool.extractors.base import Page, parse_html
from corpustool.extractors.registry import get_extractor
from corpustool.language import identify
from corpustool.language.stoplists import stoplist

try:
    from corpustool.native import justext_walk, text_scan
except ImportError:          # not built: the extract_* targets still run the Python paths
    justext_walk = text_scan = None
try:
    from corpustool.native import tree_scores
except ImportError:
    tree_scores = None

EN = stoplist("en")
PLUS = get_extractor("justext-plus")
ENGINE = get_extractor("justext")
LEARNED = get_extractor("justext-learned", model="none")
LANGUAGES = ("en", "de", "cs", "es")


def extract_plus(data: bytes) -> None:
    corpustool.extract_text(data, language=LANGUAGES[len(data) % len(LANGUAGES)])
    learned_columns(data)      # (inside this target: a new target would move the corpus's inputs)


def learned_columns(data: bytes) -> None:
    """justext-learned's feature matrix of the page: the compiled PageColumns (learned_features.pyx)
    and the Python page_features_py give the same bits."""
    import numpy as np

    from corpustool.extractors import justext_learned as jl

    if jl._COLUMNS is None:
        return
    found: list = []
    original = jl.PageInput.columns
    jl.PageInput.columns = lambda inp: (found.append(inp), original(inp))[1]
    try:
        LEARNED.extract(Page(data.decode("utf-8", "replace"), stoplist=EN))
    finally:
        jl.PageInput.columns = original
    for inp in found:
        args = (inp.paras, inp.kinds, inp.hints, inp.chains, inp.types, inp.title, inp.posts)
        X, struct = jl.page_columns(*args)
        assert X.tobytes() == jl.page_features_py(*args).tobytes()
        assert all(a.tobytes() == b.tobytes() for a, b in zip(struct, jl.page_struct(inp.paras)))
        if inp.paras and jl._decide_classes is not None:
            # the compiled decision (learned_features.decide_classes) and its Python twin, on
            # probabilities and drops read from the input's bytes
            n = len(inp.paras)
            prob = np.array([data[i % len(data)] / 255 for i in range(n)]) if data else np.zeros(n)
            for drop in (None, [bool(data[i % len(data)] & 1) if data else False for i in range(n)]):
                for repeats in (None, False):
                    with_drop = inp.with_drop(drop)
                    assert jl.decide_classes(prob, with_drop, repeats) == jl.decide_classes_py(prob, with_drop, repeats)


def extract_auto(data: bytes) -> None:
    corpustool.extract_text(data, language="auto")


def extract_engine(data: bytes) -> None:
    corpustool.extract_text(data, language="en", extractor="justext")


def raw_bytes(data: bytes) -> None:
    if justext_walk is None or not justext_engine.WALK.has_parse:
        return
    page = Page(data.decode("utf-8", "replace"), stoplist=EN)
    params = ENGINE.params_for(page)
    found = justext_engine.extract_evidence_html(data, bool(len(data) & 1), EN, params, Paragraph,
                                                 justext_engine._FAST_PARAGRAPH_INIT, GOOD, BAD, jp._evidence_rules(),
                                                 keep_blank_separators=jp.KEEP_BLANK_SEPARATORS)
    if found is not None and found[1] is not None:
        # the items rule's compiled lists of records, on every page (the extraction asks only on
        # pages whose lists outweigh the kept text), with low thresholds to make many families
        paras, tree = found[0], found[1]
        tree.record_families([p.features.get("words", 0) for p in paras], [i % 3 != 2 for i in range(len(paras))],
                             structure.SELF_RECORDS, 2, 1.0, 150.0, 0.0, 0.5)
    if found is not None and found[1] is not None and found[0]:
        # the compiled decide() on the walk's PageTree
        PLUS._decide(found[0], found[1], justext_engine.keep_title(page, found[2]), page, data)
    justext_engine.extract_html(data, EN, params, Paragraph, justext_engine._FAST_PARAGRAPH_INIT, GOOD, BAD,
                                keep_blank_separators=bool(len(data) & 2))
    kept = justext_engine.sax_page(data)
    if kept is not None:
        kept.page_text()
        kept.extract_evidence(EN, params, Paragraph, justext_engine._FAST_PARAGRAPH_INIT, GOOD, BAD, jp._evidence_rules())
    justext_walk.sax_outline(data, bool(len(data) & 4))
    justext_walk.sax_build(data)


def lxml_tree(data: bytes) -> None:
    if justext_walk is None:
        return
    html = data.decode("utf-8", "replace")
    root = parse_html(html)
    if root is None:
        return
    params = ENGINE.params_for(Page(html))
    justext_walk.segment(root)
    justext_walk.features(root, EN)
    justext_walk.extract(root, EN, params, Paragraph, justext_engine._FAST_PARAGRAPH_INIT, GOOD, BAD)
    identify.page_text(root)
    PLUS.extract(Page(html, stoplist=EN, tree=root))   # extract_evidence + decide on lxml's tree


def text_scans(data: bytes) -> None:
    text = data.decode("utf-8", "surrogateescape")   # lone surrogates too (utf8_bytes' surrogatepass)
    if text_scan is not None:
        text_scan.utf8_bytes(text)
        text_scan.first_control(text)
        text_scan.has_control_bytes(data)
        text_scan.schema_type_names(data, (data[:7], b"QAPage", data[-3:]), 512)
        for needle in ("ld+json", "<time", "itemtype", text[:3] if text[:3].isascii() and text[:3] else "a"):
            start = len(data) % 7
            assert text_scan.find_ascii(text, needle, start) == text.find(needle, start)
        lower = text.lower()
        stop = frozenset(lower.split()[:5])
        # the quality marks' counts, and the same as the Python twin's
        assert text_scan.word_measures(lower, EN, True) == quality._word_measures_python(lower, EN, True)
        assert (text_scan.word_measures(lower, stop, bool(len(data) & 1))
                == quality._word_measures_python(lower, stop, bool(len(data) & 1)))
    strip_controls(text)
    for line in text.splitlines()[:50]:
        template_lines.GATE.mask(line.lower())
    identify.identify(text)
    identify.guess_stoplist_language(text)
    tree_arrays(data)          # (inside this target: a new target would move the corpus's inputs)


def tree_arrays(data: bytes) -> None:
    """Trees from the input's bytes: sizes from the first bytes, the arrays' values from the rest
    (signed, so children and roots fall inside and outside their arrays)."""
    import numpy as np

    if tree_scores is None or len(data) < 4:
        return
    # up to 20 rows: full blocks of eight rows and a shorter last one
    n_rows, n_feat, n_nodes, n_leaves = (1 + data[0] % 20, 1 + data[1] % 4, data[2] % 9, 1 + data[3] % 9)
    body = np.frombuffer(data[4:] + bytes(64), dtype=np.int8).astype(np.int32)
    take = itertools.count()     # (indices wrap around the body)

    def ints(n: int) -> np.ndarray:
        return np.array([body[next(take) % len(body)] for _ in range(n)], dtype=np.int32)

    X = (ints(n_rows * n_feat).astype(np.float64) / 7.0).reshape(n_rows, n_feat)
    threshold = ints(n_nodes).astype(np.float64) / 5.0
    leaf = ints(n_leaves).astype(np.float64)
    if data[2] & 16:
        # any values: indices out of range, cycles (the checks must refuse them)
        feature, left, right, roots = ints(n_nodes) % (n_feat + 2), ints(n_nodes), ints(n_nodes), ints(2)
    else:
        # a well-formed model: children after their node or leaves, so no cycle
        def child(j: int, v: int) -> int:
            return j + 1 + v % (n_nodes - j - 1) if v & 1 and j + 1 < n_nodes else -1 - v % n_leaves
        feature = ints(n_nodes) % n_feat
        left = np.array([child(j, int(v)) for j, v in enumerate(ints(n_nodes))], dtype=np.int32)
        right = np.array([child(j, int(v)) for j, v in enumerate(ints(n_nodes))], dtype=np.int32)
        roots = np.array([int(v) % n_nodes if n_nodes and v & 1 else -1 - int(v) % n_leaves
                          for v in ints(1 + data[0] % 3)], dtype=np.int32)
    out = np.zeros(n_rows if data[1] % 11 else n_rows + 1)
    width = n_feat if data[3] % 13 else n_feat + 1        # sometimes X is wider than the model's features
    try:
        trees = tree_scores.CompleteTrees(feature, threshold, left, right, leaf, roots, n_feat)
        trees.scores(np.ascontiguousarray(np.hstack([X, np.zeros((n_rows, width - n_feat))])), 0.5, out)
    except ValueError:
        return
    # a model the checks let through: the same scores as walking the trees in Python
    for i in range(n_rows):
        s = 0.5
        for root in roots:
            node, steps = int(root), 0
            while node >= 0:
                node = int(left[node] if X[i, feature[node]] <= threshold[node] else right[node])
                steps += 1
                assert steps <= n_nodes
            s += leaf[~node]
        assert out[i] == s
    two_stages(trees, feature, threshold, left, right, leaf, roots, n_feat, X, ints)


def two_stages(trees, feature, threshold, left, right, leaf, roots, n_feat, X, ints) -> None:
    """tree_scores.two_stages with the input's trees as both stages (stage 2 ten columns wider),
    DOM path and parent ids from the input (some outside 0..n-1: refused): the numpy path's
    probabilities (stage 1, justext_learned.context_features, stage 2)."""
    import numpy as np

    from corpustool.extractors.justext_learned import context_features

    n_rows = X.shape[0]
    wide = tree_scores.CompleteTrees(feature, threshold, left, right, leaf, roots, n_feat + 10)
    path = (ints(n_rows) % (n_rows + 1)).astype(np.int64)
    parent = (ints(n_rows) % n_rows).astype(np.int64)
    chars = (ints(n_rows) % 50).astype(np.float64)
    Z = np.zeros((n_rows, n_feat + 10))
    Z[:, :n_feat] = X
    prob = np.empty(n_rows)
    try:
        tree_scores.two_stages(trees, 0.5, wide, -0.25, Z, path, parent, chars, prob)
    except ValueError:
        assert (path >= n_rows).any()
        return
    first = np.empty(n_rows)
    trees.scores(X, 0.5, first)
    first = 1.0 / (1.0 + np.exp(-first))
    second = np.empty(n_rows)
    wide.scores(np.hstack([X, context_features(first, (path, parent, chars))]), -0.25, second)
    assert np.allclose(prob, 1.0 / (1.0 + np.exp(-second)), rtol=0, atol=1e-12)


TARGETS = (extract_plus, extract_auto, extract_engine, raw_bytes, lxml_tree, text_scans)


def run(data: bytes) -> None:
    """One fuzz input: its first byte picks the target, the rest is the target's input."""
    if not data:
        return
    TARGETS[data[0] % len(TARGETS)](data[1:])


