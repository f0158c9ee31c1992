"""Encoding detection: BOM, HTTP charset, <meta>, XML declaration, then the statistical detector.

Every page is a realistic paragraph or two in its language, encoded in one
charset, and served declared correctly (in each of the places a declaration
can be), declared wrongly, or not declared at all. The decoded text must equal
the original, and the recorded source must say which evidence decided.
"""
from __future__ import annotations

import codecs
import subprocess
import sys

import pytest

from corpustool.encoding import canonical, decode, looks_binary
from tests.support.paths import REPO

CZECH = ("Letošní jaro je v kraji jedno z nejsušších za posledních padesát let a včelaři se obávají, "
         "že to bude mít vliv na úrodu medu i na zdraví včelstev. Ovocné stromy sice rozkvetly bohatě, "
         "ale kvůli suchu vydávají jen málo nektaru. Včely proto musí létat dál a častěji, aby nasbíraly "
         "dostatek potravy, a mnohá včelstva se rozvíjejí pomaleji než v jiných letech. Předseda místní "
         "organizace říká, že louky se sečou příliš brzy, těsně před tím, než rozkvetou. Šťastné žluťoučké "
         "kuře úpělo ďábelské ódy, řekl ještě se smíchem a odešel domů.")
GERMAN = ("Die Imker im Landkreis schlagen Alarm: In diesem Frühjahr haben sie deutlich weniger Wildbienen "
          "und Hummeln beobachtet als in den Jahren zuvor. „Das ist ein schlechtes Zeichen“, sagte der "
          "Vorsitzende – denn viele Pflanzen würden vor allem von wilden Bienenarten bestäubt. Der Verein "
          "hat Saatgut für 1.200 € gekauft, das kostenlos an Gartenbesitzer verteilt wird. Außerdem sollen "
          "an den Schulen Nisthilfen gebaut werden, die die Kinder im Schulgarten aufstellen und beobachten.")
FRENCH = ("Les apiculteurs du département tirent la sonnette d’alarme : cette année, ils ont observé beaucoup "
          "moins d’abeilles sauvages et de bourdons que les années précédentes. « C’est un très mauvais "
          "signe », explique le président de l’association, car de nombreuses plantes sont pollinisées "
          "surtout par des espèces sauvages. L’association a acheté des semences de fleurs pour 1 200 €, "
          "qui seront distribuées gratuitement aux jardiniers et aux agriculteurs de la région.")
RUSSIAN = ("Этой весной пчеловоды района забили тревогу: диких пчёл и шмелей стало заметно меньше, чем в "
           "прошлые годы. По словам председателя общества, это очень плохой знак, потому что многие растения "
           "опыляются прежде всего дикими видами пчёл. Общество закупило семена луговых цветов, которые будут "
           "бесплатно розданы садоводам и фермерам. Кроме того, в школах дети построят домики для пчёл и будут "
           "наблюдать за ними в школьном саду.")
JAPANESE = ("今年の春、地域の養蜂家たちは警鐘を鳴らしている。野生のミツバチやマルハナバチの数が、例年に比べて"
            "明らかに少なくなっているという。協会の会長によれば、多くの植物は主に野生のハチによって受粉されるため、"
            "これは非常に悪い兆候だ。協会は花の種を購入し、庭の所有者や農家に無料で配布する予定である。"
            "また、地元の学校では子どもたちが巣箱を作り、校庭で観察することになっている。")
POLISH = ("Pszczelarze z naszego powiatu biją na alarm: tej wiosny zaobserwowali znacznie mniej dzikich pszczół "
          "i trzmieli niż w poprzednich latach. Według przewodniczącego koła to bardzo zły znak, ponieważ wiele "
          "roślin jest zapylanych głównie przez dzikie gatunki. Koło kupiło nasiona łąkowych kwiatów, które "
          "zostaną rozdane za darmo ogrodnikom i rolnikom. Źródło problemu leży także w zbyt częstym koszeniu łąk.")


def html(text: str, head: str = "", lang: str = "en") -> str:
    paras = "".join(f"<p>{s.strip()}.</p>\n" for s in text.split(". ") if s.strip())
    return (f"<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n{head}<title>Test</title>\n</head>\n"
            f"<body>\n<h1>News</h1>\n{paras}</body>\n</html>\n")


def meta(label: str) -> str:
    return f'<meta charset="{label}">\n'


def http_equiv(label: str) -> str:
    return f'<meta http-equiv="Content-Type" content="text/html; charset={label}">\n'


# (text, python codec, label as written on the web, lang)
SINGLE_BYTE = [
    (CZECH, "cp1250", "windows-1250", "cs"),
    (POLISH, "cp1250", "windows-1250", "pl"),
    (CZECH, "iso8859-2", "ISO-8859-2", "cs"),
    (GERMAN, "cp1252", "windows-1252", "de"),
    (FRENCH, "cp1252", "windows-1252", "fr"),
    (RUSSIAN, "koi8-r", "KOI8-R", "ru"),
]
MULTI_BYTE = [
    (JAPANESE, "shift_jis", "Shift_JIS", "ja"),
    (CZECH, "utf-8", "UTF-8", "cs"),
    (RUSSIAN, "utf-8", "utf-8", "ru"),
]
ALL = SINGLE_BYTE + MULTI_BYTE


def ids(cases):
    return [f"{c[1]}-{c[3]}" for c in cases]


# WHATWG decodes Shift_JIS as windows-31j (cp932), a superset; the text is the same
_EQUIVALENT = {"shift_jis": "cp932"}


def same_codec(a: str, b: str) -> bool:
    a, b = codecs.lookup(a).name, codecs.lookup(b).name
    return _EQUIVALENT.get(a, a) == _EQUIVALENT.get(b, b)


# -- declared correctly -----------------------------------------------------------

@pytest.mark.parametrize("text,codec,label,lang", ALL, ids=ids(ALL))
def test_declared_in_http_header(text, codec, label, lang):
    page = html(text, lang=lang)
    d = decode(page.encode(codec), f"text/html; charset={label}")
    assert d.text == page
    assert d.source == "http" and same_codec(d.encoding, codec)


@pytest.mark.parametrize("text,codec,label,lang", ALL, ids=ids(ALL))
@pytest.mark.parametrize("how", [meta, http_equiv], ids=["meta-charset", "http-equiv"])
def test_declared_in_meta(text, codec, label, lang, how):
    page = html(text, head=how(label), lang=lang)
    d = decode(page.encode(codec), "text/html")
    assert d.text == page
    assert d.source == "meta" and same_codec(d.encoding, codec)


@pytest.mark.parametrize("text,codec,label,lang", ALL, ids=ids(ALL))
def test_declared_in_xml_declaration(text, codec, label, lang):
    page = f'<?xml version="1.0" encoding="{label}"?>\n' + html(text, lang=lang)
    d = decode(page.encode(codec), "application/xhtml+xml")
    assert d.text == page
    assert d.source == "xml" and same_codec(d.encoding, codec)


def test_http_header_wins_over_meta():
    page = html(CZECH, head=meta("iso-8859-2"), lang="cs")
    d = decode(page.encode("cp1250"), "text/html; charset=windows-1250")
    assert d.text == page and d.source == "http"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom(codec):
    page = html(RUSSIAN, head=meta("utf-16"), lang="ru")
    bom = codecs.BOM_UTF16_LE if codec.endswith("le") else codecs.BOM_UTF16_BE
    d = decode(bom + page.encode(codec), "text/html; charset=iso-8859-1")   # the BOM beats the header
    assert d.text == page
    assert d.source == "bom" and d.encoding == codec


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom(codec):
    page = html(JAPANESE, lang="ja")
    d = decode(page.encode(codec), None)
    assert d.text == page
    assert d.encoding == codec and d.source == "detected"


def test_utf8_bom():
    page = html(CZECH, lang="cs")
    d = decode(codecs.BOM_UTF8 + page.encode("utf-8"), "text/html; charset=windows-1250")
    assert d.text == page and d.source == "bom"


# -- declared wrongly --------------------------------------------------------------

@pytest.mark.parametrize("label", ["ISO-8859-1", "windows-1252", "latin1", "us-ascii"])
@pytest.mark.parametrize("where", ["http", "meta"])
def test_utf8_declared_as_western_single_byte(label, where):
    page = html(GERMAN, head=meta(label) if where == "meta" else "", lang="de")
    d = decode(page.encode("utf-8"), f"text/html; charset={label}" if where == "http" else "text/html")
    assert d.text == page
    assert d.encoding == "utf-8" and d.source == "detected" and d.declared == label


@pytest.mark.parametrize("text,codec,label,lang", SINGLE_BYTE, ids=ids(SINGLE_BYTE))
def test_single_byte_declared_as_utf8(text, codec, label, lang):
    page = html(text, head=meta("utf-8"), lang=lang)
    d = decode(page.encode(codec), "text/html; charset=utf-8")
    assert d.text == page
    assert d.source == "detected" and d.declared in ("utf-8",) and same_codec(d.encoding, codec)


def test_shift_jis_declared_as_utf8():
    page = html(JAPANESE, lang="ja")
    d = decode(page.encode("shift_jis"), "text/html; charset=utf-8")
    assert d.text == page
    assert d.source == "detected" and d.declared == "utf-8"


def test_unknown_label_is_ignored():
    page = html(CZECH, head=meta("x-no-such-charset"), lang="cs")
    d = decode(page.encode("utf-8"), None)
    assert d.text == page and d.encoding == "utf-8" and d.declared == "x-no-such-charset"


def test_utf16_declared_on_ascii_compatible_bytes():
    page = html(CZECH, head=meta("utf-16"), lang="cs")
    d = decode(page.encode("utf-8"), None)
    assert d.text == page and d.encoding == "utf-8"


# -- undeclared -------------------------------------------------------------------

@pytest.mark.parametrize("text,codec,label,lang", ALL, ids=ids(ALL))
def test_undeclared(text, codec, label, lang):
    page = html(text, lang=lang)
    d = decode(page.encode(codec), "text/html")
    assert d.text == page
    assert same_codec(d.encoding, codec)
    assert d.source == ("utf8" if codec == "utf-8" else "detected")


def test_pure_ascii_page():
    page = html("Nothing but plain ASCII words in this short page. It has two sentences.")
    d = decode(page.encode("ascii"), None)
    assert d.text == page and d.encoding == "utf-8"


def test_never_raises_on_garbage():
    import random
    raw = random.Random(1).randbytes(5000)
    d = decode(raw, "text/html; charset=nonsense")
    assert isinstance(d.text, str) and d.text
    assert looks_binary(b"\x89PNG\r\n\x1a\n" + raw)
    assert not looks_binary(html(CZECH).encode("cp1250"))


def test_random_bytes_are_binary_and_a_few_control_characters_are_not():
    """Random (or compressed) data has about 10.5% control bytes: at a 10% line, 119 of 1,000 random
    4 KB blocks passed as pages and became documents with a guessed language."""
    import random
    r = random.Random(7)
    assert all(looks_binary(r.randbytes(4096)) for _ in range(1000))
    page = html(CZECH).encode("cp1250")
    stray = page.replace(b"<p>", b"<p>\x1b\x00", 3)      # a few stray control bytes in a real page
    assert not looks_binary(stray) and not looks_binary(page)


def test_canonical_labels():
    assert canonical("ISO-8859-1") == "cp1252"        # WHATWG: browsers read latin-1 as windows-1252
    assert canonical("windows-1250") == "cp1250"
    assert canonical("x-sjis") == canonical("Shift_JIS") == "cp932"
    assert canonical("koi8-r") == "koi8-r"
    assert canonical("no-such-thing") is None


def test_utf8_with_a_few_broken_bytes_stays_utf8():
    # a Polish page in UTF-8 with one stray Latin-1 byte: not a single-byte code page
    text = "Nie możemy pozwolić na wszystkie te zuchwałe manipulacje, mówiła prezes fundacji. " * 10
    raw = ("<html><head><meta charset='utf-8'></head><body><p>" + text + "</p></body></html>").encode("utf-8")
    damaged = raw.replace("zuchwałe".encode("utf-8"), b"zuchwa\xb3e", 1)
    for data, ct in ((damaged, None), (damaged.replace(b"<meta charset='utf-8'>", b""), None)):
        dec = decode(data, ct)
        assert dec.encoding == "utf-8"
        assert "Nie możemy pozwolić" in dec.text
        assert dec.text.count("\ufffd") == 1
    # mostly broken: not UTF-8
    latin2 = ("<html><body><p>" + text + "</p></body></html>").encode("iso-8859-2")
    assert decode(latin2, None).encoding != "utf-8"


@pytest.mark.parametrize("encoding", ["utf-8", "cp1250", "iso-8859-2", "shift_jis", "gb18030", "koi8-r", "utf-16"])
def test_control_characters_removed_in_every_encoding(encoding):
    # the bytes are scanned instead of the text where the encoding allows it; the result is the same
    text = "<html><head><meta charset='%s'></head><body><p>Plain \x01text\x0b with\x1f controls.</p></body></html>"
    raw = (text % encoding).encode(encoding)
    out = decode(raw).text
    assert "Plain text  with  controls." in out          # vertical tab, U+001F: white space, a space
    assert not any(c in out for c in "\x01\x0b\x1f")
    clean = (text % encoding).replace("\x01", "").replace("\x0b", " ").replace("\x1f", " ").encode(encoding)
    assert decode(clean).text == decode(raw).text


def test_control_characters_are_removed_from_text_and_bytes(native_backend):
    """strip_controls and decode, on both backends (the compiled scans and their Python twins:
    tests/native/test_backend_parity.py compares them)."""
    from corpustool import encoding

    page = "<p>caf\xe9 \u0142\xf3d\u017a \U0001f600\t\n\r</p>" * 100
    assert encoding.strip_controls(page) is page
    assert encoding.strip_controls(page + "\x01\x0c\x1f") == page + "  "
    assert decode(b"<p>caf\xc3\xa9\x01</p>").text == "<p>caf\xe9</p>"
    for value, kept in ((0x01, ""), (0x08, ""), (0x0b, " "), (0x0c, " "), (0x0e, ""), (0x1b, ""), (0x1c, " "),
                        (0x1f, " ")):
        raw = b"<p>" + b"x" * 20 + bytes([value]) + b"y</p>"
        assert encoding._has_control_bytes(raw) and decode(raw).text == "<p>" + "x" * 20 + kept + "y</p>"
    assert not encoding._has_control_bytes(b"<p>x\ty\r\n</p>")


def test_the_bytes_libxml2_parses(native_backend):
    """html_bytes: the page in UTF-8 (lone surrogates kept: a page decoded with surrogateescape has
    them), without U+0000 and without an XML declaration."""
    from corpustool.extractors.base import html_bytes

    page = "<p>\u201cQuoted\u201d caf\xe9 \x00text \ud800</p>\n" * 500
    assert html_bytes(page) == page.encode("utf-8", "surrogatepass").replace(b"\x00", b"")
    assert html_bytes("<?xml version='1.0'?><p>x</p>") == b"<p>x</p>"
    assert html_bytes("") is None and html_bytes(" \n") is None


def test_stopword_hits_count_every_occurrence_of_the_first_3000_words():
    # the tie-break between candidate decodings counts, for the best stoplist, each of the text's
    # first 3000 words (\w+, lower-cased) that the stoplist has: a word repeated counts each time
    import random
    import re

    from corpustool import encoding

    lists = encoding._stoplists()
    assert len(lists) > 10
    german, czech = sorted(next(sl for sl in lists if {"und", "der"} <= sl)), sorted(
        next(sl for sl in lists if {"který", "jsou"} <= sl))
    rng = random.Random(11)
    for k in range(30):
        words = [rng.choice(german if k % 2 else czech) if rng.random() < 0.6 else f"xq{rng.randint(0, 50)}"
                 for _ in range(rng.choice([0, 5, 400, 3500]))]
        text = " ".join(w.upper() if rng.random() < 0.2 else w for w in words) + " <ß>,"
        first = re.findall(r"\w+", text.lower())[:3000]
        expected = max((sum(1 for w in first if w in sl) for sl in lists), default=0) if first else 0
        assert encoding._stopword_hits(text) == expected, k
    assert encoding._stopword_hits("und " * 3500) == 3000
    assert encoding._stopword_hits("") == 0 and encoding._stopword_hits("!!") == 0


@pytest.mark.parametrize("sep", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"])
def test_white_space_controls_separate_words(tmp_path, sep):
    """Vertical tab, form feed and U+001C-U+001F are white space (str.split, the justext package;
    form feed is HTML's): a space in the title and between tokens, raw or as a character reference,
    never glue ("Title\\x0cff here" was "Titleff here", "alpha\\x0bbeta" one token)."""
    from corpustool.text.normalize import clean_text, clean_value

    assert clean_value(f"Title{sep}ff here") == ("Title ff here", False)
    assert clean_text(f"alpha{sep}beta") == "alpha beta"
    ref = f"&#{ord(sep)};"
    body = ("Any there make then too been since us another did. Or now on out make had first in or then. "
            "From can by do all get and must right good. First there with year could you who do as out. ")
    for i, mark in enumerate((sep, ref)):
        page = (f"<html lang=en><head><meta charset=utf-8><title>Title{mark}ff here</title></head><body>"
                f"<p>{body * 2}alpha{mark}beta gamma {mark} delta{mark}</p></body></html>")
        path = tmp_path / "page.html"
        path.write_text(page, encoding="utf-8")
        out = tmp_path / f"c{i}.vert"
        r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(path), "-o", str(out), "--lang", "en",
                            "-q"], capture_output=True, text=True, cwd=REPO, timeout=300)
        assert r.returncode == 0, r.stderr
        vert = out.read_text(encoding="utf-8")
        assert 'title="Title ff here"' in vert, (mark, vert[:300])
        assert "\nalpha\nbeta\ngamma\ndelta\n" in vert, mark
