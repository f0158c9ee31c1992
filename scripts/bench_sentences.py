#!/usr/bin/env python3
"""Sentence splitting and tokenization against Universal Dependencies treebanks.

Data: ``../shared/data/ud/`` (English EWT, German GSD, Czech CAC development
treebanks, CoNLL-U). Skips with a message (exit 0) when it is absent.

Texts. A paragraph (``# newpar``) is its sentences' ``# text`` joined with one
space; a document without paragraphs (Czech CAC) is cut into texts of
:data:`CHUNK` consecutive sentences (a cut is never counted as a boundary).
German GSD has neither documents nor paragraphs: its sentences are cut into
pseudo-documents of :data:`CHUNK` sentences.

Halves. Each treebank's documents (``# newdoc``; GSD: the pseudo-documents)
are numbered in file order; the even ones are the *tuning* half (the only text
the splitter's rules were tuned on), the odd ones the *held-out* half, whose
figures are the headline. A document is never in both halves (CAC's three
documents: administrative a10w and scientific s10w tune, journalistic n10w is
held out).

Sentence boundaries. A boundary is a position inside a text where a gold
sentence starts (the start of the text itself is not counted), measured as the
number of non-space characters before it, so splitters that return strings
(sentencex, pysbd) and ours (token spans) are compared on the same scale.
Precision, recall and F1 are micro-averaged over all boundaries of a half.

Tokens. Each gold sentence's surface tokens (multi-word ranges such as
``zum`` = ``zu dem`` count once) against ``tokenize()`` of the same text:
token-boundary precision/recall/F1 (token end positions in non-space
characters, i.e. only the boundaries that do not fall at white space are
hard; both figures are given), and glue agreement: the share of gold tokens
(but each sentence's first) where one of ours starts with the same glue flag
(gold: ``SpaceAfter=No`` on the previous token), i.e. where the vertical file
has the treebank's token start and the same ``<g/>`` decision.

Fresh held-out sets. ``--extra LANG=PATH`` (repeatable) measures sentence
boundaries on another CoNLL-U file of the language, every document of it held
out (no rule was ever read off it); comment lines (``# newdoc``, ``# newpar``,
``# text``) are enough. docs/sentences.md says which file was used for Czech
(a sample of UD Czech-PDT's test treebank) and how to get it.

Usage: python scripts/bench_sentences.py [--tuning-only] [--errors LANG] [--extra LANG=PATH]
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

UD = REPO.parent / "shared" / "data" / "ud"
TREEBANKS = {"en": "en_ewt-ud-dev.conllu", "de": "de_gsd-ud-dev.conllu", "cs": "cs_cac-ud-dev.conllu"}
NAMES = {"en": "English EWT", "de": "German GSD", "cs": "Czech CAC"}
CHUNK = 20
PYSBD_LANGS = {"en", "hi", "mr", "zh", "es", "am", "ar", "hy", "bg", "ur", "ru", "pl", "fa", "nl", "da",
               "fr", "my", "el", "it", "ja", "de", "kk", "sk"}
_SPACE = re.compile(r"\s+")
# characters our tokenizer drops (format characters): not counted on either side
_DROPPED = re.compile("[\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def nonspace_len(s: str) -> int:
    return len(_DROPPED.sub("", _SPACE.sub("", s)))


@dataclass
class Sentence:
    text: str
    tokens: list[tuple[str, bool]] = field(default_factory=list)   # (surface form, SpaceAfter=No)


@dataclass
class Text:
    unit: int                 # document / pseudo-document number (even: tuning, odd: held-out)
    sentences: list[Sentence]

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    def boundaries(self) -> set[int]:
        out, pos = set(), 0
        for s in self.sentences[:-1]:
            pos += nonspace_len(s.text)
            out.add(pos)
        return out


def read_conllu(path: Path) -> list[Text]:
    """Texts (paragraphs, or documents without paragraphs) with their unit numbers."""
    docs: list[list[list[Sentence]]] = []       # doc -> paragraphs -> sentences
    has_par = False
    cur: Sentence | None = None
    multi_end = 0
    new_doc = new_par = False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("# newdoc"):
                new_doc = True
            elif line.startswith("# newpar"):
                new_par = has_par = True
            elif line.startswith("# text = "):
                cur = Sentence(line[len("# text = "):])
                if new_doc or not docs:
                    docs.append([[]])
                elif new_par:
                    docs[-1].append([])
                new_doc = new_par = False
                docs[-1][-1].append(cur)
                multi_end = 0
            elif line and not line.startswith("#") and cur is not None:
                cols = line.split("\t")
                tid = cols[0]
                if "." in tid:                       # empty node
                    continue
                glued = "SpaceAfter=No" in cols[9]
                if "-" in tid:
                    a, b = tid.split("-")
                    multi_end = int(b)
                    cur.tokens.append((cols[1], glued))
                elif int(tid) > multi_end:
                    cur.tokens.append((cols[1], glued))
    texts: list[Text] = []
    if len(docs) >= 2:
        # halves by document: a document's texts (paragraphs, or runs of CHUNK sentences when it
        # has no paragraphs) all carry its number, so no document is in both halves
        for u, doc in enumerate(docs):
            if has_par:
                texts.extend(Text(u, p) for p in doc if p)
            else:
                sents = [s for p in doc for s in p]
                texts.extend(Text(u, sents[i:i + CHUNK]) for i in range(0, len(sents), CHUNK))
    else:
        u = 0
        for doc in docs:
            sents = [s for p in doc for s in p]
            for i in range(0, len(sents), CHUNK):
                texts.append(Text(u, sents[i:i + CHUNK]))
                u += 1
    return texts


# -- splitters: text -> set of boundary positions (non-space characters before each sentence start)

def _string_boundaries(sentences) -> set[int]:
    out, pos = set(), 0
    for s in sentences:
        n = nonspace_len(s)
        if n == 0:
            continue
        if pos:
            out.add(pos)
        pos += n
    return out


def ours(lang: str):
    from corpustool.text.sentences import sentence_spans
    from corpustool.text.tokenizer import tokenize

    def split(text: str) -> set[int]:
        tokens, glue = tokenize(text)
        ends = []
        pos = 0
        for t in tokens:
            pos += nonspace_len(t)
            ends.append(pos)
        return {ends[end - 1] for start, end in sentence_spans(tokens, glue, lang) if end < len(tokens)}
    return split


def old_rule(lang: str):
    from corpustool.text.tokenizer import tokenize

    def split(text: str) -> set[int]:
        tokens, _ = tokenize(text)
        ends, pos = [], 0
        for t in tokens:
            pos += nonspace_len(t)
            ends.append(pos)
        return {ends[end - 1] for start, end in _old_sentence_spans(tokens) if end < len(tokens)}
    return split


_OLD_END = {".", "!", "?", "…", "...", "。", "！", "？"}


def _old_sentence_spans(tokens):
    """The rule corpustool had before corpustool/text/sentences.py (for comparison)."""
    spans, start, n = [], 0, len(tokens)
    for i, tok in enumerate(tokens):
        if tok in _OLD_END and i + 1 < n:
            nxt = tokens[i + 1]
            if tok in ("。", "！", "？"):
                spans.append((start, i + 1))
                start = i + 1
                continue
            if nxt in _OLD_END or nxt in ('"', "'", "»", "”", ")"):
                continue
            if nxt[:1].isupper() or not nxt[:1].isalpha():
                spans.append((start, i + 1))
                start = i + 1
    if start < n:
        spans.append((start, n))
    return spans


def sentencex_splitter(lang: str):
    try:
        from sentencex import segment
    except ImportError:
        return None
    return lambda text: _string_boundaries(segment(lang, text))


def pysbd_splitter(lang: str):
    if lang not in PYSBD_LANGS:
        return None
    try:
        import pysbd
    except ImportError:
        return None
    seg = pysbd.Segmenter(language=lang, clean=False)
    return lambda text: _string_boundaries(seg.segment(text))


SPLITTERS = {"ours": ours, "sentencex": sentencex_splitter, "pysbd": pysbd_splitter, "old rule": old_rule}


@dataclass
class PRF:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, gold: set, pred: set) -> None:
        self.tp += len(gold & pred)
        self.fp += len(pred - gold)
        self.fn += len(gold - pred)

    @property
    def p(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def r(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f(self) -> float:
        return 2 * self.p * self.r / (self.p + self.r) if self.p + self.r else 0.0


HALVES = {"held-out": 1, "tuning": 0}


def sentence_scores(lang: str, texts: list[Text], names=("ours", "sentencex", "pysbd")) -> dict:
    """{half: {splitter: PRF}} (a splitter that does not support the language is left out)."""
    out: dict[str, dict[str, PRF]] = {h: {} for h in HALVES}
    for name in names:
        split = SPLITTERS[name](lang)
        if split is None:
            continue
        for half, parity in HALVES.items():
            prf = PRF()
            for t in texts:
                if t.unit % 2 == parity:
                    prf.add(t.boundaries(), split(t.text))
            out[half][name] = prf
    return out


def token_scores(texts: list[Text]) -> dict:
    """{half: (boundary PRF over all token ends, PRF over ends not at white space, glue agreement)}"""
    from corpustool.text.tokenizer import tokenize
    out = {}
    for half, parity in HALVES.items():
        allb, hard, agree, n = PRF(), PRF(), 0, 0
        for t in texts:
            if t.unit % 2 != parity:
                continue
            for s in t.sentences:
                gold_ends, gold_glue, pos = set(), {}, 0
                space_ends = set()
                prev_glued = False
                for i, (form, glued) in enumerate(s.tokens):
                    gold_glue[pos] = prev_glued if i else False
                    pos += nonspace_len(form)
                    gold_ends.add(pos)
                    prev_glued = glued
                # ends at white space in the text itself
                p = 0
                for chunk in s.text.split():
                    p += nonspace_len(chunk)
                    space_ends.add(p)
                toks, glue = tokenize(s.text)
                pred_ends, pred_glue, pos = set(), {}, 0
                for tok, g in zip(toks, glue):
                    pred_glue[pos] = g
                    pos += nonspace_len(tok)
                    pred_ends.add(pos)
                allb.add(gold_ends, pred_ends)
                hard.add(gold_ends - space_ends, pred_ends - space_ends)
                for start, g in gold_glue.items():
                    if start:
                        n += 1
                        agree += start in pred_glue and pred_glue[start] == g
        out[half] = (allb, hard, agree / n if n else 1.0, n)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--errors", metavar="LANG", help="print our errors on the tuning half of LANG")
    ap.add_argument("--langs", default="en,de,cs")
    ap.add_argument("--old", action="store_true", help="also measure the rule corpustool had before")
    ap.add_argument("--tuning-only", action="store_true", help="report the tuning half only (while developing)")
    ap.add_argument("--extra", action="append", default=[], metavar="LANG=PATH",
                    help="also measure sentence boundaries on this CoNLL-U file, all of it held out")
    args = ap.parse_args(argv)
    extras = []
    for spec in args.extra:
        lang, sep, path = spec.partition("=")
        if not sep or not lang or not Path(path).is_file():
            ap.error(f"--extra wants LANG=PATH of an existing file, got {spec!r}")
        extras.append((lang, Path(path)))
    langs = args.langs.split(",")
    if not UD.is_dir():
        print(f"skipped: {UD} is not present")
        if not extras:
            return 0
        langs = []
    if args.errors:
        return show_errors(args.errors, read_conllu(UD / TREEBANKS[args.errors]))
    names = ("ours", "sentencex", "pysbd") + (("old rule",) if args.old else ())
    t0 = time.time()
    results = {}
    for lang in langs:
        texts = read_conllu(UD / TREEBANKS[lang])
        results[lang] = (texts, sentence_scores(lang, texts, names), token_scores(texts))
    halves = ["tuning"] if args.tuning_only else list(HALVES)
    for half in halves:
        print(f"\nSentence boundaries, {half} half (P / R / F1; boundaries)")
        print(f"{'language':<14}" + "".join(f"{n:>24}" for n in names))
        for lang in langs:
            texts, scores, _ = results[lang]
            nb = sum(len(t.boundaries()) for t in texts if t.unit % 2 == HALVES[half])
            row = f"{lang + ' (' + str(nb) + ')':<14}"
            for n in names:
                prf = scores[half].get(n)
                row += f"{'—':>24}" if prf is None else f"{prf.p:>10.3f} {prf.r:.3f} {prf.f:.3f}"
            print(row)
    for half in halves:
        print(f"\nTokenizer against the surface tokens, {half} half")
        print(f"{'language':<10}{'boundary P/R/F1 (all)':>26}{'inside chunks P/R/F1':>26}{'glue agreement':>18}")
        for lang in langs:
            allb, hard, agree, n = results[lang][2][half]
            print(f"{lang:<10}{allb.p:>12.3f} {allb.r:.3f} {allb.f:.3f}{hard.p:>12.3f} {hard.r:.3f} {hard.f:.3f}"
                  f"{agree:>12.4f} ({n})")
    for lang, path in extras:
        texts = read_conllu(path)
        for t in texts:                  # every text of a fresh set is held out
            t.unit = 2 * t.unit + 1
        scores = sentence_scores(lang, texts, names)["held-out"]
        nb = sum(len(t.boundaries()) for t in texts)
        print(f"\nSentence boundaries, fresh held-out set {path.name} ({lang}; "
              f"{sum(len(t.sentences) for t in texts)} sentences, {nb} boundaries; P / R / F1)")
        for n in names:
            prf = scores.get(n)
            print(f"{n:<14}" + ("—" if prf is None else f"{prf.p:.3f} / {prf.r:.3f} / {prf.f:.3f}"
                                f"   (tp {prf.tp}, fp {prf.fp}, fn {prf.fn})"))
    print(f"\n({time.time() - t0:.1f} s)")
    return 0


def show_errors(lang: str, texts: list[Text]) -> int:
    """Our errors on the tuning half only (the held-out half is never looked at)."""
    split = ours(lang)
    for t in texts:
        if t.unit % 2:
            continue
        text = t.text
        gold, pred = t.boundaries(), split(text)
        if gold == pred:
            continue
        # mark positions in the text
        marks = {}
        for b in gold - pred:
            marks[b] = " ⟦FN⟧ "
        for b in pred - gold:
            marks[b] = " ⟦FP⟧ "
        out, count = [], 0
        for ch in text:
            if not ch.isspace() and not _DROPPED.match(ch):
                if count in marks:
                    out.append(marks.pop(count))
                count += 1
            out.append(ch)
        s = "".join(out)
        for m in re.finditer("⟦F[NP]⟧", s):
            print(s[max(0, m.start() - 70):m.end() + 50].replace("\n", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
