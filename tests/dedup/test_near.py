"""Near-duplicate documents with Broder's shingling (seed 003, Sect. 3.2.1, Eq. 3.1)."""
from __future__ import annotations

import copy
import json
import math
import random
import subprocess
import sys

import numpy as np
import pytest

from corpustool.cli import main as cli_main
from corpustool.dedup.near import NearDuplicates
from corpustool.dedup.shingling import (Sketcher, acceptance_probability, binomial_tail, choose_params,
                                        estimate_resemblance, resemblance, shingle_hashes, shingle_hashes_batch,
                                        token_hashes, word_tokens)
from corpustool.document import BAD, Document, Paragraph
from corpustool.errors import OptionError
from tests.support.paths import SCRIPTS

_RNG = random.Random(11)
VOCAB = sorted({"".join(_RNG.choice("abcdefghijklmnoprstuvz") for _ in range(_RNG.randint(3, 9))) for _ in range(4000)})


def words(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(VOCAB) for _ in range(n)]


def edited(ws: list[str], n_changes: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = list(ws)
    for i in rng.sample(range(len(out)), n_changes):
        out[i] = rng.choice(VOCAB)
    return out


def doc(doc_id: str, ws: list[str], url: str | None = None) -> Document:
    half = len(ws) // 2
    return Document(id=doc_id, url=url or f"http://x.test/{doc_id}",
                    paragraphs=[Paragraph(" ".join(ws[:half])), Paragraph(" ".join(ws[half:]))])


def corpus() -> list[Document]:
    """Originals, lightly edited copies (resemblance ~0.9), heavily edited ones (~0.3)."""
    docs = []
    for i in range(40):
        ws = words(300, i)
        docs.append(doc(f"o{i}", ws))
        if i % 4 == 0:
            docs.append(doc(f"near{i}", edited(ws, 3, 100 + i)))
        if i % 5 == 0:
            docs.append(doc(f"far{i}", edited(ws, 60, 200 + i)))
    return docs


# -- shingles and sketches -------------------------------------------------------

def test_word_tokens_skip_punctuation_lowercase_and_bad_paragraphs():
    d = Document(id="a", paragraphs=[Paragraph("Hello, World! It's 2024."), Paragraph("menu item", cls=BAD)])
    assert word_tokens(d.good_paragraphs()) == ["hello", "world", "it's", "2024"]
    # tokens given in the input are used as they are, but never hold whitespace or nothing
    given = Paragraph("ignored")
    given.tokens = ["New York", "", "_x", "Ünïcode", "!", "a\u00a0b"]
    assert word_tokens([given]) == ["new", "york", "ünïcode", "a", "b"]
    sketch, _ = NearDuplicates(threshold=0.8).fingerprint(Document(id="g", paragraphs=[given]))
    assert sketch.size == NearDuplicates(threshold=0.8).params.t


def test_token_hashes_do_not_depend_on_context_and_separate_tokens():
    a = token_hashes(["x", "hello", "y"])
    b = token_hashes(["hello"])
    assert a[1] == b[0]
    many = ["".join(random.Random(i).choice("abcäöü日本") for _ in range(1 + i % 12)) for i in range(5000)]
    distinct = sorted(set(many))
    assert len(set(token_hashes(distinct).tolist())) == len(distinct)
    assert token_hashes(["\x00a"])[0] != token_hashes(["a"])[0]


def test_shingles_are_word_ngrams():
    ws = "a b c d e f g".split()
    assert shingle_hashes(ws, 3).size == 5
    twice = shingle_hashes(ws + ws, 7)
    assert twice.size == 8 and twice[0] == twice[7] and len(set(twice.tolist())) == 7
    assert shingle_hashes(["a", "b"], 5).size == 1                 # shorter than n: one shingle
    assert shingle_hashes([], 5).size == 0
    # the same n-gram anywhere hashes the same; different order does not
    x = shingle_hashes("p q r s".split(), 3).tolist()
    y = shingle_hashes("z q r s".split(), 3).tolist()
    assert x[1] == y[1] and x[0] != y[0]
    with pytest.raises(OptionError):
        shingle_hashes(ws, 0)


def test_sketch_estimates_resemblance_without_bias():
    sk = Sketcher(256, seed=3)
    rng = np.random.default_rng(5)
    errors = []
    for target in (0.3, 0.5, 0.8, 0.95):
        for _ in range(40):
            n = int(rng.integers(100, 1500))
            common = int(round(n * 2 * target / (1 + target)))
            u = rng.integers(0, 2 ** 63, size=2 * n - common, dtype=np.uint64)
            a, b = u[:n], u[n - common:]
            errors.append(estimate_resemblance(sk.sketch(a), sk.sketch(b)) - resemblance(a, b))
    errors = np.array(errors)
    assert abs(errors.mean()) < 0.01
    assert errors.std() < 0.04            # binomial sd at t=256 is at most 0.031


def test_sketch_properties():
    sk = Sketcher(64)
    x = shingle_hashes(words(200, 1), 5)
    s1 = sk.sketch(x)
    assert s1.shape == (64,) and s1.dtype == np.uint32
    assert np.array_equal(s1, sk.sketch(x[::-1]))                     # a set: order does not matter
    assert np.array_equal(s1, sk.sketch(np.concatenate((x, x))))      # nor repetition
    assert np.array_equal(s1, Sketcher(64).sketch(x))                 # seeded: deterministic
    assert not np.array_equal(s1, Sketcher(64, seed=9).sketch(x))
    assert estimate_resemblance(s1, sk.sketch(shingle_hashes(words(200, 2), 5))) < 0.1
    assert sk.sketch(np.empty(0, dtype=np.uint64)).size == 0
    # a huge document is sketched in blocks with the same result
    big = np.random.default_rng(1).integers(0, 2 ** 63, size=150000, dtype=np.uint64)
    assert np.array_equal(Sketcher(64).sketch(big), np.minimum(Sketcher(64).sketch(big[:20000]),
                                                               Sketcher(64).sketch(big[20000:])))
    # ... also between small ones in a batch
    small = x[:50]
    rows = Sketcher(64).sketch_batch(np.concatenate((small, big, small)),
                                     np.array([0, 50, 150050, 150100]))
    assert np.array_equal(rows[1], Sketcher(64).sketch(big)) and np.array_equal(rows[0], rows[2])
    assert np.array_equal(rows[0], Sketcher(64).sketch(small))


def test_batch_fingerprints_equal_single_ones():
    lists = [words(300, 1), [], ["one"], ["a", "b", "c"], words(40, 2), words(5, 3), words(1200, 4)]
    shingles, offsets = shingle_hashes_batch(lists, 5)
    for i, toks in enumerate(lists):
        assert np.array_equal(shingles[offsets[i]:offsets[i + 1]], shingle_hashes(toks, 5))
    stage = NearDuplicates(threshold=0.8)
    sketches, features, valid = stage.fingerprint_batch(lists)
    assert valid.tolist() == [True, False, True, True, True, True, True]
    sk = Sketcher(stage.params.t, stage.params.seed)
    for i, toks in enumerate(lists):
        if toks:
            # the direct formulation: (shingles × t) products, minimum per permutation
            hi = (shingle_hashes(toks, 5) >> np.uint64(32)).astype(np.uint32) | np.uint32(1)
            assert np.array_equal(sketches[i], np.multiply.outer(hi, sk._mult).min(axis=0))
            assert np.array_equal(features[i], sk.super_shingles(sketches[i], stage.params.k, stage.params.s))


def test_super_shingles():
    sk = Sketcher(60)
    a = sk.sketch(shingle_hashes(words(300, 1), 5))
    ss = sk.super_shingles(a, 10, 6)
    assert ss.shape == (10,) and ss.dtype == np.uint64 and len(set(ss.tolist())) == 10
    b = a.copy()
    b[7] ^= 1                                       # one value differs: only its group (1) changes
    diff = sk.super_shingles(b, 10, 6) != ss
    assert diff.tolist() == [i == 1 for i in range(10)]
    # equal groups at different positions are different super-shingles
    c = np.tile(a[:6], 10)
    assert len(set(sk.super_shingles(c, 10, 6).tolist())) == 10
    with pytest.raises(OptionError):
        sk.super_shingles(a, 11, 6)


# -- Eq. 3.1 and the parameters ----------------------------------------------------

def test_eq_3_1_against_hand_computed_values():
    # k=1, s=1, r=1: the probability is the resemblance itself
    assert acceptance_probability(1, 1, 1, 0.37) == pytest.approx(0.37)
    # k=2, s=2, r=1, ρ=0.5: q = 0.25, P = 1 - 0.75^2 = 0.4375
    assert acceptance_probability(2, 2, 1, 0.5) == pytest.approx(0.4375)
    # k=3, s=2, r=2, ρ=0.5: 3 q^2 (1-q) + q^3 = 3*0.0625*0.75 + 0.015625 = 0.15625
    assert acceptance_probability(3, 2, 2, 0.5) == pytest.approx(0.15625)
    # k=6, s=14, r=2 (a classic AltaVista-style setting) at ρ=0.95: q = 0.95^14
    q = 0.95 ** 14
    assert acceptance_probability(6, 14, 2, 0.95) == pytest.approx(1 - (1 - q) ** 6 - 6 * q * (1 - q) ** 5)
    assert acceptance_probability(4, 3, 2, 0.0) == 0.0
    assert acceptance_probability(4, 3, 2, 1.0) == 1.0
    with pytest.raises(OptionError):
        acceptance_probability(3, 1, 4, 0.5)


def test_binomial_tail():
    assert binomial_tail(4, 2, 0.5) == pytest.approx(11 / 16)
    assert binomial_tail(10, 0, 0.3) == 1.0 and binomial_tail(10, 11, 0.3) == 0.0
    assert binomial_tail(1000, 500, 0.5) == pytest.approx(0.5126, abs=1e-3)


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.9, 0.95])
def test_parameter_choice_rises_sharply_around_the_threshold(threshold):
    p = choose_params(threshold)
    assert p.k * p.s <= p.t and 1 <= p.r <= p.k
    assert p.filter_probability(threshold) >= 0.995
    assert p.acceptance(min(1.0, threshold + 0.05)) >= 0.97
    assert p.acceptance(threshold - 0.1) <= 0.005
    assert p.acceptance(threshold / 3) < 1e-4
    assert p.need == math.ceil(threshold * p.t - 1e-9)
    # a higher threshold needs fewer sketch values for the same accuracy
    if threshold < 0.95:
        assert choose_params(threshold + 0.05).t <= p.t


def test_parameter_choice_refuses_bad_values():
    for bad in (0, -0.1, 1.5, True, "0.8"):
        with pytest.raises(OptionError):
            choose_params(bad)
    with pytest.raises(OptionError):
        choose_params(0.8, ngram=0)


def test_shingle_params_command(capsys):
    assert cli_main(["shingle-params", "--threshold", "0.8"]) == 0
    out = capsys.readouterr().out
    p = choose_params(0.8)
    assert f"t = {p.t}" in out and f"k = {p.k}" in out and f"s = {p.s}" in out and f"r = {p.r}" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("0.80"))
    assert float(row.split()[1]) == pytest.approx(p.filter_probability(0.8), abs=1e-4)


# -- the stage --------------------------------------------------------------------

def run_stage(docs, **kw):
    stage = NearDuplicates(**kw)
    dropped = []
    stage.on_drop = lambda d, name: dropped.append(d)
    kept = [d.id for d in stage.run(copy.deepcopy(docs))]
    stage.close()
    return kept, dropped, stage


def test_stream_mode_drops_near_duplicates_only():
    docs = corpus()
    kept, dropped, stage = run_stage(docs, threshold=0.8)
    assert {d.id for d in dropped} == {d.id for d in docs if d.id.startswith("near")}
    assert all(d.drop_reason == "near-duplicate" for d in dropped)
    assert all(d.meta["near_duplicate_of"] == "o" + d.id[4:] for d in dropped)
    assert all(0.8 <= d.meta["resemblance"] <= 1.0 for d in dropped)
    s = stage.stats
    assert s.drops["near-duplicate"] == len(dropped) == 10
    assert s.docs_in == len(docs) and s.docs_out == len(kept) == len(docs) - 10
    assert s.extra["verified-pairs"] == 10 and s.extra["clusters"] == 10
    # a low threshold also catches the heavy edits (20 % of words changed: resemblance ~0.2 at n=5)
    kept_low, dropped_low, _ = run_stage(docs, threshold=0.12)
    assert {d.id for d in dropped_low} >= {d.id for d in docs if d.id.startswith("far")}


@pytest.mark.parametrize("budget", [256 * 1024 * 1024, 1024])
def test_batch_mode_agrees_with_stream_mode(budget, tmp_path):
    docs = corpus()
    kept_s, dropped_s, _ = run_stage(docs, threshold=0.8)
    kept_b, dropped_b, stage = run_stage(docs, threshold=0.8, mode="batch", memory_budget=budget,
                                         tmpdir=str(tmp_path))
    assert kept_b == kept_s
    assert [d.id for d in dropped_b] == [d.id for d in dropped_s]
    assert [d.meta for d in dropped_b] == [d.meta for d in dropped_s]
    assert stage.stats.drops["near-duplicate"] == 10
    spilled = budget == 1024
    assert (stage.stats.extra["spilled-runs"] > 1) == spilled
    assert (stage.stats.extra["spilled-pair-runs"] > 1) == spilled
    assert list(tmp_path.iterdir()) == []             # temporary files are removed
    # dropped documents come back whole from the spill file
    orig = {d.id: d for d in docs}
    assert all(d.paragraphs[0].text == orig[d.id].paragraphs[0].text for d in dropped_b)


@pytest.mark.parametrize("threshold", [0.5, 0.8])
def test_spilling_to_disk_gives_the_in_memory_result(threshold, tmp_path):
    """(feature, doc) and (doc, doc) lists in sorted runs on disk, merged: same pairs, same decisions."""
    docs = corpus()
    results = []
    for budget in (256 * 1024 * 1024, 1024, 1600):
        kept, dropped, stage = run_stage(docs, threshold=threshold, mode="batch", memory_budget=budget,
                                         tmpdir=str(tmp_path))
        results.append((kept, [(d.id, d.meta) for d in dropped], sorted(stage.pairs),
                        stage.stats.extra["candidate-pairs"]))
        if budget == 1024:
            assert stage.stats.extra["spilled-runs"] > 1 and stage.stats.extra["spilled-pair-runs"] > 1
    assert results[0] == results[1] == results[2]
    assert results[0][2]                    # there are pairs to find


def chain_docs() -> list[Document]:
    """A ~ B ~ C above 0.8, but A and C below it: 15 words changed per step in 1000."""
    rng = random.Random(5)
    a = words(1000, 21)
    spots = rng.sample(range(0, 1000, 6), 30)           # 6 apart: the broken 5-grams do not overlap
    b, c = list(a), list(a)
    for i in spots[:15]:
        b[i] = c[i] = "bb" + a[i]
    for i in spots[15:]:
        c[i] = "cc" + a[i]
    return [doc("A", a), doc("x", words(500, 22)), doc("B", b), doc("C", c), doc("y", words(500, 23))]


def test_chain_is_decided_like_stream_mode(tmp_path):
    docs = chain_docs()
    stage = NearDuplicates(threshold=0.8)
    sk = {d.id: stage.fingerprint(d)[0].astype(np.uint16) for d in docs}
    est = lambda x, y: estimate_resemblance(sk[x], sk[y])   # noqa: E731
    exact = lambda x, y: resemblance(*(shingle_hashes(word_tokens(d.paragraphs), 5)   # noqa: E731
                                       for d in docs if d.id in (x, y)))
    assert est("A", "B") >= 0.8 and est("B", "C") >= 0.8 and est("A", "C") < 0.8     # the chain
    assert exact("A", "C") < 0.78 < 0.84 < exact("A", "B")
    kept_s, dropped_s, _ = run_stage(docs, threshold=0.8)
    path = tmp_path / "clusters.jsonl"
    kept_b, dropped_b, stage_b = run_stage(docs, threshold=0.8, mode="batch", clusters=str(path))
    # C only resembles B, which was dropped: it is kept, in both modes
    assert kept_s == kept_b == ["A", "x", "C", "y"]
    assert [(d.id, d.meta["near_duplicate_of"]) for d in dropped_b] == [("B", "A")]
    assert [d.meta for d in dropped_b] == [d.meta for d in dropped_s]
    # the cluster is still the connected component, with each member's fate
    (cluster,) = [json.loads(line) for line in path.read_text().splitlines()]
    assert [m["id"] for m in cluster["members"]] == ["A", "B", "C"]
    assert cluster["kept"] == ["A", "C"]
    assert [m.get("near_duplicate_of") for m in cluster["members"]] == [None, "A", None]
    assert {(p["a"], p["b"]) for p in cluster["pairs"]} == {("A", "B"), ("A", "C"), ("B", "C")}
    assert stage_b.stats.extra["clusters"] == 1 and stage_b.stats.extra["verified-pairs"] == 2


def test_keep_longest_in_a_chain():
    a, x, b, c, y = chain_docs()
    b.paragraphs.append(Paragraph(" ".join(words(30, 99))))     # B is the longest; A and C resemble it
    kept, dropped, _ = run_stage([a, x, b, c, y], threshold=0.75, mode="batch", keep="longest")
    assert kept == ["x", "B", "y"]
    assert {d.id: d.meta["near_duplicate_of"] for d in dropped} == {"A": "B", "C": "B"}


@pytest.mark.parametrize("mode", ["stream", "batch"])
def test_mass_copies(mode):
    """Hundreds of copies share every super-shingle: the pair list stays linear, all copies go."""
    base = words(200, 31)
    docs = [doc(f"c{i}", base) for i in range(260)] + [doc("other", words(200, 32))]
    kept, dropped, stage = run_stage(docs, threshold=0.8, mode=mode)
    assert kept == ["c0", "other"]
    assert all(d.meta["near_duplicate_of"] == "c0" for d in dropped)
    if mode == "batch":
        assert stage.stats.extra["large-feature-groups"] > 0
        assert len(stage.pairs) < 260 * 2 * 201


def test_batch_mode_finds_all_pairs_and_chains_clusters():
    base = words(400, 7)
    a = doc("a", base)
    b = doc("b", edited(base, 2, 1))
    c = doc("c", edited(base, 2, 2))
    other = doc("z", words(400, 8))
    kept, dropped, stage = run_stage([a, other, b, c], threshold=0.8, mode="batch")
    assert kept == ["a", "z"]
    pairs = {(x, y) for x, y, _ in stage.pairs}
    assert pairs == {(0, 2), (0, 3), (2, 3)}              # every pair of the cluster, by input ordinal
    assert stage.stats.extra["clusters"] == 1


def test_keep_longest(tmp_path):
    base = words(300, 3)
    short = doc("short", base)
    longer = doc("long", base + words(20, 4))
    kept, dropped, _ = run_stage([short, longer], threshold=0.8, mode="batch", keep="longest")
    assert kept == ["long"] and [d.id for d in dropped] == ["short"]
    assert dropped[0].meta["near_duplicate_of"] == "long"
    kept, _, _ = run_stage([short, longer], threshold=0.8, mode="batch")
    assert kept == ["short"]
    with pytest.raises(OptionError):
        NearDuplicates(mode="stream", keep="longest")
    with pytest.raises(OptionError):
        NearDuplicates(mode="sideways")


@pytest.mark.parametrize("mode", ["stream", "batch"])
def test_clusters_file(mode, tmp_path):
    path = tmp_path / "clusters.jsonl"
    docs = corpus()
    run_stage(docs, threshold=0.8, mode=mode, clusters=str(path))
    clusters = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(clusters) == 10
    first = clusters[0]
    assert first["size"] == 2 and first["kept"] == ["o0"]
    assert [m["id"] for m in first["members"]] == ["o0", "near0"]
    assert first["members"][0]["url"] == "http://x.test/o0" and first["members"][0]["kept"] is True
    assert first["members"][1]["kept"] is False and first["members"][1]["words"] == 300
    assert first["members"][1]["near_duplicate_of"] == "o0" and "near_duplicate_of" not in first["members"][0]
    (pair,) = first["pairs"]
    assert pair["a"] == "o0" and pair["b"] == "near0" and 0.8 <= pair["resemblance"] <= 1.0
    exact = resemblance(shingle_hashes(word_tokens(docs[0].paragraphs), 5),
                        shingle_hashes(word_tokens(docs[1].paragraphs), 5))
    assert abs(pair["resemblance"] - exact) < 0.1


@pytest.mark.parametrize("mode", ["stream", "batch"])
def test_empty_documents_pass_and_are_counted(mode):
    empty = Document(id="e1")
    only_bad = Document(id="e2", paragraphs=[Paragraph("Home | Contact", cls=BAD)])
    punct = Document(id="e3", paragraphs=[Paragraph("... !!! ---")])
    docs = [empty, only_bad, punct, doc("x", words(100, 1)), Document(id="e4")]
    kept, dropped, stage = run_stage(docs, threshold=0.8, mode=mode)
    assert kept == ["e1", "e2", "e3", "x", "e4"] and not dropped
    assert stage.stats.extra["no-words"] == 4


def test_tokens_are_kept_for_later_stages():
    from corpustool.text.stage import Tokenize
    from corpustool.text.tokenizer import tokenize

    d = Document(id="t", paragraphs=[Paragraph("Hello, World! It's here."), Paragraph("menu", cls=BAD)])
    (out,) = NearDuplicates(threshold=0.8).run([d])
    assert out.paragraphs[0].tokens == tokenize("Hello, World! It's here.")[0]
    assert out.paragraphs[0].glue == tokenize("Hello, World! It's here.")[1]
    assert out.paragraphs[1].tokens is None                      # bad paragraphs are not tokenised
    assert Tokenize().process(copy.deepcopy(out)).paragraphs[0].tokens == out.paragraphs[0].tokens
    (plain,) = NearDuplicates(threshold=0.8, keep_tokens=False).run([Document(id="u", paragraphs=[Paragraph("a b")])])
    assert plain.paragraphs[0].tokens is None


@pytest.mark.parametrize("mode", ["stream", "batch"])
def test_documents_dropped_upstream_stay_dropped_with_their_reason(mode):
    ws = words(200, 5)
    gone = doc("gone", ws)
    gone.drop_reason = "too-short"
    kept, dropped, stage = run_stage([gone, doc("a", ws), doc("b", ws)], threshold=0.8, mode=mode)
    assert kept == ["a"]                  # "a" is not a near-duplicate of the dropped "gone"
    assert [(d.id, d.drop_reason) for d in dropped] == [("gone", "too-short"), ("b", "near-duplicate")]
    assert stage.stats.drops == {"too-short": 1, "near-duplicate": 1} and stage.stats.docs_in == 3


def test_short_documents_match_their_copies():
    docs = [doc("a", ["hello", "world"]), doc("b", ["hello", "world"]), doc("c", ["hello", "there"])]
    kept, dropped, _ = run_stage(docs, threshold=0.9)
    assert kept == ["a", "c"]


def test_deterministic_output():
    docs = corpus()
    runs = [run_stage(docs, threshold=0.7, mode=m)[0] for m in ("stream", "stream", "batch")]
    assert runs[0] == runs[1] == runs[2]


def test_cli_dedup_near(tmp_path):
    docs = corpus()[:12]
    inp = "".join(json.dumps(d.to_dict()) + "\n" for d in docs)
    clusters = tmp_path / "c.jsonl"
    stats = tmp_path / "s.json"
    cmd = [sys.executable, "-m", "corpustool", "dedup-near", "--threshold", "0.8", "--mode", "batch",
           "--clusters", str(clusters), "--stats", str(stats), "-q"]
    res = subprocess.run(cmd, input=inp, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out_ids = [json.loads(line)["id"] for line in res.stdout.splitlines()]
    assert out_ids == [d.id for d in docs if not d.id.startswith("near")]
    assert "near-duplicate" in stats.read_text()
    assert clusters.read_text().count("\n") == sum(1 for d in docs if d.id.startswith("near"))
    bad = subprocess.run([sys.executable, "-m", "corpustool", "dedup-near", "--keep", "longest"],
                         input="", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "batch" in bad.stderr and bad.stderr.count("\n") == 1
    bad = subprocess.run([sys.executable, "-m", "corpustool", "dedup-near", "--threshold", "2"],
                         input="", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2


# -- the benchmark corpus (quick, generated version) --------------------------------

@pytest.fixture(scope="module")
def quick_bench(tmp_path_factory):
    """scripts/make_dedup_bench.py's corpus from generated text: planted near-duplicates of every kind."""
    scripts = SCRIPTS
    sys.path.insert(0, str(scripts))
    try:
        import make_dedup_bench
    finally:
        sys.path.remove(str(scripts))
    out = tmp_path_factory.mktemp("dedup-bench")
    assert make_dedup_bench.main(["--out", str(out), "--generated", "--size", "150", "--quiet"]) == 0
    docs = [Document.from_dict(json.loads(line)) for line in (out / "corpus.jsonl").read_text().splitlines()]
    truth = json.loads((out / "truth.json").read_text())
    return docs, truth


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.9])
def test_stream_and_batch_agree_on_the_benchmark_corpus(quick_bench, threshold):
    docs, truth = quick_bench
    kept_s, dropped_s, stage_s = run_stage(docs, threshold=threshold)
    kept_b, dropped_b, stage_b = run_stage(docs, threshold=threshold, mode="batch", memory_budget=4096)
    assert kept_s == kept_b
    assert [(d.id, d.meta) for d in dropped_s] == [(d.id, d.meta) for d in dropped_b]
    assert stage_b.stats.extra["spilled-pair-runs"] > 1
    # and the decisions are right: the later document of every planted pair well above the
    # threshold is gone, every original without near-duplicates above it stays
    gone = {d.id for d in dropped_s}
    high = [p for p in truth["near_pairs"] if p["resemblance"] >= threshold + 0.05]
    assert high and all(p["b"] in gone for p in high)
    assert stage_s.stats.drops["near-duplicate"] == len(gone) > 0


def _repeats_in_unique_text(docs: list[Document], truth: dict) -> tuple[list, list]:
    """What a perfect paragraph de-duplicator could not remove from the benchmark's unique text.

    (10-grams of all tokens, as the vertical tokenizer gives them, repeated in the unique text: each
    document's unique paragraphs in order, 10-grams across their boundaries; unique paragraphs that
    repeat, token for token, any earlier paragraph of the corpus, copies included.)
    """
    from collections import Counter

    from corpustool.text.tokenizer import tokenize

    unique: dict[str, set[int]] = {}
    for doc_id, idx in truth["original_paragraphs"]:
        unique.setdefault(doc_id, set()).add(idx)
    grams: Counter = Counter()
    seen: set = set()
    repeated_paragraphs = []
    for d in docs:
        stream: list[str] = []
        for i, p in enumerate(d.paragraphs):
            toks = tuple(tokenize(p.text)[0])
            if i in unique.get(d.id, ()):
                if toks in seen:
                    repeated_paragraphs.append((d.id, i, p.text))
                stream.extend(toks)
            seen.add(toks)
        grams.update(tuple(stream[k:k + 10]) for k in range(len(stream) - 9))
    return [g for g, c in grams.items() if c > 1], repeated_paragraphs


def test_the_benchmark_corpus_unique_text_repeats_no_10_gram(quick_bench):
    # the duplicate 10-grams bench_onion counts are all removable without losing unique text
    docs, truth = quick_bench
    assert len(truth["original_paragraphs"]) > 1000 and truth["planted_paragraphs"]
    assert _repeats_in_unique_text(docs, truth) == ([], [])
    assert all(word_tokens([p]) for d in docs for p in d.paragraphs)


def test_the_benchmark_generator_keeps_punctuated_phrases_unique():
    """Texts whose phrases repeat as 10-grams of all tokens but not of words (punctuation),
    repeat inside a paragraph, or repeat a short paragraph: the unique text still repeats nothing."""
    scripts = SCRIPTS
    sys.path.insert(0, str(scripts))
    try:
        import make_dedup_bench
    finally:
        sys.path.remove(str(scripts))
    rng = random.Random(5)
    texts = make_dedup_bench.generated_texts(80, rng)
    for k, (url, paras) in enumerate(texts):
        paras.insert(1, f"{paras[0].split()[0]} kostet {k} € / l ) ( inkl. MwSt . zzgl. Versand")
        paras.insert(2, "= = = = = = = = = = = = " + paras[2])                 # repeats inside itself
        paras.append(["2012", "Impressum", "und"][k % 3])                        # short, repeated
        paras.append(f"Frage {k} ? Will there be a toilet on the bus ? Ja .")
        paras.insert(3, ["---", "+", "* * *"][k % 3])                              # no words
    docs_out, truth = make_dedup_bench.build(texts, seed=3, ngram=5, variant_share=0.45, carrier_share=0.3,
                                             quiet=True)
    docs = [Document.from_dict(d) for d in docs_out]
    all_text = "\n".join(p.text for d in docs for p in d.paragraphs)
    assert "inkl. MwSt . zzgl. Versand" in all_text and "Impressum" in all_text   # kept once at least
    assert _repeats_in_unique_text(docs, truth) == ([], [])
    assert all(word_tokens([p]) for d in docs for p in d.paragraphs)      # no empty or word-less paragraph
    # and the truth stays consistent: every planted paragraph is its source's text (exact copies)
    by_id = {d.id: d for d in docs}
    for p in truth["planted_paragraphs"]:
        if p["kind"] in ("exact", "furniture"):
            assert (by_id[p["doc"]].paragraphs[p["index"]].text
                    == by_id[p["source_doc"]].paragraphs[p["source_index"]].text)


def test_the_benchmark_generator_is_deterministic_across_processes(tmp_path):
    # same options -> byte-identical files, whatever the process's string hash seed (the order of
    # sets of strings differs between processes; the uniqueness filter keys text by hash())
    import os
    script = SCRIPTS / "make_dedup_bench.py"
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        subprocess.run([sys.executable, str(script), "--generated", "--size", "60", "--out", str(out), "-q"],
                       check=True, timeout=300, env={**os.environ, "PYTHONHASHSEED": seed})
        outs.append(((out / "corpus.jsonl").read_bytes(), (out / "truth.json").read_bytes()))
    assert outs[0] == outs[1] and outs[0][0].count(b"\n") > 60
