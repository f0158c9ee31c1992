#!/usr/bin/env python3
"""Build the de-duplication benchmark corpus: real texts with planted duplicates of known kind.

Texts: the clean text (good paragraphs, jusText with the stoplist of the page's
``<html lang>``) of the pages in ../shared/data/snippets, or generated text when
that directory is absent (or with --generated). The unique text is unique by the
measure the benchmarks count duplicates with: 10-grams of all tokens as the
vertical tokenizer gives them (punctuation included). A paragraph is removed when
it shares any 10-gram with earlier text, or repeats one inside itself, or, if
shorter than ten tokens, repeats an earlier paragraph's whole token sequence;
10-grams run across paragraph boundaries within a document. The originals are
made unique among themselves first, and every document's unique text is checked
again when it is emitted, against all text emitted before it (variants and
copies included), with the copies in it left out (see UniqueText).

Planted, for near-duplicate documents (issue 5), variants of an original with a
target resemblance drawn from [0.3, 1.0] (the edit amount is bisected until the
true resemblance is within 0.02 of the target):

* exact        an identical copy at another URL (mirror)
* substitute   words replaced by other words of the corpus vocabulary
* insert-delete  words deleted and random words inserted
* reorder      paragraphs shuffled, plus substitutions
* embedded     the original inside a longer document (unique filler text around it)
* furniture    page furniture (site boilerplate that slipped through) added or removed

For duplicate paragraphs (issue 6), "carrier" documents (unique originals)
receive paragraphs from earlier documents:

* exact      an unchanged copy of an earlier original paragraph
* edited     a copy with 1-10 % of its words substituted (edit_rate)
* quoted     an earlier paragraph quoted inside a new one ("As ... wrote: ...")
* furniture  site furniture repeated on every page of a site (the first page's
             copy is the original)

Output (default build/dedup-bench/): corpus.jsonl (Document dicts: id, url,
good paragraphs) and truth.json:

* near_pairs: {"a", "b", "resemblance", "resemblance_10", "kind"}: every
  (original, variant) pair, every pair of variants of one original
  ("sibling"), and pages of one site sharing furniture ("same-site"). a is
  earlier than b in the corpus. "resemblance" is the exact Jaccard of the word
  n-gram sets with n = "ngram" (the shingler's default), "resemblance_10" of
  the 10-gram sets (the thesis's measure).
* planted_paragraphs: {"doc", "index", "source_doc", "source_index",
  "edit_rate", "kind"} for carrier documents.
* documents: {"id", "role", "source_doc"?}: role is original, variant (a
  near-duplicate document: all its text except "filler_paragraphs" is copied)
  or carrier.
* original_paragraphs: [[doc, index], ...] of genuinely unique paragraphs:
  the first occurrence of every text (originals, carriers' own paragraphs,
  filler, first furniture of a site, quoted paragraphs' framing is not listed
  separately).

Deterministic: the same options give byte-identical files.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from corpustool.dedup.shingling import DEFAULT_NGRAM, shingle_hashes, word_tokens  # noqa: E402
from corpustool.document import Document, Paragraph  # noqa: E402
from corpustool.text.tokenizer import tokenize  # noqa: E402

SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
DEFAULT_OUT = REPO / "build" / "dedup-bench"
UNIQUE_N = 10
MIN_WORDS = 80
KINDS = ("exact", "substitute", "insert-delete", "reorder", "embedded", "furniture")
_LANG_RE = re.compile(rb"<html[^>]*\slang\s*=\s*[\"']?([A-Za-z]{2,3})", re.IGNORECASE)


# -- source texts -------------------------------------------------------------

def real_texts(snippets: Path, limit: int | None, quiet: bool) -> list[tuple[str, list[str]]]:
    """(url, good paragraph texts) of the snippet pages, in evaldata order."""
    from corpustool.errors import OptionError
    from corpustool.extractors.clean import Clean
    from corpustool.language.stoplists import resolve_language

    with open(snippets / "evaldata.json", encoding="utf-8") as fh:
        gold = json.load(fh)
    cleaners: dict[str, Clean] = {}
    out = []
    t0 = time.perf_counter()
    for url, entry in gold.items():
        path = snippets / "pages" / entry["file"]
        if not path.is_file():
            continue
        raw = path.read_bytes()
        m = _LANG_RE.search(raw[:20000])
        lang = "auto"
        if m:
            try:
                lang = resolve_language(m.group(1).decode("ascii"))
            except (OptionError, ValueError):
                lang = "auto"
        clean = cleaners.get(lang)
        if clean is None:
            clean = cleaners[lang] = Clean(languages=[lang])
        doc = Document(id=entry["file"], url=url, raw=raw)
        try:
            clean.process(doc)
        except Exception as exc:   # a bad page must not stop the build
            print(f"make_dedup_bench: {path.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        if doc.drop_reason:
            continue
        paras = [" ".join(p.text.split()) for p in doc.good_paragraphs()]
        paras = [p for p in paras if p]
        if paras:
            out.append((url, paras))
        if limit and len(out) >= limit:
            break
    if not quiet:
        print(f"make_dedup_bench: extracted {len(out)} texts in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return out


def generated_texts(count: int, rng: random.Random) -> list[tuple[str, list[str]]]:
    """Text in an invented language: Zipf-distributed vocabulary, sentences, paragraphs."""
    syll = ["ka", "lo", "mi", "ne", "ru", "ta", "si", "po", "de", "va", "zu", "ber", "an", "or", "el", "is"]
    vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(1, 4))) for _ in range(20000)})
    rng.shuffle(vocab)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    out = []
    for d in range(count):
        paras = []
        for _ in range(rng.randint(3, 12)):
            sents = []
            for _ in range(rng.randint(1, 5)):
                words = rng.choices(vocab, weights=weights, k=rng.randint(6, 25))
                sents.append(" ".join(words).capitalize() + ".")
            paras.append(" ".join(sents))
        out.append((f"https://gen{d % 97}.example/page/{d}", paras))
    return out


# -- helpers -------------------------------------------------------------------

def ngrams(words: list[str], n: int) -> set[tuple[str, ...]]:
    if len(words) < n:
        return {tuple(words)} if words else set()
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def words_of(texts: list[str]) -> list[str]:
    return word_tokens(Paragraph(t) for t in texts)


def jaccard(a: list[str], b: list[str], n: int) -> float:
    sa = set(shingle_hashes(words_of(a), n).tolist())
    sb = set(shingle_hashes(words_of(b), n).tolist())
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


class UniqueText:
    """Text unique by the measure the benchmarks count: 10-grams of all tokens.

    Tokens are those of the vertical tokenizer (corpustool.text.tokenizer, punctuation included),
    which bench_onion counts duplicate 10-grams of. A paragraph's keys are the 10-grams ending in
    it, starting in the paragraphs before it in its document too (10-grams run across paragraph
    boundaries, as the metric's do), and, when it has fewer than 10 tokens, its whole token
    sequence (a short paragraph is unique as a whole). A paragraph is new when none of its keys
    was seen, in the document before it included, and none repeats inside it.

    Keys are Python hashes of tuples of token ids: deterministic (ints hash alike in every
    process), and a collision only rejects a paragraph that was new.
    """

    def __init__(self, ids: dict[str, int] | None = None) -> None:
        self.ids: dict[str, int] = {} if ids is None else ids
        self.seen: set[int] = set()
        self.left_out = 0                 # candidates admit() left out

    def token_ids(self, text: str) -> tuple[int, ...]:
        ids = self.ids
        return tuple([ids.setdefault(t, len(ids)) for t in tokenize(text)[0]])

    @staticmethod
    def keys(tail: tuple[int, ...], toks: tuple[int, ...]) -> list[int]:
        """Keys of a paragraph after ``tail``, the last (at most UNIQUE_N - 1) tokens before it."""
        s = tail + toks
        out = [hash(s[i:i + UNIQUE_N]) for i in range(len(s) - UNIQUE_N + 1)]
        if len(toks) < UNIQUE_N:
            out.append(hash((-1,) + toks))
        return out

    def is_new(self, keys: list[int], local: set[int]) -> bool:
        seen = self.seen
        return len(set(keys)) == len(keys) and not any(k in seen or k in local for k in keys)

    def check_document(self, paras: list[str]) -> tuple[list[str], set[int]]:
        """The paragraphs that are new, in order (the others are left out), and their keys (not yet seen)."""
        tail: tuple[int, ...] = ()
        local: set[int] = set()
        kept = []
        for p in paras:
            toks = self.token_ids(p)
            keys = self.keys(tail, toks)
            # a paragraph without words ("+", "---") is no text to plant or rewrite
            if not toks or not self.is_new(keys, local) or not words_of([p]):
                continue
            local.update(keys)
            tail = (tail + toks)[-(UNIQUE_N - 1):]
            kept.append(p)
        return kept, local

    def admit(self, paras: list[str], candidates: list[bool]) -> list[bool]:
        """Which paragraphs of an emitted document stay, and everything it shows becomes seen.

        Candidates (its unique text) stay when new by the keys of the document's unique text alone
        (the other paragraphs left out, as a perfect de-duplicator would leave the document);
        the others (copies) always stay. Every kept paragraph's keys over the whole document are
        seen afterwards, so later unique text cannot repeat a copy's or a variant's text either.
        """
        tail: tuple[int, ...] = ()        # last tokens of the unique text
        tail_all: tuple[int, ...] = ()    # last tokens of all kept text
        local: set[int] = set()
        stays = []
        for p, cand in zip(paras, candidates):
            toks = self.token_ids(p)
            if cand:
                keys = self.keys(tail, toks)
                if not toks or not self.is_new(keys, local):
                    self.left_out += 1
                    stays.append(False)
                    continue
                local.update(keys)
                tail = (tail + toks)[-(UNIQUE_N - 1):]
            local.update(self.keys(tail_all, toks))
            tail_all = (tail_all + toks)[-(UNIQUE_N - 1):]
            stays.append(True)
        self.seen |= local
        return stays


def substitute(words: list[str], rate: float, rng_seed: int, vocab: list[str]) -> list[str]:
    rng = random.Random(rng_seed)
    order = list(range(len(words)))
    rng.shuffle(order)
    repl = [rng.choice(vocab) for _ in words]
    out = list(words)
    for i in order[:int(round(rate * len(words)))]:
        out[i] = repl[i]
    return out


def insert_delete(words: list[str], rate: float, rng_seed: int, vocab: list[str]) -> list[str]:
    rng = random.Random(rng_seed)
    order = list(range(len(words)))
    rng.shuffle(order)
    k = int(round(rate * len(words)))
    deleted = set(order[:k // 2])
    inserts = {i: rng.choice(vocab) for i in order[len(order) - (k - k // 2):]} if k - k // 2 else {}
    out = []
    for i, w in enumerate(words):
        if i in inserts:
            out.append(inserts[i])
        if i not in deleted:
            out.append(w)
    return out


def split_like(words: list[str], template: list[str]) -> list[str]:
    """Cut a word list into paragraphs of the template's proportions."""
    sizes = [max(1, len(t.split())) for t in template]
    total = sum(sizes)
    out, pos = [], 0
    for i, s in enumerate(sizes):
        # (rounded sizes can add up to more than the words: no empty paragraph after the last word)
        end = len(words) if i == len(sizes) - 1 else min(len(words), pos + round(s * len(words) / total))
        if end > pos:
            out.append(" ".join(words[pos:end]))
        pos = end
    return out or [" ".join(words)]


def furniture_for(site: int, rng: random.Random, vocab: list[str], uniq: UniqueText) -> list[str]:
    """Two or three site boilerplate paragraphs, unique to the site."""
    while True:
        name = " ".join(rng.choice(vocab).capitalize() for _ in range(2))
        lines = [
            f"Copyright © {2005 + site % 15} {name} {rng.choice(vocab)} Ltd. All rights reserved. "
            f"Reproduction of {rng.choice(vocab)} content without permission of {name} is prohibited.",
            f"Subscribe to the {name} newsletter for {rng.choice(vocab)} {rng.choice(vocab)} news, "
            f"{rng.choice(vocab)} offers and updates every {rng.choice(vocab)} week.",
            f"Home | {rng.choice(vocab).capitalize()} | {rng.choice(vocab).capitalize()} | "
            f"About {name} | Contact {rng.choice(vocab)} | Privacy {rng.choice(vocab)}",
        ][:rng.randint(2, 3)]
        kept, keys = uniq.check_document(lines)
        if kept == lines:
            uniq.seen |= keys
            return lines


# -- the builder -----------------------------------------------------------------

def build(texts: list[tuple[str, list[str]]], seed: int, ngram: int, variant_share: float,
          carrier_share: float, quiet: bool) -> tuple[list[dict], dict]:
    rng = random.Random(seed)
    # the originals' text made unique among itself first (roles, vocabulary and filler come from
    # it); the text shown is checked again as it is emitted (see emit)
    uniq = UniqueText()
    originals: list[tuple[str, list[str]]] = []
    for url, paras in texts:
        kept, keys = uniq.check_document(paras)
        if len(words_of(kept)) < MIN_WORDS:
            continue
        uniq.seen |= keys
        originals.append((url, kept))
    shown = UniqueText(uniq.ids)          # all text emitted so far
    vocab = sorted({w for _, paras in originals for w in words_of(paras) if w.isalpha() and len(w) > 2})
    if len(vocab) < 100:
        raise SystemExit("make_dedup_bench: too little text to build a benchmark")
    # roles: filler (never emitted alone), variant sources, carriers, plain originals
    idx = list(range(len(originals)))
    rng.shuffle(idx)
    n_filler = max(1, len(idx) // 10)
    filler_pool = [originals[i][1] for i in sorted(idx[:n_filler])]
    rest = sorted(idx[n_filler:])
    role = {}
    for i in rest:
        x = rng.random()
        role[i] = "source" if x < variant_share else "carrier" if x < variant_share + carrier_share else "original"

    corpus: list[dict] = []               # {"id", "url", "paras": [...], "labels": [...]}
    pending: list[tuple[int, dict]] = []  # (emit after this many more originals, doc)
    near_pairs: list[dict] = []
    planted: list[dict] = []
    documents: list[dict] = []
    original_paras: list[tuple[str, int]] = []      # unique paragraphs emitted so far (doc id, index)
    para_text: dict[tuple[str, int], str] = {}
    sites: dict[int, dict] = {}
    variants_of: dict[str, list[tuple[str, list[str]]]] = {}
    text_of: dict[str, list[str]] = {}
    site_pages: dict[int, list[str]] = {}
    furniture_first: dict[str, str] = {}  # a furniture line -> the document that shows it first
    filler_i = 0
    counter = 0

    def new_id() -> str:
        nonlocal counter
        counter += 1
        return f"bench-{counter:05d}"

    def emit(doc: dict) -> None:
        """Emit a document, its unique text ("original" paragraphs) checked against all text emitted.

        Unique text that repeats earlier text (a variant's or a copy's included) or itself, by
        UniqueText's measure, is left out. A site's furniture line is unique text on the first
        page that shows it and a copy (planted, in a page of the site; "copy" in a variant) after.
        """
        labels = doc["labels"]
        furniture = [isinstance(lab, tuple) and lab[0] == "furniture" for lab in labels]
        for i, lab in enumerate(labels):
            if furniture[i]:
                first = furniture_first.get(doc["paras"][i])
                labels[i] = ("original" if first is None else
                             ("planted", "furniture", first, None, 0.0) if lab[1] == "planted" else "copy")
        stays = shown.admit(doc["paras"], [lab == "original" for lab in labels])
        doc["paras"] = [p for p, k in zip(doc["paras"], stays) if k]
        doc["labels"] = [lab for lab, k in zip(labels, stays) if k]
        for p, lab, f in zip(doc["paras"], doc["labels"], [f for f, k in zip(furniture, stays) if k]):
            if f and lab == "original":
                furniture_first[p] = doc["id"]
        corpus.append(doc)
        text_of[doc["id"]] = doc["paras"]
        for i, lab in enumerate(doc["labels"]):
            if lab == "original":
                original_paras.append((doc["id"], i))
                para_text[(doc["id"], i)] = doc["paras"][i]

    def next_filler(words_needed: int) -> list[str]:
        nonlocal filler_i
        out: list[str] = []
        while len(words_of(out)) < words_needed:
            src = filler_pool[filler_i % len(filler_pool)]
            if filler_i >= len(filler_pool):      # pool exhausted: never repeat filler text
                return out
            filler_i += 1
            out.extend(src)
        return out

    def get_site(site: int) -> dict:
        if site not in sites:
            sites[site] = {"lines": furniture_for(site, random.Random(seed * 1000 + site), vocab, uniq)}
        return sites[site]

    def add_furniture(doc: dict, site_no: int) -> None:
        s = get_site(site_no)
        for line in s["lines"]:
            doc["paras"].append(line)
            doc["labels"].append(("furniture", "planted"))     # resolved by emit
        site_pages.setdefault(site_no, []).append(doc["id"])

    def make_variant(paras: list[str], pure: list[str] | None, kind: str, target: float,
                     vseed: int) -> tuple[list[str], list[str]] | None:
        """(paragraphs, labels) of a variant whose resemblance is near the target."""
        words = words_of(paras)
        if kind == "exact":
            return list(paras), ["copy"] * len(paras)
        if kind in ("substitute", "insert-delete", "reorder"):
            def make(rate: float) -> list[str]:
                src = paras
                if kind == "reorder":
                    order = list(range(len(paras)))
                    random.Random(vseed).shuffle(order)
                    src = [paras[i] for i in order]
                w = words_of(src)
                w = (insert_delete if kind == "insert-delete" else substitute)(w, rate, vseed, vocab)
                return split_like(w, src)
            lo, hi = 0.0, 0.9
            best = None
            for _ in range(14):
                mid = (lo + hi) / 2
                v = make(mid)
                r = jaccard(paras, v, ngram)
                if best is None or abs(r - target) < abs(best[1] - target):
                    best = (v, r)
                if abs(r - target) <= 0.01:
                    break
                if r > target:
                    lo = mid
                else:
                    hi = mid
            return best[0], ["copy"] * len(best[0])
        if kind == "embedded":
            # resemblance ~ |A| / |B|: filler words = |A| (1/target - 1), half before, half after
            need = int(len(words) * (1.0 / target - 1.0))
            filler = next_filler(need)
            if not filler:
                return None
            cut_w = 0
            before, after = [], []
            for p in filler:
                (before if cut_w < need / 2 else after).append(p)
                cut_w += len(p.split())
            v = before + list(paras) + after
            return v, ["original"] * len(before) + ["copy"] * len(paras) + ["original"] * len(after)
        if kind == "furniture":
            if pure is not None:            # the original shows site furniture: the copy drops it
                return list(pure), ["copy"] * len(pure)
            site = get_site(100 + vseed % 20)     # a print version / syndication with another site's furniture
            lines = site["lines"]
            return list(paras) + lines, ["copy"] * len(paras) + [("furniture", "copy")] * len(lines)
        raise ValueError(kind)

    emitted_originals = 0
    for i in rest:
        url, paras = originals[i]
        doc_id = new_id()
        r = role[i]
        labels = ["original"] * len(paras)
        doc = {"id": doc_id, "url": url, "paras": list(paras), "labels": labels}
        if r == "carrier" and original_paras:
            site = rng.randrange(12)
            host = f"https://site{site}.example"
            doc["url"] = f"{host}/{doc_id}"
            plants = []
            for _ in range(rng.randint(1, 3)):
                kind = rng.choice(("exact", "edited", "quoted"))
                src_doc, src_idx = original_paras[rng.randrange(len(original_paras))]
                text = para_text[(src_doc, src_idx)]
                rate = 0.0
                if kind == "edited":
                    rate = round(rng.uniform(0.01, 0.10), 3)
                    w = text.split()
                    k = max(1, int(round(rate * len(w))))
                    for j in rng.sample(range(len(w)), min(k, len(w))):
                        w[j] = rng.choice(vocab)
                    rate = round(k / max(1, len(w)), 4)
                    text = " ".join(w)
                elif kind == "quoted":
                    who = " ".join(rng.choice(vocab) for _ in range(2)).title()
                    text = (f"As {who} {rng.choice(vocab)} wrote on {rng.choice(vocab)}: \u201e{text}\u201c "
                            f"{rng.choice(vocab).capitalize()} {rng.choice(vocab)} {rng.choice(vocab)}.")
                plants.append((kind, src_doc, src_idx, rate, text))
            for kind, src_doc, src_idx, rate, text in plants:
                pos = rng.randint(0, len(doc["paras"]))
                doc["paras"].insert(pos, text)
                doc["labels"].insert(pos, ("planted", kind, src_doc, src_idx, rate))
            add_furniture(doc, site)
            emit(doc)
            documents.append({"id": doc_id, "role": "carrier"})
        else:
            pure = None
            if r == "source" and rng.random() < 0.3:      # this page shows its site's furniture
                site = rng.randrange(12)
                doc["url"] = f"https://site{site}.example/{doc_id}"
                add_furniture(doc, site)
                emit(doc)
                lines = set(get_site(site)["lines"])
                pure = [p for p in doc["paras"] if p not in lines]
            else:
                emit(doc)
            documents.append({"id": doc_id, "role": "original"})
        emitted_originals += 1
        if r == "source":
            for _ in range(rng.choice((1, 1, 2, 3))):
                kind = rng.choice(KINDS)
                lo_t = {"furniture": 0.6, "embedded": 0.3, "exact": 1.0}.get(kind, 0.3)
                target = 1.0 if kind == "exact" else rng.uniform(lo_t, 1.0 if kind != "embedded" else 0.95)
                made = make_variant(doc["paras"], pure, kind, target, rng.randrange(1 << 30))
                if made is None:
                    continue
                vparas, vlabels = made
                vurl = {"exact": doc["url"].replace("://", "://mirror."),
                        "furniture": doc["url"] + "?print=1"}.get(kind, doc["url"] + f"#v{counter}")
                pending.append((emitted_originals + rng.randint(0, 40),
                                {"id": None, "url": vurl, "paras": vparas, "labels": vlabels,
                                 "source": doc_id, "kind": kind}))
        # variants whose time has come (deterministic order)
        due = [p for p in pending if p[0] <= emitted_originals]
        pending = [p for p in pending if p[0] > emitted_originals]
        for _, v in due:
            emit_variant(v, new_id, emit, documents, variants_of)
    for _, v in sorted(pending, key=lambda p: p[0]):
        emit_variant(v, new_id, emit, documents, variants_of)

    # planted paragraph records with final indices
    for doc in corpus:
        for i, lab in enumerate(doc["labels"]):
            if isinstance(lab, tuple) and lab[0] == "planted":
                _, kind, src_doc, src_idx, rate = lab
                if kind == "furniture":
                    first = text_of[src_doc]
                    src_idx = first.index(doc["paras"][i])
                planted.append({"doc": doc["id"], "index": i, "source_doc": src_doc, "source_index": src_idx,
                                "edit_rate": rate, "kind": kind})
    # near pairs: (source, variant), siblings, same-site pages
    pos = {d["id"]: n for n, d in enumerate(corpus)}
    for src, vs in variants_of.items():
        for vid, kind in vs:
            near_pairs.append(_pair(src, vid, kind, text_of, ngram, pos))
        for x in range(len(vs)):
            for y in range(x + 1, len(vs)):
                near_pairs.append(_pair(vs[x][0], vs[y][0], "sibling", text_of, ngram, pos))
    for site, pages in sorted(site_pages.items()):
        for x in range(min(len(pages), 6)):
            for y in range(x + 1, min(len(pages), 6)):
                near_pairs.append(_pair(pages[x], pages[y], "same-site", text_of, ngram, pos))
    near_pairs.sort(key=lambda p: (pos[p["a"]], pos[p["b"]]))

    docs_out = []
    for doc in corpus:
        d = Document(id=doc["id"], url=doc["url"], paragraphs=[Paragraph(t) for t in doc["paras"]])
        docs_out.append(d.to_dict(detail=False))
    # furniture in variant documents repeats a site's lines: planted too (not carriers, but listed for issue 6)
    truth = {
        "ngram": ngram,
        "seed": seed,
        "unique_n": UNIQUE_N,
        "documents": documents,
        "near_pairs": near_pairs,
        "planted_paragraphs": planted,
        "original_paragraphs": [[d, i] for d, i in original_paras],
        "counts": {
            "documents": len(corpus),
            "originals": sum(1 for d in documents if d["role"] == "original"),
            "carriers": sum(1 for d in documents if d["role"] == "carrier"),
            "variants": sum(1 for d in documents if d["role"] == "variant"),
            "near_pairs": len(near_pairs),
            "planted_paragraphs": len(planted),
            "original_paragraphs": len(original_paras),
            "unique_left_out_on_emission": shown.left_out,
        },
    }
    if not quiet:
        print(f"make_dedup_bench: {truth['counts']}", file=sys.stderr)
    return docs_out, truth


def emit_variant(v: dict, new_id, emit, documents: list, variants_of: dict) -> None:
    v["id"] = new_id()
    emit(v)      # added furniture: unique text only on the first page that shows it
    fill = [i for i, lab in enumerate(v["labels"]) if lab == "original"]
    documents.append({"id": v["id"], "role": "variant", "source_doc": v["source"], "kind": v["kind"],
                      "filler_paragraphs": fill})
    variants_of.setdefault(v["source"], []).append((v["id"], v["kind"]))


def _pair(a: str, b: str, kind: str, text_of: dict, ngram: int, pos: dict) -> dict:
    if pos[a] > pos[b]:
        a, b = b, a
    return {"a": a, "b": b, "resemblance": round(jaccard(text_of[a], text_of[b], ngram), 4),
            "resemblance_10": round(jaccard(text_of[a], text_of[b], 10), 4), "kind": kind}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(DEFAULT_OUT), help=f"output directory (default {DEFAULT_OUT})")
    ap.add_argument("--snippets", default=str(SNIPPETS), help="snippet pages directory (default ../shared/data/snippets)")
    ap.add_argument("--generated", action="store_true", help="use generated text even when the snippets exist")
    ap.add_argument("--size", type=int, default=0, help="at most this many source texts (default: all pages, "
                                                        "or 600 generated)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ngram", type=int, default=DEFAULT_NGRAM, help="n of the recorded resemblance")
    ap.add_argument("--variant-share", type=float, default=0.45, help="share of originals that get near-duplicates")
    ap.add_argument("--carrier-share", type=float, default=0.3, help="share of originals that receive planted paragraphs")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out).resolve()
    shared = (REPO.parent / "shared").resolve()
    if out == shared or shared in out.parents:
        ap.error("refusing to write into ../shared")
    snippets = Path(args.snippets)
    if not args.generated and (snippets / "evaldata.json").is_file():
        texts = real_texts(snippets, args.size or None, args.quiet)
        source = "snippets"
    else:
        texts = generated_texts(args.size or 600, random.Random(args.seed))
        source = "generated"
    docs, truth = build(texts, args.seed, args.ngram, args.variant_share, args.carrier_share, args.quiet)
    truth["source"] = source
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
    with open(out / "truth.json", "w", encoding="utf-8") as fh:
        json.dump(truth, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    if not args.quiet:
        print(f"make_dedup_bench: wrote {out / 'corpus.jsonl'} ({len(docs)} documents) and {out / 'truth.json'}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
