"""What only the compiled text scans have (corpustool/native/text_scan.pyx): their arguments, their
answers on edge inputs named here, the keyword gate's literal search. Skipped without the extension
(and on the forced Python backend); what they give inside the package is compared with the Python
code in test_backend_parity.py."""
from __future__ import annotations

import random

import pytest

from corpustool.native import backend

pytestmark = pytest.mark.skipif(not backend.text_scan.compiled, reason=f"the text scans: {backend.text_scan.reason}")


@pytest.fixture(scope="module")
def scan():
    return backend.text_scan.module


def test_chunk_words_refuses_bad_arguments(scan):
    from corpustool.language import identify as ident

    with pytest.raises(ValueError):
        scan.chunk_words({"a": 1}, b"\x00" * 10)
    with pytest.raises(TypeError):
        scan.chunk_words(["a"], ident._mark_flags())
    with pytest.raises(TypeError):
        scan.chunk_words({b"a": 1}, ident._mark_flags())


def test_stop_occurrences_lower_cases_as_str_lower(scan):
    from collections import Counter

    # "İ" lower-cases to two characters; ASCII capitals are lower-cased, ASCII lower case is kept
    counts = Counter("The THE the İ i\u0307 Und und x".split())
    assert scan.stop_occurrences(counts, frozenset({"the", "i\u0307", "und"})) == 7


def test_schema_type_names_on_edge_inputs(scan):
    names = (b"QAPage", b"Offer", b"Product", b"ItemList")
    # the first max_marks marks of each kind, overlapping marks, the end of the input
    assert scan.schema_type_names(b'"@type":"Offer" "@type":"Product"', names, 1) == 0b10
    assert scan.schema_type_names(b'"@type":"Offer" "@type":"Product"', names, 2) == 0b110
    assert scan.schema_type_names(b'"@type":"Offer"', names, 0) == 0
    assert scan.schema_type_names(b'"@type""@type":"Offer"', names, 512) == 0b10
    assert scan.schema_type_names(b'"@type" :\t[ "QAPage"', names, 512) == 0b1
    assert scan.schema_type_names(b'x"@type', names, 512) == 0
    assert scan.schema_type_names(b"schema.org/Product", names, 512) == 0b100
    assert scan.schema_type_names(b"schema.org/Products", names, 512) == 0
    assert scan.schema_type_names(bytearray(b"schema.org/QAPage"), names, 512) == 0b1
    with pytest.raises(TypeError):
        scan.schema_type_names(b"x", ("QAPage",), 512)


def test_first_control_is_where_the_pattern_finds_one(scan):
    """The index of the first control character strip_controls removes (the pattern's match), in
    strings of 1-, 2- and 4-byte characters; -1 without one."""
    from corpustool import encoding

    rng = random.Random(4)
    for _ in range(20000):
        s = "".join(chr(rng.choice([rng.randrange(0, 40), rng.randrange(0x80, 0x300), rng.randrange(0x10000, 0x10100),
                                    65])) for _ in range(rng.randint(0, 12)))
        found = encoding._CONTROL_CHARS.search(s)
        assert scan.first_control(s) == (found.start() if found else -1), repr(s)


def test_utf8_bytes_of_a_page(scan):
    page = "<p>\u201cQuoted\u201d caf\xe9 \x00text \ud800</p>\n" * 5000
    assert scan.utf8_bytes(page) == page.encode("utf-8", "surrogatepass").replace(b"\x00", b"")


def test_literal_gate_finds_strings_of_every_length_anywhere(scan):
    bits = {"(": 1, "cc": 2, "abc": 4, "abcd": 8, "bcde": 16, "zzzzzzzz": 32, "ü\U0001f600x": 64, "😀😀😀😀": 128}
    gate = scan.LiteralGate(bits, 256)
    rng = random.Random(8)
    alphabet = "abcdez(ü\U0001f600x "
    for _ in range(5000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        expected = 256
        for string, bit in bits.items():
            if string in line:
                expected |= bit
        assert gate.mask(line) == expected, line
    assert gate.mask("") == 256
    assert gate.mask("abcde") == 256 | 4 | 8 | 16      # overlapping strings, one at the very end
    assert gate.mask("xzzzzzzzz") == 256 | 32
