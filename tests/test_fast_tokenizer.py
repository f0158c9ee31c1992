"""justext-plus's tokenizer (corpustool/_html_tokenizer.pxi) builds exactly the tree libxml2 builds.

The fast path's SAX build (``sax_outline``) is run twice on each input: with
the compiled tokenizer making libxml2's SAX calls, and with libxml2's own
parser (``set_fast_tokenizer(False)``); the two trees must be the same, element
by element, attribute by attribute, text by text. ``tokenizer_stats`` counts
which path built each tree, so the tests also show the tokenizer ran (or gave
the page back where it must).
"""
from __future__ import annotations

import random
from html.entities import html5

import pytest

from corpustool.encoding import decode
from corpustool.extractors import justext_engine
from corpustool.extractors.base import html_bytes

from markup_fuzz import random_markup

pytestmark = pytest.mark.skipif(not justext_engine.TOKENIZER_AVAILABLE,
                                reason=f"tokenizer off: {justext_engine.TOKENIZER_ERROR}")


def trees(data: bytes, strip: bool = False) -> tuple:
    """(the tokenizer's outline, libxml2's outline, the path the first took: "tokenizer" or a reason)."""
    before = justext_engine.tokenizer_stats()
    justext_engine.set_fast_tokenizer(True)
    try:
        fast = justext_engine.sax_outline(data, strip)
        after = justext_engine.tokenizer_stats()
        path = [k for k in after if after[k] != before.get(k, 0)]
        justext_engine.set_fast_tokenizer(False)
        slow = justext_engine.sax_outline(data, strip)
    finally:
        justext_engine.set_fast_tokenizer(True)
    return fast, slow, path[0] if path else None


def same(html: str | bytes) -> str:
    """Assert the tokenizer's tree is libxml2's; the path it took."""
    data = html if isinstance(html, bytes) else html_bytes(html)
    fast, slow, path = trees(data)
    assert fast == slow, (html, path)
    return path


EDGE_CASES = [
    # references in text and attributes
    "<p>a &amp; b &amp c &ampx &amp=x &lt;&gt;&quot;&apos; &nbsp;&copy &copy; &notit; &notin &notin; &not</p>",
    "<a title='&amp=x &ampx &amp; &notit &not &not= &lt &lt5 &AMP &fjlig; &#65 &#x41; &#X41'>x</a>",
    "<p>&#x80;&#x81;&#x9F;&#0;&#1;&#x110000;&#xD800;&#xDFFF;&#99999999999;&#65&#66;&#x;&#;&#xZ</p>",
    "<p>&CounterClockwiseContourIntegral;&NotNestedGreaterGreater;&nvlt;&bne;&ThickSpace;&</p>",
    "&amp", "&", "&#", "&#x", "&#12", "a&b", "<p>&",
    # tags, attributes, names
    "<DIV CLASS=Menu ID='X'><P>Upper</P></DIV>", "<a href=x/y/>z</a><a href=/>q</a>",
    "<a b=c<d e='f<g' h=\"i/j\">k</a>", "<a =x>y</a>", "<a \"q\"=1 'r'=2 <s=3>t</a>",
    "<div class=a class=b id=c ID=d>dup</div>", "<input disabled checked value=x><option selected>o</option>",
    "<a href = 'x' title= y>sp</a>", "<a href=>e</a>", "<a href='>'>gt</a>", "<p/ class=x>/</p>",
    "<br/>x</br>y<br />z", "<img src=a.png / >after", "<div/>text", "<p>a<p/>b", "<svg:rect x=1/>ns",
    "<x-widget data-a=1>custom</x-widget>", "<o:p>office</o:p>", "<ab\u00e9c>non-ascii name</ab\u00e9c>",
    # p, li, dd, dt, option, tables
    "</p>", "a</p>b", "<p>one<p>two</p></p>three", "<ul><li>a<li>b<ul><li>c</ul><li>d</ul>",
    "<dl><dt>t<dd>d<dt>t2<dd>d2</dl>", "<dd>a<dd>b", "<select><option>a<option>b<optgroup><option>c</select>",
    "<table><tr><td>a<td>b<tr><th>c<td>d</table>after", "<table><td>x</td></tr></table>",
    "<table><tbody><tr><td>1</tbody><tfoot><tr><td>2</table>", "<div><table><tr><td><div>x</td></div>y",
    "<p><table><tr><td>in</table>out", "<b><p>bold para</b>still</p>", "<a>1<a>2</a>3</a>",
    "<form><form>nested</form></form>", "<h1>a<h2>b</h1>c", "<td>cell</td>", "<tr><td>x</tr>",
    "<div><span>x</div>y</span>z", "<center><p>c<font>f</center>after", "<ul><li><p>a<li>b</ul>",
    # html, head, body in odd places
    "text before<html><body>x</body></html>", "<html><head><title>t</title></head><body>b</body></html>tail",
    "<html lang=en><head></head><body class=x><body id=y>two bodies</body></body></html>",
    "<body><head><title>late</title></head>x", "<p>x<html lang=de>y</html>z", "<head>a</head>",
    "<html><head> <meta charset=utf-8> <link rel=x> t <title>x</title></head></html>",
    "<title>first</title><p>x</p><title>in body</title>", "<html> <head> </head> <body> </body> </html>",
    "<script>s</script><p>x", "<style>s</style>", "<meta x=1><p>after meta", "</html>after", "</body>x",
    "<html><body></body></html>\n<p>after html</p>", "<head></head><head>again</head>", "<html/>x", "<body/>x",
    "<div><body/>x</div>y", "<div><html>x</html></div>", "<base href=x><title>t</title><noscript>n</noscript>",
    # comments, doctype, bogus comments
    "<!-- a -->x<!---->y<!-->z<!--->w<!-- b --!>v<!-- c --!x -->u", "<p>a<!-- unclosed", "<!--", "<!-",
    "<!DOCTYPE html><p>x", "<!doctype html public '>x'><p>y", "<p>a<!DOCTYPE x>b", "<!DOCTYPE",
    "<![CDATA[x<y]]>after", "<?xml-stylesheet x?>p", "<p>a<?pi?>b</?x>c</#d>e</ f>g</>h", "<!x>y",
    "   <!-- lead -->   <?pi?>  <!DOCTYPE html>  <!-- c --> <html>x", "<p>--></p><p>--!></p>",
    # script, style, RCDATA, RAWTEXT
    "<script>if (a < b) { x = '</scr' + 'ipt>'; }</script>after",
    "<script><!-- document.write('<script>x</script>'); --></script>after",
    "<script><!--<script>a</script>b--></script>c</script>d", "<script>a</script >b", "<script>a</SCRIPT>b",
    "<script>a</script/>b", "<script>a</scriptx>b</script>c", "<script>unclosed", "<script><!--", "<script>--></script>",
    "<style>p > a { x: '</sty' }</style>after", "<style>a</style", "<textarea><b>&amp;</b></textarea>x",
    "<title>a <b> &amp; </title>x", "<title>unclosed &lt;", "<xmp><p>raw &amp;</xmp>x",
    "<iframe><p>i</p></iframe>x", "<noembed><p>n</p></noembed>x", "<noscript><p>ns</p></noscript>",
    "<p><title>title in body</title></p>", "<script/>x<style/>y<title/>z", "<script type=a>1</script><script>2",
    # svg, math
    "<svg><circle r=1/><path d='M0 0'></path><title>svg title</title></svg>after",
    "<math><mi>x</mi><mo>=</mo></math>", "<svg><style>a</style><script>b</script></svg>",
    # CR, CRLF, whitespace
    "<p>a\rb\r\nc\n\rd\r</p>", "<a title='x\ry\r\nz'>t</a>", "<a title=x\ry>t</a>", "\r\n<p>x</p>\r\n",
    "<p>a\x0cb\tc</p>", "<head>\n<title>t</title>\n</head>\n<body>\n</body>",
    # EOF inside a tag, an attribute, a comment
    "<p>x<a href='y", "<p>x<a href=y", "<p>x<a href", "<p>x<a", "<p>x<", "<p>x</", "<p>x</a", "<p>x</a b='c",
    "<p>x<!-- c -", "<p>x<!-- c --", "<p>x<!-- c --!", "<p>x<!", "<p>x<?", "<p>x<a b='c'/", "<p>x<a/",
    # stray '<'
    "a < b", "<p>1 <2 <= 3 <-> < /p>", "<<p>>", "<3", "x<",
    # ruby
    "<ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>",
    # a BOM
    "\ufeff<p>bom</p>", "\ufeff", "\ufeffx",
]


@pytest.mark.parametrize("html", EDGE_CASES)
def test_edge_cases(html):
    assert same(html) == "tokenizer"
    if "<rt" in html:
        data = html_bytes(html)
        fast, slow, _ = trees(data, True)
        assert fast == slow


def test_bytes_as_given():
    """sax_outline's bytes as they come: a BOM, CR, what html_bytes would not give."""
    for data in (b"\xef\xbb\xbf<p>x", b"\xef\xbb\xbf", b"<p>a\r", b"\r", b"<p>\xc3\xa9</p>", b"  \n\t "):
        assert trees(data)[0] == trees(data)[1]


@pytest.mark.parametrize("data, reason", [
    (b"<p>bad \xff byte</p>", "invalid UTF-8"),
    ("<p>lone surrogate \ud800</p>".encode("utf-8", "surrogatepass"), "invalid UTF-8"),
    (b"<p>nul \x00 byte</p>", "invalid UTF-8"),
    (b"<p>overlong \xc0\xaf</p>", "invalid UTF-8"),
    (b"<frameset><frame src=a></frameset>", "frameset/frame/noframes/plaintext"),
    (b"<p>x<plaintext><b>y", "frameset/frame/noframes/plaintext"),
    (b"<noframes>n</noframes>", "frameset/frame/noframes/plaintext"),
    (b"<p><" + b"a" * 150 + b">long</p>", "name of 100 bytes or more"),
    (b"<p " + b"b" * 150 + b"=1>long</p>", "name of 100 bytes or more"),
    (b"<div>" * 300 + b"deep", "more than 256 open elements"),
    (b"<div>" * 251 + b"deep", "tree failed (depth, text or memory limit)"),
])
def test_given_back(data, reason):
    """What the tokenizer does not read as libxml2 goes to libxml2: the same tree (or none) still."""
    fast, slow, path = trees(data)
    assert path == reason
    assert fast == slow


def test_switch():
    before = justext_engine.tokenizer_stats().get("off", 0)
    previous = justext_engine.set_fast_tokenizer(False)
    try:
        assert previous is True
        justext_engine.sax_build(b"<p>x</p>")
        assert justext_engine.tokenizer_stats()["off"] == before + 1
    finally:
        justext_engine.set_fast_tokenizer(True)


# -- libxml2's element facts, all pairs --------------------------------------------------------

# element names libxml2 may know, and ones it does not: the tokenizer treats every name outside
# its table as libxml2 treats names outside its own (no rule)
HTML5_ONLY = ["article", "aside", "nav", "section", "header", "footer", "main", "figure", "figcaption",
              "template", "slot", "picture", "source", "track", "video", "audio", "canvas", "details", "summary",
              "dialog", "mark", "time", "wbr", "data", "output", "meter", "progress", "ruby", "rt", "rp", "bdi",
              "search", "hgroup", "nobr", "marquee", "blink", "image", "keygen", "menuitem", "datalist", "svg",
              "math", "x-custom", "foo", "listing", "multicol", "spacer", "layer", "ilayer", "nextid", "rb", "rtc"]


def _names() -> list[str]:
    from corpustool import _justext_walk
    return _justext_walk.known_names()


def test_start_tags_closing_open_elements():
    """Every open element against every start tag (autoclose pairs, implied elements, void ones)."""
    names = [n for n in _names() if n not in ("frameset", "frame", "noframes", "plaintext")][:110]
    names += [n for n in HTML5_ONLY if n not in names]
    docs = []
    for a in names:
        body = "".join(f"<{a}>x<{b}>y" for b in names)   # each pair: a open when b starts
        docs.append(f"<body><div>{body}</div>")
        docs.append(f"<{a}>" + "".join(f"<{b}>z</{b}>" for b in names))
    for doc in docs:
        assert same(doc) == "tokenizer", doc[:80]


def test_end_tag_priorities():
    """An end tag closes what is open above its element unless that has a higher priority."""
    names = ["div", "td", "th", "tr", "thead", "tbody", "tfoot", "table", "head", "body", "html", "p", "span",
             "li", "ul", "form", "b", "a", "section", "x-y", "caption", "dl", "option", "select"]
    for a in names:
        for b in names:
            assert same(f"<div><{a}>1<{b}>2</{a}>3</{b}>4</div>5") == "tokenizer"


def test_every_character_reference():
    """Every name of the HTML5 table, in text and in an attribute value, before ';', '=', a letter,
    a digit, a space and the end of the input."""
    names = sorted({k.rstrip(";") for k in html5})
    for follow in (";", "=", "x", "7", " ", ""):
        text = "<p>" + "|".join(f"&{n}{follow}" for n in names) + "</p>"
        assert same(text) == "tokenizer"
        attrs = "<p " + " ".join(f"a{i}='&{n}{follow}'" for i, n in enumerate(names)) + ">x</p>"
        assert same(attrs) == "tokenizer"
        unquoted = "<p " + " ".join(f"a{i}=&{n}{follow}" for i, n in enumerate(names)) + ">x</p>"
        assert same(unquoted) == "tokenizer"
    for n in names[::50]:
        assert same(f"<p>x &{n}") == "tokenizer"


# -- seeded random markup -----------------------------------------------------------------------

TAGS = ["div", "div", "p", "p", "span", "a", "nav", "footer", "form", "ul", "li", "table", "tr", "td", "th",
        "tbody", "h1", "br", "img", "script", "style", "select", "option", "input", "textarea", "iframe", "title",
        "head", "body", "html", "link", "meta", "pre", "b", "i", "font", "center", "dl", "dt", "dd", "noscript",
        "svg", "svg:rect", "o:p", "ruby", "rt", "xmp", "caption", "colgroup", "col", "hr", "base", "section"]
VOID = {"br", "img", "input", "link", "meta", "hr", "col", "base"}
TEXTS = ["The council met on Tuesday evening.", "Read more", "\u00a9 2024", "a &amp; b &copy; &#169; &#x41;",
         "x < y", "</", "line\r\nend", "cr\ronly", "  ", "\n", "&nbsp;", "漢字", "&notanentity;", "&amp=", "<!-- c -->",
         "<![CDATA[z]]>", "<?pi x?>", "</p>", "</html>", "<html class=menu>", "<body id=footer>", "</td>", "</table>",
         "<!-->", "<!--->", "-->", "<script>", "</script>", "</scr", "<!DOCTYPE html>", "<br/>", "</br>", "<p/>"]
VALUES = ["menu", "a&amp;b", "x&notit;y", "&lt", "&amp=1", "'", '"', "a b", "", "x/y", "\r\n", "&#x80;", "<>"]


def random_attrs(rng: random.Random, tag: str) -> str:
    out = []
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        name = rng.choice(["class", "id", "title", "href", "CLASS", "data-x", "selected", "@click", ":a", "=x"])
        value = rng.choice(VALUES)
        quote = rng.choice(["'", '"', ""])
        if quote and quote in value or not quote and any(c in value for c in " '\"<>\r\n"):
            quote = "'" if "'" not in value else '"'
        out.append(rng.choice([name, f"{name}={quote}{value}{quote}", f"{name} = {quote}{value}{quote}"]))
    return (" " + " ".join(out)) if out else ""


SOUP = ["<", ">", "/", "</", "<!", "<!--", "-->", "--!>", "-", "<?", "<!DOCTYPE html>", "&", "&amp", "&#x41;", "&#",
        "=", "\"", "'", " ", "\n", "\r", "\r\n", "x", "é", "p", "div", "li", "td", "html", "head", "body", "title",
        "script", "style", "textarea", "SCRIPT", "<p>", "</p>", "<div>", "</div>", "<li>", "<td>", "<tr>", "<table>",
        "<html>", "</html>", "<head>", "</head>", "<body>", "</body>", "<title>", "</title>", "<script>", "</script>",
        "<script >", "</script >", "</scr", "<style>", "</style>", "<textarea>", "<option>", "<dd>", "<dt>",
        "<a href=x>", "</a>", "<br/>", "<body/>", "<!-->", "<b>", "</b>", "class=x", "y='2'", "<select>", "<form>"]


def test_random_markup():
    counts = {"tokenizer": 0}
    for seed in range(2500):
        rng = random.Random(seed)
        html = random_markup(rng, TAGS, TEXTS, VOID, items=(1, 6), max_depth=7, close=0.7, attrs=random_attrs)
        if rng.random() < 0.4:
            html = "<html><head><title>" + rng.choice(TEXTS) + "</title></head><body>" + html
        path = same(html)
        counts[path] = counts.get(path, 0) + 1
    assert counts["tokenizer"] == 2500, counts


def test_random_soup():
    for seed in range(2500):
        rng = random.Random(seed)
        html = "".join(rng.choice(SOUP) for _ in range(rng.randint(1, 60)))
        assert same(html) in ("tokenizer", None)   # (None: nothing to parse)


# -- the development pages ----------------------------------------------------------------------

def test_dev_pages(snippets_dir):
    """Every development page: the same tree; at least 90% of them built by the tokenizer."""
    paths = sorted((snippets_dir / "pages").glob("*.html"))
    on_path = 0
    for path in paths:
        data = html_bytes(decode(path.read_bytes()).text)
        if not data:
            continue
        fast, slow, taken = trees(data)
        assert fast == slow, path.name
        on_path += taken == "tokenizer"
    assert on_path >= 0.9 * len(paths), (on_path, len(paths))
