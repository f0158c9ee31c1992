"""The keyword gate of template_lines: a pattern's search is skipped only when it cannot match.

``line_verdict`` asks one pass over the line (the compiled scan of
corpustool/native/text_scan.pyx, else pyahocorasick's automaton) which keyword
patterns can match it (their required strings, read from the patterns' parse
trees) and runs only those; when none can and no other check can fire, it
answers at once. These tests hold it to the ungated checks (the same function behind
a gate that lets every pattern through) on many lines, on both backends, and
the derivation of required strings to what every match must contain. (The
compiled scan against the automaton: tests/native/test_backend_parity.py.)
"""
from __future__ import annotations

import random
import re

import pytest

from corpustool.extractors import template_lines as T


class _EveryPattern:
    """A gate that lets every pattern through: line_verdict then searches them all."""

    def mask(self, line: str) -> int:
        return -1


def ungated_verdict(text: str, heading: bool, keep_meta: bool) -> tuple:
    """line_verdict with every pattern searched (the gate's mask all ones)."""
    gate = T.GATE
    T.GATE = _EveryPattern()
    try:
        return T.line_verdict.__wrapped__(text, heading, keep_meta)
    finally:
        T.GATE = gate


def keyword_lines(n: int, seed: int) -> list[str]:
    """Lines built around the patterns' own required strings: many match, many only nearly."""
    rng = random.Random(seed)
    keys = sorted({s for p in T._GATED for s in (T.required_strings(p) or ())})
    filler = ("the of und der la de w our your this article news photo share more read all rights "
              "2024 12.03.2021 foto: (l.) ( ) / : - \xa0 reserved newsletter app anzeige").split(" ")
    lines = []
    for _ in range(n):
        words = [rng.choice(keys) if rng.random() < 0.4 else rng.choice(filler) for _ in range(rng.randint(1, 9))]
        line = " ".join(words)
        if rng.random() < 0.2:
            line = line.upper()
        if rng.random() < 0.2:
            line = line.replace(" ", rng.choice(["", "\xa0", "  ", "\t"]))
        lines.append(line)
    return lines


def test_gate_agrees_with_every_pattern_searched(native_backend):
    lines = keyword_lines(6000, seed=11) + [
        "Share this article", "All rights reserved.", "Foto: dpa", "(REUTERS/Denis Balibouse)",
        "Symbolbild", "Vergrößern Eine kleine Kirche", "This entry was posted in News.", "Anzeige",
        "Abbildung 8: Die Kurve", "Mehr zum Thema", "Subscribe to our newsletter", "Getty Images",
        "Dieser Artikel enthält Affiliate-Links", "Wir respektieren deine Privatsphäre", "(c) 2024 Example",
        "A plain sentence about the weather in spring.", "", " ", "x" * 250, "y " * 210,
    ]
    for text in lines:
        for heading in (False, True):
            for keep_meta in (False, True):
                assert T.line_verdict.__wrapped__(text, heading, keep_meta) == ungated_verdict(text, heading, keep_meta), text


def test_gate_agrees_on_the_development_lines(snippets_dir, native_backend):
    """The gated verdict on the lines of every seventh page."""
    from corpustool.encoding import decode
    from corpustool.extractors.base import Page
    from corpustool.extractors.registry import get_extractor

    extractor = get_extractor("justext-plus")
    checked = 0
    for path in sorted((snippets_dir / "pages").glob("*.html"))[::7]:
        for p in extractor.extract(Page(decode(path.read_bytes()).text, stoplist=frozenset())):
            if len(p.text) < 400:
                assert T.line_verdict.__wrapped__(p.text, p.heading, False) == ungated_verdict(p.text, p.heading, False)
                checked += 1
    assert checked > 1000


def test_gate_skips_patterns_a_plain_line_cannot_match():
    assert T.GATE.always == 0       # every keyword pattern has required strings
    assert T.GATE.mask("the river rose in spring") == 0
    assert T.GATE.mask("share this article") & T.G_ACTION
    assert T.GATE.mask("alle rechte vorbehalten") & T.G_RIGHTS
    assert not T.GATE.mask("alle rechte vorbehalten") & T.G_AGENCY


@pytest.mark.parametrize("pattern, expected", [
    (r"\b(?:foo|ba(?:r|z))\d", {"foo", "ba"}),
    (r"(?:\w+ )?(?:apple|pear)s?\b", {"apple", "pear"}),
    (r"^\W*(?:bild )?(?:vergrößern|enlarge)\b", {"vergrößern", "enlarge"}),
    (r"share this|sign(?:ing)? up", {"hare", "ign"}),   # (the parser factors out the common "s")
    (r"share this article", {"article"}),                # whitespace is in no string; the longest piece
    (r"\((?:l|r)\.?\)", {"("}),
])
def test_required_strings_are_what_every_match_contains(pattern, expected):
    rx = re.compile(pattern)
    assert T.required_strings(rx) == expected
    rng = random.Random(3)
    alphabet = "abcdefghijklmnoprstuvwxyzäö()._ 0123456789" + "".join(expected)
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        s = s + rng.choice(sorted(expected)) + s[::-1] if rng.random() < 0.5 else s
        if rx.search(s):
            assert any(e in s for e in expected), s


@pytest.mark.parametrize("pattern", [r"\w+", r"\d{4}", r"(?i)share", r"a?b?", r"[^x]+y?"])
def test_no_required_strings_means_no_gate(pattern):
    assert T.required_strings(re.compile(pattern)) is None
    gate = T.KeywordGate([re.compile(pattern)])
    assert gate.mask("anything") == 1


def test_line_verdict_fast_path_boundaries(native_backend):
    """Lines at the edges of line_verdict's no-check-fires path give the full checks' verdict."""
    lines = ["(c) Example", "Example (C)", "{{ title }}", "&copy; 2024", "\xa9 2024 Example",
             "Posted 12 May 2021", "Termin: 12.05.2021", "12:30", "٣ مايو ٢٠٢١",
             "a " * 40, "a " * 41, "word " * 5, "word " * 6, "x" * 79 + "1", "x" * 80 + "1", "x" * 81 + "1",
             "y" * 199, "y" * 200, "z" * 399, "z" * 400, ("w" * 300) + " all rights reserved", "one two three"]
    for text in lines:
        for heading in (False, True):
            for keep_meta in (False, True):
                assert T.line_verdict.__wrapped__(text, heading, keep_meta) == ungated_verdict(text, heading, keep_meta), text


def test_a_gate_of_many_patterns_keeps_the_automaton():
    """More patterns than the compiled scan's bits: the automaton answers, exactly."""
    patterns = [re.compile(f"word{i}x") for i in range(70)]
    gate = T.KeywordGate(patterns)
    assert gate.compiled is None
    assert gate.mask("a word3x and a word69x") == (1 << 3) | (1 << 69)
