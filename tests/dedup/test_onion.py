"""N-gram paragraph de-duplication (onion, seed 003 Algorithm 3.1), its hash sets and CLI."""
from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from corpustool.cli import main as cli_main
from corpustool.dedup.hashset import FlaggedHashSet, HashSet, SortedRun
from corpustool.dedup.onion import (DuplicateNgramFinder, Onion, OnionEngine, OnionOptions, Unit,
                                    deduplicate_streaming, deduplicate_two_pass, find_duplicate_ngrams,
                                    read_dup_ngrams, remove_stubs, revise_with_duplicates, write_dup_ngrams)
from corpustool.document import Document, Paragraph
from corpustool.errors import OptionError
from corpustool.readers.vertical import VerticalDocument, VerticalReader

from tests.support.paths import REPO


def words(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


A = words("alpha", 20)
B = words("beta", 20)
C = words("gamma", 20)
D = words("delta", 20)


def run(docs: list[list[list[str] | None]], **opts) -> list[Unit]:
    units = [Unit([None if p is None else list(p) for p in d]) for d in docs]
    list(deduplicate_streaming(iter(units), OnionOptions(**opts)))
    return units


# -- Algorithm 3.1, block level ----------------------------------------------------

def test_paragraph_seen_in_earlier_document_is_duplicate():
    u = run([[A, B], [C, A], [D]])
    assert u[0].removed.tolist() == [False, False]
    assert u[1].dup.tolist() == [False, True]
    assert u[1].share[1] == 1.0
    assert u[2].removed.tolist() == [False]


def test_threshold_is_strictly_exceeded():
    # 10 of 20 tokens covered: share 0.5 is not over the threshold 0.5, 11 of 20 is
    half = A[:10] + words("fresh", 10)
    more = A[:11] + words("other", 9)
    u = run([[A], [half], [more]], n=5, within_document="none")
    assert u[1].share[0] == pytest.approx(0.5)
    assert not u[1].dup[0]
    assert u[2].share[0] == pytest.approx(0.55)
    assert u[2].dup[0]


def test_only_kept_text_counts_as_output():
    # doc 2 repeats A (removed); its new paragraph C is kept, so doc 3's C is a duplicate,
    # while the removed copy of A did not make anything new part of the output
    mixed = A[:15] + words("tail", 5)      # 75 % from A: a duplicate, and its tail never reaches the output
    u = run([[A], [mixed, C], [words("tail", 5) + D, C]], n=5, within_document="none", smoothing=False)
    assert u[1].removed.tolist() == [True, False]
    assert u[2].dup.tolist() == [False, True]
    assert u[2].share[0] == 0.0


def test_repeat_inside_a_document():
    u = run([[A, B, A]])
    assert u[0].dup.tolist() == [False, False, True]
    # natural repetition of a phrase inside a document is not a duplicate paragraph ...
    phrase = words("date", 8)
    u = run([[phrase + words("x", 4), words("y", 3) + phrase + words("z", 3)]], n=7)
    assert not u[0].dup.any()
    # ... unless n-grams inside the document are asked for
    u = run([[phrase + words("x", 4), words("y", 3) + phrase + words("z", 3)]], n=7, within_document="ngrams")
    assert u[0].dup.tolist() == [False, True]


def test_short_paragraph_matched_as_a_whole():
    u = run([[A, ["Impressum"], B], [C, ["Impressum"], D]])
    assert u[1].dup.tolist() == [False, True, False]
    u = run([[A, ["Impressum"], B], [C, ["Impressum"], D]], whole_paragraphs=False, within_document="none")
    assert not u[1].dup.any()


def test_punctuation_and_stopwords_left_out_of_ngrams():
    base = ["the", "cat", ",", "the", "dog", "and", "the", "bird", "sat", "on", "the", "mat", "."]
    variant = ["a", "cat", ";", "a", "dog", "or", "a", "bird", "sat", "in", "a", "mat", "!"]
    plain = run([[base], [variant]], n=4, whole_paragraphs=False, within_document="none")
    assert not plain[1].dup[0]
    stop = frozenset(["the", "a", "and", "or", "on", "in"])
    opts = OnionOptions(n=4, skip_punct=True, skip_stopwords=True, whole_paragraphs=False,
                        within_document="none")
    engine = OnionEngine(opts)
    from corpustool.dedup.onion import TokenHasher
    engine.hashers._by_lang[None] = TokenHasher(True, stop)
    units = [Unit([list(base)]), Unit([list(variant)])]
    engine.process(units)
    assert units[1].dup[0]


def test_document_level_mode_removes_whole_documents():
    u = run([[A, B], [A, C, D[:5]]], document_level=True)
    assert not u[0].removed.any()
    # 20 of 45 tokens: below 0.5, the whole document stays
    assert not u[1].removed.any()
    u = run([[A, B], [A, B[:15], C]], document_level=True)
    assert u[1].removed.all()


def test_empty_and_ineligible_paragraphs():
    u = run([[A, None, []], [None, A, []], []])
    assert u[1].dup.tolist() == [False, True, False]
    assert u[1].removed.tolist() == [False, True, False]
    assert u[2].removed.size == 0


# -- smoothing ---------------------------------------------------------------------

def test_stub_between_duplicates_is_removed():
    stub = ["Posted", "by", "Joe"]
    u = run([[A, B], [A, stub, B]], max_stub_length=10)
    assert u[1].dup.tolist() == [True, False, True]
    assert u[1].removed.tolist() == [True, True, True]
    u = run([[A, B], [A, stub, B]], smoothing=False)
    assert u[1].removed.tolist() == [True, False, True]
    # longer than the maximum stub length: kept
    u = run([[A, B], [A, stub, B]], max_stub_length=2)
    assert u[1].removed.tolist() == [True, False, True]
    # a short paragraph with a duplicate on one side only stays
    u = run([[A, B], [stub, A, C]])
    assert u[1].removed.tolist() == [False, True, False]


def test_remove_stubs_runs_skip_ineligible_paragraphs():
    dup = np.array([True, False, False, False, True, False])
    eligible = np.array([True, True, False, True, True, True])
    lengths = np.array([30, 3, 0, 4, 30, 2])
    removed = remove_stubs(dup, eligible, lengths, 5)
    assert removed.tolist() == [True, True, False, True, True, False]


class _P:
    def __init__(self, cf, heading, text):
        self.cf_class = cf
        self.heading = heading
        self.text = text
        self.class_type = ""


def test_revise_matches_justext_without_duplicates():
    """Our Algorithm 2.3 + headings rule is justext's revise_paragraph_classification."""
    from justext.core import revise_paragraph_classification

    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(1, 12)
        paras = [_P(rng.choice(["good", "bad", "short", "neargood"]), rng.random() < 0.3,
                    "x" * rng.randint(1, 150)) for _ in range(n)]
        revise_paragraph_classification(paras, 200)
        ours = revise_with_duplicates([p.cf_class for p in paras], [p.heading for p in paras],
                                      [len(p.text) for p in paras], [False] * n, 200)
        assert ours == [p.class_type for p in paras]


def test_revise_with_duplicates_is_justext_with_duplicates_as_bad():
    """Sect. 3.5.2: the same as the package run on the classes with every duplicate made bad,
    on long pages too (our neighbours come from linear sweeps, the package's from walks)."""
    from justext.core import revise_paragraph_classification

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 60)
        paras = [_P(rng.choice(["good", "bad", "short", "short", "neargood"]), rng.random() < 0.3,
                    "x" * rng.randint(1, 150)) for _ in range(n)]
        dup = [rng.random() < 0.2 for _ in range(n)]
        ours = revise_with_duplicates([p.cf_class for p in paras], [p.heading for p in paras],
                                      [len(p.text) for p in paras], dup, 200)
        for p, d in zip(paras, dup):
            if d:
                p.cf_class = "bad"
        revise_paragraph_classification(paras, 200)
        assert ours == [p.class_type for p in paras]


def test_justext_context_smoothing_treats_duplicates_as_bad():
    def doc(texts_classes):
        ps = [Paragraph(text=t, cf_class=c) for t, c in texts_classes]
        return Document(id="d", paragraphs=ps)

    a, b = " ".join(A), " ".join(B)
    first = doc([(a, "good"), (b, "good")])
    second = doc([(a, "good"), ("Read more", "short"), ("by the author of this blog today", "neargood"),
                  (b, "good"), ("Unique closing words of some length here", "good")])
    stage = Onion()
    out = list(stage.run([first, second]))
    assert [p.cls for p in out[1].paragraphs] == ["bad", "bad", "bad", "bad", "good"]
    assert [p.reason for p in out[1].paragraphs] == ["duplicate", "duplicate-context", "duplicate-context",
                                                     "duplicate", None]
    assert stage.stats.extra["paragraphs_removed"] == 4


def test_context_smoothing_removes_only_what_the_duplicates_change():
    # justext-plus keeps the short lines of an article that jusText alone would drop
    # ("200 g sugar" between bad lines); a duplicate paragraph at the end of the page must
    # not take them: only stubs next to duplicates go with them
    def doc(rows):
        return Document(id="d", paragraphs=[Paragraph(text=t, cf_class=c) for t, c in rows])

    a, c = " ".join(A), " ".join(C)
    first = doc([(a, "good")])
    recipe = [("Ingredients", "short"), ("200 g sugar", "short"), ("3 eggs", "short"),
              ("Beat the eggs with the sugar until the mixture is pale and thick enough", "bad"),
              ("Unique closing words of some length here and there", "good"), (c, "good"),
              ("Share", "short"), (a, "good")]
    out = list(Onion().run([first, doc(recipe)]))
    kept = [p.text for p in out[1].paragraphs if p.is_good]
    assert "200 g sugar" in kept and "3 eggs" in kept and "Ingredients" in kept
    reasons = {p.text: p.reason for p in out[1].paragraphs}
    assert reasons[a] == "duplicate"
    # a stub jusText itself keeps (between good text and the duplicate) still goes with the
    # duplicate by jusText's context rule, as in classic onion
    assert reasons["Share"] == "duplicate-context"


def test_stage_drops_documents_left_without_good_paragraphs():
    def mk(i, paras):
        return Document(id=str(i), paragraphs=[Paragraph(text=" ".join(p)) for p in paras])

    stage = Onion()
    dropped = []
    stage.on_drop = lambda d, name: dropped.append((d.id, d.drop_reason, name))
    out = list(stage.run([mk(1, [A, B]), mk(2, [A]), mk(3, [C])]))
    assert [d.id for d in out] == ["1", "3"]
    assert dropped == [("2", "duplicate", "dedup-para")]
    assert stage.stats.drops["duplicate"] == 1
    assert stage.stats.extra["paragraphs_removed"] == 1
    # tokens are kept for the tokenize stage
    assert out[0].paragraphs[0].tokens == A


def test_stage_refuses_invalid_options():
    with pytest.raises(OptionError):
        Onion(n=0)
    with pytest.raises(OptionError):
        Onion(threshold=1.5)
    with pytest.raises(OptionError):
        Onion(max_stub_length=-1)


# -- two-pass == streaming ---------------------------------------------------------

def random_corpus(seed: int, docs: int = 120) -> list[list[list[str]]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(400)] + [",", ".", "the", "a"]
    pool = [[rng.choice(vocab) for _ in range(rng.randint(1, 30))] for _ in range(60)]
    out = []
    for _ in range(docs):
        paras = []
        for _ in range(rng.randint(1, 6)):
            r = rng.random()
            if r < 0.3:
                paras.append(list(rng.choice(pool)))
            elif r < 0.4:
                p = list(rng.choice(pool))
                p[rng.randrange(len(p))] = "edit"
                paras.append(p)
            else:
                paras.append([rng.choice(vocab) for _ in range(rng.randint(1, 40))])
        out.append(paras)
    return out


@pytest.mark.parametrize("seed,opts", [
    (1, {}),
    (2, {"n": 3}),
    (3, {"skip_punct": True, "n": 4}),
    (4, {"document_level": True, "n": 5}),
    (5, {"within_document": "ngrams", "n": 5, "threshold": 0.25}),
    (6, {"smoothing": False, "n": 2, "hash_bits": 40}),
])
def test_two_pass_equals_streaming(seed, opts):
    corpus = random_corpus(seed)
    o = OnionOptions(**opts)
    stream = [Unit([list(p) for p in d]) for d in corpus]
    # small batches: decisions that depend on earlier documents of the same batch
    list(deduplicate_streaming(iter(stream), o, batch_tokens=200))
    two = [Unit([list(p) for p in d]) for d in corpus]
    decided = list(deduplicate_two_pass(lambda: iter(two), o, batch_tokens=333))
    assert [u.removed.tolist() for u in decided] == [u.removed.tolist() for u in stream]
    assert any(u.removed.any() for u in stream)
    # one document per batch gives the same too
    single = [Unit([list(p) for p in d]) for d in corpus]
    list(deduplicate_streaming(iter(single), o, batch_tokens=1))
    assert [u.removed.tolist() for u in single] == [u.removed.tolist() for u in stream]


def test_reordering_prefers_documents_with_less_duplicate_content():
    # the index page (excerpts of three articles) comes first; reordered, the articles win
    arts = [words(f"art{i}x", 30) for i in range(3)]
    index = [a[:20] for a in arts]
    corpus = [index] + [[a] for a in arts]
    o = OnionOptions()
    plain = list(deduplicate_two_pass(lambda: iter([Unit([list(p) for p in d]) for d in corpus]), o))
    assert not plain[0].removed.any() and all(u.removed.all() for u in plain[1:])
    reord = list(deduplicate_two_pass(lambda: iter([Unit([list(p) for p in d]) for d in corpus]), o,
                                      reorder=True))
    assert reord[0].removed.all() and not any(u.removed.any() for u in reord[1:])


def test_pass1_spills_to_disk_and_finds_the_same_duplicates(tmp_path):
    corpus = random_corpus(9, docs=3000)
    o = OnionOptions(n=3)
    units = lambda: (Unit([list(p) for p in d]) for d in corpus)  # noqa: E731
    in_memory = find_duplicate_ngrams(units(), o)
    finder = DuplicateNgramFinder(o, memory_budget=1 << 20, tmpdir=str(tmp_path))
    from corpustool.dedup.onion import batches
    for b in batches(units(), lambda u: 1, 50):
        finder.feed(b)
    spilled = finder.finish()
    assert finder.spills >= 2
    assert np.array_equal(in_memory, spilled)
    assert list(tmp_path.iterdir()) == []      # temporary files are removed
    # and it is right: hashes occurring at least twice
    engine = OnionEngine(o)
    all_hashes = np.concatenate([engine.batch_ngrams([u]).hashes for u in units()])
    values, counts = np.unique(all_hashes, return_counts=True)
    assert np.array_equal(values[counts >= 2], in_memory)


def test_dup_ngram_file_round_trip_and_mismatch(tmp_path):
    o = OnionOptions(n=5)
    h = np.array([3, 9, 2**63 + 5], dtype=np.uint64)
    path = tmp_path / "d.bin"
    write_dup_ngrams(path, h, o)
    got, params = read_dup_ngrams(path, o)
    assert got.tolist() == h.tolist() and params["n"] == 5
    with pytest.raises(OptionError, match="n:"):
        read_dup_ngrams(path, OnionOptions(n=7))
    (tmp_path / "bad").write_bytes(b"nonsense")
    with pytest.raises(OptionError, match="not a duplicate n-gram file"):
        read_dup_ngrams(tmp_path / "bad")


# -- hash sets -------------------------------------------------------------------

def test_sorted_run_lower_bound_is_searchsorted():
    rng = np.random.default_rng(3)
    for size in (0, 1, 5, 1000, 50_000):
        data = np.unique(rng.integers(0, 2**64 - 1, size, dtype=np.uint64, endpoint=True))
        run_ = SortedRun(data)
        q = np.concatenate([rng.integers(0, 2**64 - 1, 5000, dtype=np.uint64, endpoint=True), data[:100],
                            np.array([0, 2**64 - 1], dtype=np.uint64)])
        assert np.array_equal(run_.lower_bound(q), np.searchsorted(data, q))
        assert np.array_equal(run_.contains(q), np.isin(q, data))


@pytest.mark.parametrize("bits", [64, 40])
def test_hashset_behaves_like_a_set(bits):
    rng = np.random.default_rng(bits)
    hs = HashSet(bits=bits, l0_limit=1000)   # small levels: many merges into the main array
    ref: set[int] = set()
    mask = (1 << bits) - 1
    for _ in range(60):
        batch = rng.integers(0, 2**64 - 1, rng.integers(1, 900), dtype=np.uint64, endpoint=True)
        batch = np.concatenate([batch, batch[:10]])          # repeats inside a batch
        if ref:
            batch = np.concatenate([batch, np.array(list(ref)[:20], dtype=np.uint64)])
        new = hs.add(batch)
        before = len(ref)
        ref.update(int(x) & mask for x in batch)
        assert new == len(ref) - before
        assert len(hs) == len(ref)
    q = np.concatenate([np.array(sorted(ref)[:500], dtype=np.uint64),
                        rng.integers(0, 2**64 - 1, 2000, dtype=np.uint64, endpoint=True)])
    assert hs.contains(q).tolist() == [(int(x) & mask) in ref for x in q]
    assert hs.to_array().tolist() == sorted(ref)
    assert hs.nbytes() < 16 * len(ref) + 200_000


def test_flagged_hashset_moves_hashes_to_output():
    g2 = np.array([5, 1, 9, 5, 7], dtype=np.uint64)
    fs = FlaggedHashSet(g2)
    assert fs.n_duplicates == 4
    q = np.array([1, 5, 6, 9], dtype=np.uint64)
    assert fs.contains(q).tolist() == [False] * 4
    assert fs.add(np.array([5, 6, 5], dtype=np.uint64)) == 1   # 6 is not in G2+: ignored
    assert fs.contains(q).tolist() == [False, True, False, False]
    assert fs.in_g2(q).tolist() == [True, True, False, True]
    assert len(fs) == 1


# -- vertical reader and `corpustool onion` ------------------------------------------

def vert_doc(doc_id: str, paragraphs: list[list[str]]) -> str:
    lines = [f'<doc id="{doc_id}">']
    for p in paragraphs:
        lines.append("<p>")
        lines.extend(p)
        lines.append("</p>")
    lines.append("</doc>")
    return "\n".join(lines) + "\n"


def onion(tmp_path, text: str, *args: str) -> tuple[int, list[str]]:
    src = tmp_path / "in.vert"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "out.vert"
    rc = cli_main(["onion", *args, "-o", str(out), str(src)])
    return rc, out.read_text(encoding="utf-8").split("\n")[:-1] if out.exists() else []


def test_onion_marks_and_strips(tmp_path):
    A, B, C = words("alpha", 25), words("beta", 25), words("gamma", 25)   # longer than onion's -l 20
    text = vert_doc("1", [A, B]) + vert_doc("2", [C, A]) + vert_doc("3", [A])
    rc, marked = onion(tmp_path, text, "-q")
    assert rc == 0
    lines = text.split("\n")[:-1]
    assert [m[2:] for m in marked] == lines                   # every line, in order, unchanged
    assert all(m[:2] in ("0\t", "1\t") for m in marked)
    flags = {m[2:]: m[0] for m in marked}
    assert flags["gamma3"] == "0" and flags["beta3"] == "0"
    doc2 = marked[len(vert_doc("1", [A, B]).split("\n")) - 1:][:2 * 27 + 2]
    assert [m[0] for m in doc2[:1 + 27]] == ["0"] * 28           # <doc>, C's paragraph
    assert [m[0] for m in doc2[28:55]] == ["1"] * 27             # A's copy, tags included
    # document 3 is all duplicate: its <doc> lines go too
    assert marked[-1] == "1\t</doc>"
    rc, stripped = onion(tmp_path, text, "-q", "-s")
    assert stripped == [m[2:] for m in marked if m[0] == "0"]
    assert '<doc id="3">' not in stripped


def test_onion_options_like_the_c_tool(tmp_path, capsys):
    text = vert_doc("1", [A]) + vert_doc("2", [A[:8] + words("new", 12)])
    # 8 of 20 tokens: a duplicate at -t 0.3 but not at the default 0.5 (-l 5: onion's stub rule
    # would remove these 20-token documents as a whole)
    rc, marked = onion(tmp_path, text, "-q", "--onion-compat", "-n", "5", "-l", "5")
    assert all(m[0] == "0" for m in marked)
    # by default the context rule removes it: partly duplicate, and nothing unique around it
    rc, marked = onion(tmp_path, text, "-q", "-n", "5")
    assert marked[-2] == "1\t</p>"
    rc, marked = onion(tmp_path, text, "-q", "-n", "5", "--near-threshold", "-1")
    assert all(m[0] == "0" for m in marked)
    rc, marked = onion(tmp_path, text, "-q", "-n", "5", "-t", "0.3")
    assert marked[-2] == "1\t</p>"
    # other tag names
    alt = text.replace("<doc", "<text").replace("</doc>", "</text>").replace("<p>", "<para>") \
        .replace("</p>", "</para>")
    rc, marked = onion(tmp_path, alt, "-q", "-n", "5", "-t", "0.3", "-d", "text", "-p", "para", "-l", "5")
    assert marked[-2] == "1\t</para>"
    # invalid options: one-line error, status 2
    assert cli_main(["onion", "-n", "0", str(tmp_path / "in.vert")]) == 2
    assert "error" in capsys.readouterr().err


def test_onion_with_precomputed_dup_ngrams(tmp_path, capsys):
    text = vert_doc("1", [A, B]) + vert_doc("2", [C, A]) + vert_doc("3", [D, B, ["Stub", "words"], A])
    src = tmp_path / "in.vert"
    src.write_text(text, encoding="utf-8")
    hashes = tmp_path / "dups.bin"
    assert cli_main(["dupngrams", "-q", "-o", str(hashes), str(src)]) == 0
    rc, streamed = onion(tmp_path, text, "-q")
    rc, with_f = onion(tmp_path, text, "-q", "-f", str(hashes))
    rc, two_pass = onion(tmp_path, text, "-q", "--two-pass")
    assert streamed == with_f == two_pass
    assert sum(m[0] == "1" for m in streamed) > 0
    # a file made with other options is refused
    assert cli_main(["onion", "-q", "-n", "5", "-f", str(hashes), str(src)]) == 2
    assert "other n-gram options" in capsys.readouterr().err
    # a file of the other engine: the message names the --engine that reads it (was only the
    # internal hash names 'onion-vertical-v1' vs 'xxh3-poly-v1')
    assert cli_main(["onion", "-q", "--engine", "extended", "-f", str(hashes), str(src)]) == 2
    assert "'dupngrams --engine onion'" in capsys.readouterr().err
    extended = tmp_path / "dups-extended.bin"
    assert cli_main(["dupngrams", "-q", "--engine", "extended", "-o", str(extended), str(src)]) == 0
    assert cli_main(["onion", "-q", "-f", str(extended), str(src)]) == 2
    assert "'dupngrams --engine extended'" in capsys.readouterr().err
    rc, with_extended = onion(tmp_path, text, "-q", "--engine", "extended", "-f", str(extended))
    assert sum(m[0] == "1" for m in with_extended) > 0


def test_onion_document_level_with_empty_paragraph_tag(tmp_path):
    text = vert_doc("1", [A, B]) + vert_doc("2", [A, B[:15], C]) + vert_doc("3", [A, C, D])
    rc, marked = onion(tmp_path, text, "-q", "-p", "")
    docs = "\n".join(marked).split("</doc>")
    assert all(l[0] == "0" for l in docs[0].strip().split("\n"))
    assert all(l[0] == "1" for l in docs[1].strip().split("\n"))
    assert all(l[0] == "0" for l in docs[2].strip().split("\n"))


MALFORMED = """stray-before
<doc id="1">
<p>
{a}
</p>
</p>
<p>
{b}
<doc id="2">
<p>
{a}
</p>
</doc>
<doc id="empty">
</doc>
</doc>
<doc id="3">
<p>
Héllo
<g/>
,
{c}
</p>
<p>
{a2}
"""


def test_onion_survives_malformed_vertical(tmp_path):
    """onion's engine reads any bytes as onion does: nothing lost, order kept, A's repeats marked."""
    text = MALFORMED.format(a="\n".join(A), b="\n".join(B), c="\n".join(C), a2="\n".join(A))
    rc, marked = onion(tmp_path, text, "-q")
    assert rc == 0
    assert [m[2:] for m in marked] == text.split("\n")[:-1]     # nothing lost, order kept
    flag = {}
    for m in marked:
        flag.setdefault(m[2:], []).append(m[0])
    assert flag["alpha0"] == ["0", "1", "1"]
    assert flag["gamma0"] == ["0"] and flag["Héllo"] == ["0"] and flag["<g/>"] == ["0"]
    rc, stripped = onion(tmp_path, text, "-s", "-q")
    assert stripped == [m[2:] for m in marked if m[0] == "0"]


def test_extended_engine_reports_malformed_vertical(tmp_path, capsys):
    text = MALFORMED.format(a="\n".join(A), b="\n".join(B), c="\n".join(C), a2="\n".join(A))
    rc, marked = onion(tmp_path, text, "--engine", "extended", "--whole-paragraphs", "--within-document",
                       "paragraphs", "-l", "10")
    assert rc == 0
    assert [m[2:] for m in marked] == text.split("\n")[:-1]     # nothing lost, order kept
    err = capsys.readouterr().err
    assert "in.vert:25: </p> without an open <p>" in err
    assert "in.vert:1: token outside a document" in err
    assert "in.vert:47: <doc> while the document from line 2 is still open" in err
    assert "in.vert:71: empty document" in err
    assert "in.vert:73: </doc> without an open <doc>" in err
    assert "the document from line 74 has no </doc>" in err
    assert "from line 1 is still open" not in err             # the implicit document just ends
    flag = {}
    for i, m in enumerate(marked):
        flag.setdefault(m[2:], []).append(m[0])
    # doc 2 repeats A: removed (with its tags); doc 3's last paragraph too
    assert flag["alpha0"] == ["0", "1", "1"]
    assert flag["gamma0"] == ["0"] and flag["Héllo"] == ["0"] and flag["<g/>"] == ["0"]
    assert flag['<doc id="empty">'] == ["0"]
    rc, stripped = onion(tmp_path, text, "-s", "-q", "--engine", "extended", "--whole-paragraphs",
                         "--within-document", "paragraphs", "-l", "10")
    assert stripped == [m[2:] for m in marked if m[0] == "0"]


def test_onion_cuts_overlong_documents(tmp_path, capsys):
    long_doc = vert_doc("1", [A, B, C])
    text = long_doc + vert_doc("2", [A, D])
    rc, marked = onion(tmp_path, text, "--max-doc-tokens", "30", "--engine", "extended", "--whole-paragraphs",
                       "--within-document", "paragraphs")
    assert rc == 0
    assert [m[2:] for m in marked] == text.split("\n")[:-1]
    assert "exceeds 30 tokens" in capsys.readouterr().err
    # the parts are de-duplicated separately but the document's own tags are never removed
    assert marked[0] == '0\t<doc id="1">'


def test_reader_keeps_non_utf8_bytes(tmp_path):
    raw = b'<doc id="1">\n<p>\nna\xefve\ncaf\xc3\xa9\n</p>\n</doc>\n'
    src = tmp_path / "in.vert"
    src.write_bytes(raw)
    out = tmp_path / "out.vert"
    assert cli_main(["onion", "-q", "-s", "-m", "-o", str(out), str(src)]) == 0
    assert out.read_bytes() == raw


def test_reader_structure():
    text = '<doc a="1">\nx\ty\tz\n<s>\nw\n</s>\n<p>\nq\n</p>\n\n</doc>\n'
    items = list(VerticalReader(text.splitlines(True), warn=lambda m: None))
    assert len(items) == 1 and isinstance(items[0], VerticalDocument)
    d = items[0]
    assert d.header == '<doc a="1">' and d.footer == "</doc>"
    assert [b.tokens for b in d.blocks] == [["x", "w"], ["q"], []]
    assert d.blocks[0].lines == ["x\ty\tz", "<s>", "w", "</s>"]


def test_dedup_para_stage_command():
    docs = [Document(id=str(i), paragraphs=[Paragraph(text=" ".join(p)) for p in ps]).to_dict()
            for i, ps in enumerate([[A, B], [C, A], [A]])]
    inp = "".join(json.dumps(d) + "\n" for d in docs)
    res = subprocess.run([sys.executable, "-m", "corpustool", "dedup-para", "-q", "--detail"], input=inp,
                         capture_output=True, text=True, cwd=REPO, timeout=60)
    assert res.returncode == 0, res.stderr
    out = [json.loads(l) for l in res.stdout.splitlines()]
    assert [d["id"] for d in out] == ["0", "1"]
    assert [p["class"] for p in out[1]["paragraphs"]] == ["good", "bad"]
    assert out[1]["paragraphs"][1]["reason"] == "duplicate"


def test_two_pass_for_jsonl_files(tmp_path):
    """dupngrams --jsonl (pass 1) + dedup-para --dup-ngrams (pass 2) == single-pass dedup-para."""
    corpus = random_corpus(11, docs=60)
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps(Document(id=str(i), paragraphs=[Paragraph(text=" ".join(p)) for p in d])
                                      .to_dict()) + "\n" for i, d in enumerate(corpus)), encoding="utf-8")
    hashes = tmp_path / "dups.bin"
    assert cli_main(["dupngrams", "--jsonl", "-q", "-o", str(hashes), str(src)]) == 0
    outs = []
    for extra in ([], ["--dup-ngrams", str(hashes)]):
        res = subprocess.run([sys.executable, "-m", "corpustool", "dedup-para", "-q", *extra],
                             stdin=open(src, encoding="utf-8"), capture_output=True, text=True, cwd=REPO,
                             timeout=60)
        assert res.returncode == 0, res.stderr
        outs.append(res.stdout)
    assert outs[0] == outs[1]
    assert '"reason":"duplicate"' in outs[0]


def test_onion_two_pass_reorder_command(tmp_path):
    arts = [words(f"art{i}x", 30) for i in range(3)]
    text = vert_doc("index", [a[:20] for a in arts]) + "".join(vert_doc(f"a{i}", [a]) for i, a in enumerate(arts))
    rc, plain = onion(tmp_path, text, "-q", "-s", "--two-pass")
    assert '<doc id="index">' in plain and '<doc id="a0">' not in plain
    rc, reordered = onion(tmp_path, text, "-q", "-s", "--two-pass", "--reorder")
    assert '<doc id="index">' not in reordered and '<doc id="a0">' in reordered
    # output stays in input order
    assert [l for l in reordered if l.startswith("<doc")] == ['<doc id="a0">', '<doc id="a1">', '<doc id="a2">']
    assert cli_main(["onion", "--reorder", str(tmp_path / "in.vert")]) == 2


def test_a_chain_of_filters_smooths_as_build_does(tmp_path):
    """The context smoothing (Sect. 3.5.2) revises by jusText's context-free classes; `clean`
    wrote them only under --detail and the filters between dropped them again, so
    `read | clean | langfilter | dedup-para | vert` kept the heading orphaned above a removed
    duplicate, which `build` removes (a new user's test, session 28)."""
    shared = ("When the river froze over in the winter of that year, the children of the village "
              "walked across the ice to the school on the other bank every morning for six weeks, and their "
              "parents stood on the shore and watched them until they reached the trees on the far side.")
    own = [["The mill by the bridge was built by the monks in the twelfth century and was still "
            "grinding flour for the bakers of the town when the railway came to the valley.",
            "Its wheel was turned by the water of a channel that the monks had dug from the river, "
            "and the channel can still be seen behind the houses on the western side of the square."],
           ["The old ferryman told the story of that winter to everyone who crossed with him in the "
            "spring, and he added a week to the frost each time he told it to a stranger on the boat.",
            "Nobody in the village minded, because by then the story belonged to all of them, and each "
            "family had its own version of who had been the first to cross the ice."]]
    pages = tmp_path / "pages"
    pages.mkdir()
    for i, heading in enumerate(["The frozen river", "Stories of the valley"]):
        body = [shared, *own[i]]
        (pages / f"{i}.html").write_text(
            f"<html lang=en><head><title>Page {i}</title></head><body><article><h1>{heading}</h1>"
            + "".join(f"<p>{t}</p>" for t in body) + "</article></body></html>", encoding="utf-8")

    def corpustool(*args, stdin=None):
        res = subprocess.run([sys.executable, "-m", "corpustool", *args], input=stdin, capture_output=True,
                             text=True, cwd=tmp_path, timeout=300)
        assert res.returncode == 0, res.stderr
        return res.stdout

    assert corpustool("build", "pages", "-o", "built.vert", "--lang", "en", "-q", "--no-sentences") == ""
    stream = corpustool("read", "pages")
    for stage in (["clean", "--lang", "en"], ["langfilter", "--lang", "en"], ["dedup-para"]):
        stream = corpustool(*stage, "-q", stdin=stream)
    piped = corpustool("vert", "--no-sentences", stdin=stream)

    def paragraphs(vert):
        return [line for line in vert.splitlines() if not line.startswith("<doc")]
    built = (tmp_path / "built.vert").read_text(encoding="utf-8")
    assert "Stories\nof\nthe\nvalley" not in built       # the heading of the removed duplicate goes
    assert paragraphs(piped) == paragraphs(built)
