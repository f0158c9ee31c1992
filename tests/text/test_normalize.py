"""Values cut to what the corpus managers store: between user-perceived characters, or between the
code points of one that is over the limit by itself (a new user's zalgo title came out empty)."""
from __future__ import annotations

import subprocess
import sys

from corpustool.text.normalize import MAX_TOKEN_BYTES, MAX_VALUE_BYTES, bound_tokens, clean_value, cut_utf8
from tests.support.paths import REPO

ZALGO = "e" + "\u0301" * 3000            # one user-perceived character of 6,001 bytes


def test_a_value_is_cut_between_user_perceived_characters():
    # the accent stays with its letter: the letter goes too rather than lose its accent
    assert cut_utf8("ab" + "e\u0301" + "x", 4) == "ab"
    assert clean_value("a" * 4094 + "e\u0303") == ("a" * 4094, True)
    assert cut_utf8("abc", 3) == "abc" and cut_utf8("abc\u00e9", 4) == "abc"


def test_a_character_over_the_limit_by_itself_is_cut_between_code_points():
    value, cut = clean_value(ZALGO)
    assert cut and value.startswith("\u00e9\u0301") and 4090 < len(value.encode()) <= MAX_VALUE_BYTES
    value, cut = clean_value("T " + ZALGO + " end")
    assert cut and value.startswith("T \u00e9\u0301") and 4090 < len(value.encode()) <= MAX_VALUE_BYTES
    assert cut_utf8(ZALGO, 10) == "e\u0301\u0301\u0301\u0301" and cut_utf8("x" + ZALGO, 10) == "xe" + "\u0301" * 4


def test_a_token_of_one_long_character_is_split_into_long_pieces():
    # (it was split into 3,001 glued pieces of one code point each)
    tokens, glue, split, _ = bound_tokens([ZALGO], [False])
    assert "".join(tokens) == ZALGO and split == 1 and glue == [False, True]
    assert [len(t.encode()) for t in tokens] == [MAX_TOKEN_BYTES, len(ZALGO.encode()) - MAX_TOKEN_BYTES]


def test_the_title_of_a_zalgo_page_is_kept(tmp_path):
    body = ("<p>The harbour master said on Monday that the new quay would be finished before the winter "
            "storms, and that the fishing boats could then stay in the inner basin when the sea is rough.</p>")
    for i, title in enumerate((ZALGO, "T " + ZALGO + " end")):
        page = tmp_path / f"p{i}.html"
        page.write_text(f"<html lang=en><head><meta charset=utf-8><title>{title}</title></head><body>{body * 3}"
                        "</body></html>", encoding="utf-8")
        out = tmp_path / f"c{i}.vert"
        r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(page), "-o", str(out), "--lang", "en",
                            "-q"], capture_output=True, text=True, cwd=REPO, timeout=300)
        assert r.returncode == 0, r.stderr
        head = out.read_text(encoding="utf-8").split("\n", 1)[0]
        kept = head.split(' title="', 1)[1].split('"', 1)[0]
        assert kept.startswith(title[:2].replace("e\u0301", "\u00e9")) and 4090 < len(kept.encode()) <= 4095, kept[:10]


def test_a_value_drops_the_format_characters_its_tokens_drop():
    """A title beginning with a right-to-left mark, or holding an embedding never closed, kept them in
    title="..." while its tokens dropped them: a query for the title's exact words found nothing."""
    from corpustool.text.tokenizer import tokenize

    title = "\u200f\u202bשלום עולם\u202c - \u2067news\u2069 \u00adsite"
    value, cut = clean_value(title)
    assert value == "שלום עולם - news site" and not cut
    assert value.split() == [t for t in tokenize(title)[0]]
    # what stays: a joiner inside an emoji sequence or a Persian word, as the tokens keep it
    assert clean_value("👩\u200d💻 می\u200cخواهم")[0] == "👩\u200d💻 می\u200cخواهم"
