"""The structure rules' faster code gives what their plain definitions give (issues 19/20 speed).

``record_families`` builds each element's chain of records once instead of the keys of every
paragraph's every step; :func:`plain_record_families` below is the definition written the
straightforward way (the code before the change). They must agree on every page, to the order
of the families, their records and their members, whichever paragraphs are eligible.
"""
from __future__ import annotations

import gzip
import random

import pytest

from corpustool.document import Paragraph
from corpustool.encoding import decode
from corpustool.extractors import justext_plus_structure as structure
from corpustool.extractors.base import Page
from corpustool.extractors.registry import get_extractor
from corpustool.language.stoplists import stoplist
from corpustool.native import backend
from tests.support.paths import SHARED_DATA

needs_sax_walk = pytest.mark.skipif(not backend.sax.compiled, reason=f"the compiled SAX walk: {backend.sax.reason}")

DATA = SHARED_DATA


def plain_record_families(paras, eligible, max_words=structure.MAX_RECORD_WORDS):
    families: dict[str, dict[str, list[int]]] = {}
    parts_of: dict[int, list[str]] = {}
    words = [0] * len(paras)
    for i, p in enumerate(paras):
        if not eligible[i]:
            continue
        w = words[i] = p.features.get("words", 0)
        if not w or not p.xpath:
            continue
        parts = parts_of[i] = p.xpath.strip("/").split("/")
        last = len(parts) - 1
        prefix = "/" + parts[0] + "/" + parts[1] if last >= 1 else ""
        for d in range(2, len(parts)):
            step = parts[d]
            cut = step.find("[")
            tag = step[:cut]
            if d == last and tag not in structure.SELF_RECORDS:
                break
            key = prefix + "/" + tag
            families.setdefault(key, {}).setdefault(step[cut:], []).append(i)
            prefix = key + step[cut:]
    out = []
    for key, records in families.items():
        n = len(records)
        if n < structure.MIN_RECORDS:
            continue
        total = sum(words[i] for members in records.values() for i in members)
        if not structure.MIN_RECORD_WORDS * n <= total <= max_words * n:
            continue
        d = key.count("/") - 1
        shapes: dict[frozenset, int] = {}
        for members in records.values():
            shape = frozenset("/".join(t.partition("[")[0] for t in parts_of[i][d + 1:]) for i in members)
            shapes[shape] = shapes.get(shape, 0) + 1
        if max(shapes.values()) < structure.SHAPE_SHARE * n:
            continue
        out.append((total, records))
    out.sort(key=lambda f: -f[0])
    return out


def same(a, b) -> bool:
    """Equal, dictionaries in the same order too."""
    return a == b and [list(records) for _, records in a] == [list(records) for _, records in b]


def para(xpath: str, words: int = 5) -> Paragraph:
    return Paragraph(text="w " * words, xpath=xpath, features={"words": words})


def test_record_families_edge_paths():
    # paths too short for a record, steps without an index, list items as their own records,
    # a list item holding paragraphs, an ineligible and an empty paragraph
    paras = [para("/html[1]"), para("/html[1]/body[1]"), para("/html[1]/body[1]/li[1]")]
    for k in range(1, 7):
        paras += [para(f"/html[1]/body[1]/div[1]/ul[1]/li[{k}]"), para(f"/html[1]/body[1]/div[1]/ul[1]/li[{k}]/p[1]"),
                  para(f"/html[1]/body[1]/div[2]/div[{k}]/h3[1]", 3), para(f"/html[1]/body[1]/div[2]/div[{k}]/p[1]"),
                  para(f"/html[1]/body[1]/div[3]/span/li[{k}]", 4), para(f"/html[1]/body[1]/div[4]/p[{k}]", 0)]
    rng = random.Random(7)
    for trial in range(20):
        eligible = [trial == 0 or rng.random() < 0.7 for _ in paras]
        assert same(structure.record_families(paras, eligible), plain_record_families(paras, eligible))
    assert len(structure.record_families(paras, [True] * len(paras))) >= 3


def dev_pages(limit: int):
    snippets = sorted((DATA / "snippets" / "pages").glob("*.html"))
    wcxb = sorted((DATA / "wcxb-dev" / "html").glob("*.html.gz"))
    if not snippets and not wcxb:
        pytest.skip("../shared/data is not present")
    for f in snippets[::max(1, len(snippets) // limit)] + wcxb[::max(1, len(wcxb) // limit)]:
        raw = f.read_bytes()
        yield decode(gzip.decompress(raw) if f.suffix == ".gz" else raw).text


def test_record_families_as_defined_on_dev_pages():
    extractor = get_extractor("justext-plus")
    rng = random.Random(3)
    pages = 0
    for html in dev_pages(60):
        paras = extractor.extract(Page(html, stoplist=stoplist("en")))
        for trial in range(3):
            eligible = [trial == 0 or rng.random() < 0.8 for _ in paras]
            plain = plain_record_families(paras, eligible)
            assert same(structure.record_families(paras, eligible), plain)
            # min_total leaves out the smaller families and nothing else
            if plain:
                cut = plain[len(plain) // 2][0]
                assert same(structure.record_families(paras, eligible, min_total=cut),
                            [f for f in plain if f[0] >= cut])
        pages += 1
    assert pages >= 100


def walked(html: str):
    """(paragraphs, PageTree) of the compiled SAX walk of a page, before any decision."""
    from corpustool.extractors import justext_engine, justext_plus as jp
    from corpustool.extractors.base import html_bytes

    extractor = get_extractor("justext-plus")
    found = justext_engine.WALK.evidence_html(html_bytes(html), True, stoplist("en"),
                                              extractor.engine.params_for(Page(html)), jp._evidence_settings())
    return (found[0], found[1]) if found is not None else (None, None)


@needs_sax_walk
def test_record_families_on_the_tree_as_defined_on_dev_pages():
    # the compiled walk's PageTree finds the families over its nodes: the same families, records,
    # members and order as the definition on the XPath strings
    pytest.importorskip("corpustool.native.justext_walk")
    rng = random.Random(5)
    pages = with_families = 0
    for html in dev_pages(80):
        paras, tree = walked(html)
        if not paras or tree is None:
            continue
        for trial in range(3):
            eligible = [trial == 0 or rng.random() < 0.8 for _ in paras]
            plain = plain_record_families(paras, eligible)
            assert tree.record_families([p.features.get("words", 0) for p in paras], eligible,
                                        structure.SELF_RECORDS, structure.MIN_RECORDS, structure.MIN_RECORD_WORDS,
                                        structure.MAX_RECORD_WORDS, 0) is not None
            assert same(structure.record_families(paras, eligible, tree=tree), plain)
            if plain:
                cut = plain[len(plain) // 2][0]
                assert same(structure.record_families(paras, eligible, min_total=cut, tree=tree),
                            [f for f in plain if f[0] >= cut])
                with_families += 1
        pages += 1
    assert pages >= 100 and with_families >= 20


def random_list_page(rng: random.Random) -> str:
    """Authored markup: lists of records, alike or not in shape, nested, among other blocks."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda".split()

    def text(k: int) -> str:
        return " ".join(rng.choice(words) for _ in range(k))

    def record(tag: str) -> str:
        inner = rng.choice(["<h3>{}</h3><p>{}</p>", "<p>{}</p><p>{}</p>", "<span>{}</span> {}",
                            "<div><a href='#'>{}</a></div><p>{}</p>", "{} <b>{}</b>"])
        body = inner.format(text(rng.randint(1, 4)), text(rng.randint(2, 30)))
        if rng.random() < 0.2:
            body += "<ul>" + "".join(f"<li>{text(rng.randint(2, 6))}</li>" for _ in range(rng.randint(1, 5))) + "</ul>"
        return f"<{tag}>{body}</{tag}>"

    blocks = []
    for _ in range(rng.randint(1, 6)):
        tag, outer = rng.choice([("li", "ul"), ("div", "section"), ("tr", "table"), ("article", "main"), ("dd", "dl")])
        records = "".join(record(tag if tag != "tr" else "tr") for _ in range(rng.randint(1, 12)))
        blocks.append(f"<{outer}>{records}</{outer}>")
        if rng.random() < 0.5:
            blocks.append(f"<p>{text(rng.randint(5, 60))}</p>")
    return "<html><body><div>" + "".join(blocks) + "</div></body></html>"


@needs_sax_walk
def test_record_families_on_the_tree_as_defined_on_authored_pages():
    # (the same comparison without ../shared: lists that pass and fail the shape test)
    pytest.importorskip("corpustool.native.justext_walk")
    rng = random.Random(17)
    found = shaped_out = 0
    for _ in range(300):
        paras, tree = walked(random_list_page(rng))
        if not paras or tree is None:
            continue
        eligible = [rng.random() < 0.9 for _ in paras]
        plain = plain_record_families(paras, eligible)
        assert same(structure.record_families(paras, eligible, tree=tree), plain)
        words = [p.features.get("words", 0) for p in paras]
        sized = tree.record_families(words, eligible, structure.SELF_RECORDS, structure.MIN_RECORDS,
                                     structure.MIN_RECORD_WORDS, structure.MAX_RECORD_WORDS, 0)
        found += len(plain)
        shaped_out += len(sized) - len(plain)
    assert found >= 100 and shaped_out >= 20


@needs_sax_walk
def test_record_families_on_the_tree_refuses_what_it_does_not_cover():
    pytest.importorskip("corpustool.native.justext_walk")
    paras, tree = walked("<html><body>" + "<ul>" + "<li>one two three four five</li>" * 6 + "</ul></body></html>")
    words = [p.features.get("words", 0) for p in paras]
    args = (structure.SELF_RECORDS, structure.MIN_RECORDS, structure.MIN_RECORD_WORDS, structure.MAX_RECORD_WORDS, 0)
    assert len(tree.record_families(words, [True] * len(paras), *args)) == 1
    assert tree.record_families(words[:-1], [True] * len(paras), *args) is None        # one word count short
    assert tree.record_families([2.5] * len(paras), [True] * len(paras), *args) is None   # not an int
    assert tree.record_families([1 << 50] * len(paras), [True] * len(paras), *args) is None


# -- the declared types: the compiled scan of the page's bytes finds what the regex finds --

def _regex_type_names(data: bytes, names: tuple, max_marks: int) -> int:
    """schema_type_names' definition: the bytes regex at each mark, the first max_marks of each."""
    mask = 0
    for mark in structure._TYPE_MARKS:
        at, seen = data.find(mark), 0
        while at != -1 and seen < max_marks:
            m = structure._TYPE_NAME.match(data, at)
            if m is not None and m.group(1) in names:
                mask |= 1 << names.index(m.group(1))
            at, seen = data.find(mark, at + len(mark)), seen + 1
    return mask


def test_schema_type_names_as_the_regex():
    scan = pytest.importorskip("corpustool.native.text_scan")
    rng = random.Random(11)
    names = (b"QAPage", b"Offer", b"Product", b"ItemList")
    pieces = [b'"@type"', b"schema.org/", b'"@type": ["', b'"@type" :\t"', b"@", b'"', b":", b"[", b" ", b"\n",
              b"\x0b", b"\xa0", b"\x00", b"\xff", b"QA", b"Page", b"Offer", b"Product", b"ItemList", b"s", b"x",
              b"schema.org", b"/", b'"@typ', b'e"']
    for _ in range(5000):
        data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        limit = rng.choice([0, 1, 2, 512])
        assert scan.schema_type_names(data, names, limit) == _regex_type_names(data, names, limit), (data, limit)
    # the first max_marks marks of each kind, overlapping marks, the end of the input
    assert scan.schema_type_names(b'"@type":"Offer" "@type":"Product"', names, 1) == 0b10
    assert scan.schema_type_names(b'"@type""@type":"Offer"', names, 512) == 0b10
    assert scan.schema_type_names(b'x"@type', names, 512) == 0
    assert scan.schema_type_names(b"schema.org/Product", names, 512) == 0b100
    assert scan.schema_type_names(b"schema.org/Products", names, 512) == 0
    assert scan.schema_type_names(bytearray(b"schema.org/QAPage"), names, 512) == 0b1
    with pytest.raises(TypeError):
        scan.schema_type_names(b"x", ("QAPage",), 512)


@pytest.mark.parametrize("html", [
    '<html><script type="application/ld+json">{"@type": "QAPage"}</script><p>x</p></html>',
    '<html><div itemtype="https://schema.org/DiscussionForumPosting"><p>x</p></div></html>',
    '<?xml version="1.0" schema.org/QAPage?><html><p>x</p></html>',     # only in the XML declaration
    '<html><p>"@type": "QA\x00Page"</p></html>',                          # NUL: only in the bytes
    '<html><p>QAPage and DiscussionForumPosting, named but not declared</p></html>',
    '<html><p>caf\xe9 \u2014 no type at all \U0001F600</p></html>',
])
def test_declared_types_from_bytes_as_from_string(html):
    from corpustool.extractors.base import html_bytes

    assert structure.declared_types(html, html_bytes(html)) == structure.declared_types(html)


def test_declared_types_on_dev_pages():
    from corpustool.extractors.base import html_bytes

    found = 0
    for html in dev_pages(200):
        types = structure.declared_types(html)
        assert structure.declared_types(html, html_bytes(html)) == types
        found += bool(types)
    assert found
