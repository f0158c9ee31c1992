"""Bad input never crashes a run: every page is kept or dropped with a counted reason."""
import random

from corpustool.document import Document
from corpustool.extractors.base import available
from corpustool.extractors.clean import Clean

TAGS = ["div", "p", "a", "br", "table", "td", "tr", "li", "ul", "h1", "span", "select", "option", "form",
        "script", "style", "textarea", "b", "html", "body", "head", "title", "?xml", "!--", "![CDATA["]


def tag_soup(rng: random.Random) -> bytes:
    parts = []
    for _ in range(rng.randint(0, 300)):
        r = rng.random()
        tag = rng.choice(TAGS)
        if r < 0.3:
            parts.append(f"<{tag}{' class=x' if rng.random() < 0.3 else ''}>")
        elif r < 0.5:
            parts.append(f"</{tag}>")
        elif r < 0.55:
            parts.append("<" * rng.randint(1, 3) + ">" * rng.randint(0, 3))
        elif r < 0.6:
            parts.append(bytes(rng.randrange(256) for _ in range(rng.randint(1, 20))).decode("latin-1"))
        else:
            parts.append(" ".join(rng.choice(["the", "of", "and", "Haus", "und", "že", "&amp;", "&#0;", "&#xD800;",
                                              "&bogus;", "©", "\x00", "\u202e"]) for _ in range(rng.randint(1, 40))))
    enc = rng.choice(["utf-8", "latin-1", "utf-16"])
    return "".join(parts).encode(enc, "replace")


def test_random_tag_soup_and_junk_never_crash_any_extractor():
    rng = random.Random(1234)
    pages = [tag_soup(rng) for _ in range(120)]
    pages += [b"", b"\x00" * 1000, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, b"<" * 5000,
              b"<div>" * 3000 + b"deep text " * 50, b"<html><body>" + b"<p>word " * 20000 + b"</body></html>"]
    for name in available():
        stage = Clean(extractor=name, languages=["en"])
        kept = 0
        for i, raw in enumerate(pages):
            out = stage.apply(Document(id=str(i), url=f"http://x.example/{i}", raw=raw))
            kept += out is not None
        s = stage.stats
        assert s.docs_in == len(pages)
        assert s.docs_out == kept and s.docs_out + sum(s.drops.values()) == len(pages), name
        assert not any(r.startswith("error:") for r in s.drops), (name, s.drops)


def test_page_over_the_size_limit_is_dropped_with_a_reason():
    stage = Clean(languages=["en"], max_bytes=1000)
    assert stage.apply(Document(id="big", raw=b"<p>" + b"x " * 2000)) is None
    assert stage.stats.drops == {"too-large": 1}


def test_control_characters_in_given_text_are_removed():
    import corpustool

    html = "<html><body><p>" + "This is the text of the article and it is long enough. \x01\x0b " * 8 + "</p></body></html>"
    assert "\x01" not in corpustool.extract_text(html, language="en")
    assert "This is the text" in corpustool.extract_text(html, language="en", extractor="justext-package")
