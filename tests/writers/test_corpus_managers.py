"""Both real corpus managers encode and query our vertical output exactly (issue 28).

CWB 3.4.33 (`cwb-encode`, `cwb-makeall`, `cqp`, `cwb-s-decode`) and Manatee
2.225.8 (`encodevert` and its Python module) are built from ../shared/peers by
`make system-deps`; without them these tests skip. Each corpus is written by
`corpustool build --target T --registry DIR` and loaded with `sh DIR/encode.sh T`
(the README's recipe), then every count (tokens, doc, p, s, g) and every doc
attribute value read back from the tool must equal what the vertical file says.

The adversarial corpus is built from pages authored here: a 70,000-letter word,
titles over 64 KB, `"` `&` `<` tabs and trailing backslashes in titles and URLs,
control characters and non-characters from character references and raw bytes,
a decomposed title, invisible characters, emoji sequences and bidi marks.
"""
from __future__ import annotations

import gzip
import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.parsers.expat
from pathlib import Path

import pytest

from tests.support.paths import REPO
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"
TMP = Path(os.environ.get("TMPDIR", "/tmp"))
CWB_BIN = Path(os.environ.get("CORPUSTOOL_CWB_BIN", TMP / "cwb-tools" / "bin"))
MANATEE_ENV = Path(os.environ.get("CORPUSTOOL_MANATEE_ENV", TMP / "manatee-tools" / "env.sh"))


def _manatee_env() -> dict[str, str] | None:
    if not MANATEE_ENV.is_file():
        return None
    out = subprocess.run(["sh", "-c", f". {MANATEE_ENV} && env -0"], capture_output=True, timeout=30)
    if out.returncode != 0:
        return None
    env = dict(item.split("=", 1) for item in out.stdout.decode().split("\0") if "=" in item)
    return env if shutil.which("encodevert", path=env.get("PATH")) else None


def _tool_env(target: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    if target == "cwb":
        if not (CWB_BIN / "cwb-encode").is_file():
            pytest.skip(f"CWB is not built ({CWB_BIN}; make system-deps builds it from ../shared/peers)")
        env["PATH"] = f"{CWB_BIN}{os.pathsep}{env['PATH']}"
        return env
    menv = _manatee_env()
    if menv is None:
        pytest.skip(f"Manatee is not built ({MANATEE_ENV}; make system-deps builds it from ../shared/peers)")
    for key in ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH"):
        if key in menv:
            env[key] = menv[key]
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return env


# -- what the vertical file says ------------------------------------------------------------

_ATTR = {"manatee": re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"'), "cwb": re.compile(r'(\w+)="([^"]*)"')}


def read_vertical(path: Path, target: str) -> dict:
    """Counts and doc attribute values as our writer meant them, decoded by its convention."""
    opener = gzip.open if path.suffix == ".gz" else open
    counts = {"tokens": 0, "doc": 0, "p": 0, "s": 0, "g": 0}
    docs: list[dict[str, str]] = []
    words: list[str] = []
    with opener(path, "rt", encoding="utf-8", newline="\n") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("<doc "):
                counts["doc"] += 1
                vals = {}
                for k, v in _ATTR[target].findall(line):
                    vals[k] = html.unescape(v) if target == "cwb" else re.sub(r"\\(.)", r"\1", v)
                docs.append(vals)
            elif line.startswith("<p ") or line == "<p>":
                counts["p"] += 1
            elif line == "<s>":
                counts["s"] += 1
            elif line == "<g/>":
                counts["g"] += 1
            elif line in ("</p>", "</s>", "</doc>"):
                pass
            else:
                counts["tokens"] += 1
                words.append(html.unescape(line) if target == "cwb" else line)
    return {"counts": counts, "docs": docs, "words": words}


def build(tmp: Path, inputs: list[Path], target: str, *extra: str) -> tuple[Path, Path]:
    out = tmp / target / "corpus.vert.gz"
    reg = tmp / target / "reg"
    out.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", *map(str, inputs), "-o", str(out),
                        "--lang", "en,de,cs", "--target", target, "--registry", str(reg), "-q",
                        "--stats", str(tmp / target / "stats.json"), *extra],
                       capture_output=True, text=True, cwd=REPO, timeout=600)
    assert r.returncode == 0, r.stderr
    return out, reg


def encode(reg: Path, target: str) -> str:
    r = subprocess.run(["sh", str(reg / "encode.sh"), target], capture_output=True, text=True,
                       env=_tool_env(target), timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stderr


# -- what the corpus manager stored ------------------------------------------------------------

def cwb_stored(reg: Path, attrs: list[str]) -> dict:
    env = _tool_env("cwb")
    registry = str(reg / "registry")

    def s_decode(name: str) -> list[str]:
        r = subprocess.run(["cwb-s-decode", "-r", registry, "CORPUS", "-S", name], capture_output=True,
                           env=env, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.decode("utf-8").splitlines()

    counts = {name: len(s_decode(name)) for name in ("doc", "p", "s", "g")}
    r = subprocess.run(["cwb-decode", "-r", registry, "-C", "CORPUS", "-P", "word"], capture_output=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    words = r.stdout.decode("utf-8").split("\n")[:-1]
    counts["tokens"] = len(words)
    docs = [dict() for _ in range(counts["doc"])]
    for a in attrs:
        for i, line in enumerate(s_decode(f"doc_{a}")):
            docs[i][a] = line.split("\t", 2)[2] if line.count("\t") >= 2 else ""
    return {"counts": counts, "docs": docs, "words": words}


MANATEE_READ = r"""
import json, sys, manatee
c = manatee.Corpus(sys.argv[1])
out = {"counts": {"tokens": c.size()}, "docs": [], "words": []}
for name in ("doc", "p", "s", "g"):
    out["counts"][name] = c.get_struct(name).size()
doc = c.get_struct("doc")
attrs = {a: doc.get_attr(a) for a in sys.argv[2:]}
for i in range(doc.size()):
    out["docs"].append({a: at.pos2str(i) for a, at in attrs.items()})
word = c.get_attr("word")
out["words"] = [word.pos2str(i) for i in range(c.size())]
print(json.dumps(out))
"""


def manatee_stored(reg: Path, attrs: list[str]) -> dict:
    env = _tool_env("manatee")
    r = subprocess.run(["/usr/bin/python3", "-c", MANATEE_READ, str(reg / "corpus.manatee"), *attrs],
                       capture_output=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    return json.loads(r.stdout)


def check_round_trip(out: Path, reg: Path, target: str) -> dict:
    from corpustool.writers.vert_check import check_file

    meant = read_vertical(out, target)
    found = []
    assert check_file(str(out), target, report=found.append).problems == 0, found[:5]
    encode_log = encode(reg, target)
    attrs = sorted({k for d in meant["docs"] for k in d})
    stored = cwb_stored(reg, attrs) if target == "cwb" else manatee_stored(reg, attrs)
    assert stored["counts"] == meant["counts"]
    for i, (m, s) in enumerate(zip(meant["docs"], stored["docs"])):
        for a in attrs:
            want = m.get(a, "" if target == "cwb" else "===NONE===")
            assert s[a] == want, f"doc {i} {a}: stored {s[a][:80]!r}, file says {want[:80]!r}"
    assert stored["words"] == meant["words"]
    # neither encoder warns (CWB's one note about the flat <g/> excepted)
    noise = [l for l in encode_log.splitlines() if re.search(r"warn|error|overlong|expecting|too long", l, re.I)
             and "missing </g> tag inserted" not in l and "Summary of errors" not in l]
    assert not noise, noise
    return meant


def well_formed_xml(path: Path) -> None:
    parser = xml.parsers.expat.ParserCreate("UTF-8")
    parser.Parse(b"<corpus>\n", False)
    with gzip.open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            parser.Parse(chunk, False)
    parser.Parse(b"</corpus>\n", True)


# -- the corpora ------------------------------------------------------------------------------

def _record(url: str, body: bytes) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body
    head = (f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: 2024-05-01T10:00:00Z\r\nWARC-Record-ID: <urn:uuid:{abs(hash(url)) % 10**12:012d}>\r\n"
            f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n")
    return gzip.compress(head.encode() + http + b"\r\n\r\n", mtime=0)


BODY = ("<p>The harbour master said on Monday that the new quay would be finished before the winter storms, "
        "and that the fishing boats could then stay in the inner basin when the sea is rough. {extra}</p>"
        "<p>Many people in the town have waited for this for a long time, and they are glad that the work "
        "is going on at last, although the noise of the machines is heard in every street near the water.</p>")


def adversarial_pages() -> list[tuple[str, str, str]]:
    """(url, title, extra body text) of the authored pages, as HTML source."""
    long_title = ("A very long title with \"quotes\", &amp; ampersands, &lt;angle&gt; brackets and tabs\t" * 1000)
    return [
        ("http://adv.example/long-word", "One long word", "Here it is: " + "a" * 70000 + " and more text."),
        ("http://adv.example/long-title", long_title, "A page with a title longer than any line a tool reads."),
        ('http://adv.example/q?a=1&b="2"', 'Folder C:\\', "The title ends in a backslash, the URL has quotes."),
        ("http://adv.example/quote", 'He said "yes" &amp; &lt;left&gt;\\ \\"', "Quotes &amp; backslashes \\ in the text."),
        ("http://adv.example/controls", "Bell\x01 and &#1; &#x7f; &#xFFFF; &#xFDD0; &#x10FFFF; end",
         "Controls &#1;here &#x7f;and &#xFFFF;there &#xFDD0;too &#x10FFFF;end \x7f raw del."),
        ("http://adv.example/cafe", "Cafe\u0301 \u200bzero\ufeffwidth soft\u00adhyphen",
         "The cafe\u0301 serves coffee and the menu is written on a board by the door."),
        ("http://adv.example/emoji", "Family \U0001F468\u200D\U0001F469\u200D\U0001F467 and flags \U0001F1E8\U0001F1FF",
         "A family \U0001F468\u200D\U0001F469\u200D\U0001F467 waved \U0001F44D\U0001F3FD flags "
         "\U0001F1E8\U0001F1FF\U0001F1E9\U0001F1EA and \u200eleft\u200f \u202bembedded\u202c \u2067isolate\u2069 marks."),
        ("http://adv.example/emoticons", "Faces :-) &lt;3",
         "Emoticons are tokens: :-) ;) :'( :D &lt;3 &lt;/3 and a lone &lt; sign, &lt;doc&gt; &lt;/p&gt; &lt;s&gt; too."),
        ("http://adv.example/zalgo", "T e" + "\u0301" * 3000 + " end", "One letter with 3,000 accents in the title."),
    ]


@pytest.fixture(scope="module")
def adversarial_warc(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("adv") / "adversarial.warc.gz"
    with open(path, "wb") as fh:
        for url, title, extra in adversarial_pages():
            page = (f"<html lang=\"en\"><head><title>{title}</title></head><body>"
                    f"<h1>Harbour news</h1>{BODY.format(extra=extra)}</body></html>")
            fh.write(_record(url, page.encode("utf-8", "surrogatepass")))
    return path


# -- the tests --------------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["cwb", "manatee"])
def test_demo_corpus_round_trips(tmp_path, target):
    _tool_env(target)
    out, reg = build(tmp_path, [DEMO], target)
    meant = check_round_trip(out, reg, target)
    assert meant["counts"]["doc"] >= 25 and meant["counts"]["s"] > meant["counts"]["p"]
    assert any("&" in d.get("title", "") for d in meant["docs"])      # "Open Kitchen & Travel"


@pytest.mark.parametrize("target", ["cwb", "manatee"])
def test_adversarial_corpus_round_trips(tmp_path, adversarial_warc, target):
    _tool_env(target)
    out, reg = build(tmp_path, [adversarial_warc], target, "--no-dedup-near", "--no-dedup-para")
    meant = check_round_trip(out, reg, target)
    docs = {d["url"]: d for d in meant["docs"]}
    assert len(docs) == len(adversarial_pages())
    # every line fits every tool; the long word is all there, in glued pieces
    with gzip.open(out, "rt", encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    assert max(len(l.encode()) for l in lines) < 65534
    assert max(len(v.encode()) for d in meant["docs"] for v in d.values()) <= 4095
    assert max(len(w.encode()) for w in meant["words"]) <= 4095
    assert "a" * 4000 in "".join(meant["words"])
    stats = json.loads((tmp_path / target / "stats.json").read_text())
    tokenize = next(s for s in stats["stages"] if s["stage"] == "tokenize")
    assert tokenize["extra"]["tokens_split"] >= 1 and tokenize["extra"]["values_cut"] >= 1
    # clean text: no control characters or non-characters; titles as paragraph text
    everything = "".join(meant["words"]) + "".join(v for d in meant["docs"] for v in d.values())
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufdd0-\ufdef\ufffe\uffff\U0010fffe\U0010ffff]", everything)
    assert docs["http://adv.example/cafe"]["title"] == "Caf\u00e9 zerowidth softhyphen"
    assert docs["http://adv.example/controls"]["title"] == "Bell and end"
    assert docs["http://adv.example/quote"]["title"] == 'He said "yes" & <left>\\ \\"'
    assert docs['http://adv.example/q?a=1&b="2"']["title"] == "Folder C:\\"
    # a character over the limit by itself is cut between its code points (the title was "T")
    zalgo = docs["http://adv.example/zalgo"]["title"]
    assert zalgo.startswith("T \u00e9\u0301\u0301") and len(zalgo.encode()) > 4090
    if target == "cwb":
        well_formed_xml(out)
    # the same file read by the other corpus manager would not round-trip, and vert-check says so
    from corpustool.writers.vert_check import check_file
    other = "manatee" if target == "cwb" else "cwb"
    assert check_file(str(out), other).problems > 0


def test_registry_is_refused_without_a_vertical_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.txt"),
                        "--lang", "en", "--registry", str(tmp_path / "reg")], capture_output=True, text=True,
                       cwd=REPO, timeout=300)
    assert r.returncode == 2 and "--registry needs a vertical output file" in r.stderr


def test_registry_declares_what_was_written(tmp_path):
    out = tmp_path / "c.vert"
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(out), "--lang", "en",
                        "--no-sentences", "--registry", str(tmp_path / "reg"), "-q"], capture_output=True,
                       text=True, cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    conf = (tmp_path / "reg" / "c.manatee").read_text()
    registry = (tmp_path / "reg" / "registry" / "c").read_text()
    assert "<s>" not in out.read_text() and "STRUCTURE s" not in conf and "STRUCTURE s\n" not in registry
    assert "STRUCTURE g {" in conf and "STRUCTURE doc_title" in registry
    encode_sh = (tmp_path / "reg" / "encode.sh").read_text()
    assert "-S doc:0+id+url+title" in encode_sh and "-x" in encode_sh


def test_release_makefile_compiles_the_cwb_corpus(tmp_path):
    """`release init --target cwb`, `make`, `make encode`: the release's corpus in CWB."""
    env = _tool_env("cwb")
    rel = tmp_path / "rel"
    r = subprocess.run([sys.executable, "-m", "corpustool", "release", "init", str(rel), "--input", str(DEMO),
                        "--lang", "en,de,cs", "--target", "cwb"], capture_output=True, text=True, cwd=REPO,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    for goal in ("all", "encode"):
        r = subprocess.run(["make", "-C", str(rel), goal], capture_output=True, text=True, env=env, timeout=900)
        assert r.returncode == 0, r.stdout + r.stderr
    meant = read_vertical(rel / "corpus.vert.gz", "cwb")
    stored = cwb_stored(rel / "registry", ["title"])
    assert stored["counts"] == meant["counts"] and stored["words"] == meant["words"]
    assert [d["title"] for d in stored["docs"]] == [d["title"] for d in meant["docs"]]


def test_vert_filter_takes_the_target_and_sentences_options(tmp_path):
    """`corpustool vert` writes for either tool, as build does (no corpus manager needed)."""
    stream = subprocess.run(f"{sys.executable} -m corpustool read {DEMO} | {sys.executable} -m corpustool clean "
                            "--lang en,de,cs", shell=True, capture_output=True, cwd=REPO, timeout=600)
    assert stream.returncode == 0, stream.stderr
    outs = {}
    for target, extra in (("cwb", []), ("manatee", []), ("manatee", ["--no-sentences"])):
        r = subprocess.run([sys.executable, "-m", "corpustool", "vert", "--target", target, *extra],
                           input=stream.stdout, capture_output=True, cwd=REPO, timeout=600)
        assert r.returncode == 0, r.stderr
        outs[(target, bool(extra))] = r.stdout.decode("utf-8")
    assert "Open Kitchen &amp; Travel" in outs[("cwb", False)]
    assert "Open Kitchen & Travel" in outs[("manatee", False)] and "&amp;" not in outs[("manatee", False)]
    assert "<s>" in outs[("manatee", False)] and "<s>" not in outs[("manatee", True)]
    path = tmp_path / "c.vert.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(outs[("cwb", False)])
    well_formed_xml(path)


# -- paths with spaces, quotes and backslashes -------------------------------------------------

# each folder holds the corpus, the registry and the data; Manatee quotes a path with ' or ", so no
# one path has both (refused, below)
ODD_DIRS = ["my corpus/it's here", 'say "q" \\b\\']


@pytest.mark.parametrize("odd", ODD_DIRS, ids=["space-apostrophe", "quote-backslash"])
@pytest.mark.parametrize("target", ["cwb", "manatee"])
def test_registry_paths_with_spaces_quotes_and_backslashes(tmp_path, target, odd):
    env = _tool_env(target)
    base = tmp_path / odd
    base.mkdir(parents=True)
    page = base / "page.html"
    page.write_text(f"<html lang=\"en\"><head><title>Quay</title></head><body>{BODY.format(extra='')}</body></html>")
    out, reg = base / "c.vert.gz", base / "reg"
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(page), "-o", str(out), "--lang", "en",
                        "--target", target, "--registry", str(reg), "-q"], capture_output=True, text=True,
                       cwd=REPO, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["sh", str(reg / "encode.sh"), target], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr

    def query() -> str:
        if target == "cwb":
            q = subprocess.run(["cqp", "-r", str(reg / "registry"), "-D", "C"], input='[word="quay"];\n',
                               capture_output=True, text=True, env=env, timeout=120)
        else:
            q = subprocess.run(["corpquery", str(reg / "c.manatee"), '[word="quay"]'], capture_output=True,
                               text=True, env=env, timeout=120)
        assert q.returncode == 0, q.stderr
        return re.sub(r"<\s*(\S+)\s*>", r"<\1>", q.stdout)     # corpquery writes "< quay >"

    found = query()
    assert "new <quay> would" in found, found      # the hit in its context: the text came back
    if target == "manatee":
        # the configuration's VERTICAL (| zcat PATH) is a command line of its own: encode through it
        shutil.rmtree(reg / "manatee" / "c")
        r = subprocess.run(["encodevert", "-c", str(reg / "c.manatee")], capture_output=True, text=True,
                           env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        assert "new <quay> would" in query()


@pytest.mark.parametrize("odd,target,says", [
    ("line\nbreak", "manatee", "line break (U+000A)"),
    ("both ' and \"", "manatee", "both ' and \""),
    ("co:lon", "cwb", "it has ':'"),
])
def test_registry_refuses_a_path_the_tools_cannot_hold(tmp_path, odd, target, says):
    out = tmp_path / "c.vert"
    r = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(out), "--lang", "en",
                        "--target", target, "--registry", str(tmp_path / odd), "-q"], capture_output=True,
                       text=True, cwd=REPO, timeout=300)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert repr(str(tmp_path / odd)) in r.stderr or repr(str(tmp_path / odd / "registry")) in r.stderr
    assert not out.exists()


@pytest.mark.parametrize("target", ["cwb", "manatee"])
def test_vert_stream_with_given_tokens_and_empty_documents_round_trips(tmp_path, target):
    """`corpustool vert` on a stream's own tokens (tabs, line breaks, `<doc>`, NUL, empty ones) and
    documents without a token: both tools store every token and every document's values as written
    (an empty <doc> was dropped by both, shifting the later documents' values)."""
    from corpustool.writers.registry import write_registry
    from tests.writers.test_vertical_stream import write_stream

    _tool_env(target)
    out, r = write_stream(tmp_path, target)
    assert r.returncode == 0, r.stderr
    structures = {"doc": {"id", "url", "title", "lang", "domain", "tld", "site", "wordcount", "length"},
                  "p": {"heading"}, "s": set(), "g": set()}
    write_registry(str(tmp_path / target / "reg"), out, structures, target)
    meant = check_round_trip(Path(out), tmp_path / target / "reg", target)
    assert [d["id"] for d in meant["docs"]] == ["t1", "t6", "t7"]
    # a title of white space and invisible characters is stored as no title is
    stored = cwb_stored(tmp_path / target / "reg", ["title"]) if target == "cwb" else \
        manatee_stored(tmp_path / target / "reg", ["title"])
    assert stored["docs"][1]["title"] == stored["docs"][2]["title"] == ("" if target == "cwb" else "===NONE===")


def test_escaped_values_never_make_a_line_cwb_refuses(tmp_path):
    """Each value is at most 4,095 bytes, but `&quot;` is six: an id, a URL and a title of quotes
    made a <doc> line of 74,084 bytes, and cwb-encode aborted the whole encode on line 1."""
    _tool_env("cwb")
    page = (f"<html lang=\"en\"><head><title>{'&quot;' * 5000}</title></head><body>"
            f"<h1>Harbour news</h1>{BODY.format(extra='')}</body></html>")
    src = tmp_path / "quotes.jsonl"
    src.write_text(json.dumps({"id": '"' * 5000, "url": "http://q.example/" + '"&' * 3000, "html": page}) + "\n"
                   + json.dumps({"id": "second", "url": "http://q.example/2", "html": page.replace("Harbour", "Port")})
                   + "\n", encoding="utf-8")
    out, reg = build(tmp_path, [src], "cwb", "--no-dedup-near", "--no-dedup-para")
    meant = check_round_trip(out, reg, "cwb")
    with gzip.open(out, "rb") as fh:
        head = fh.readline()
    assert 60000 < len(head) - 1 <= 65533
    first = meant["docs"][0]
    assert first["id"] == '"' * len(first["id"]) and len(first["id"]) > 3000
    assert first["url"].startswith('http://q.example/"&"&') and first["title"].startswith('"' * 3000)
    assert meant["docs"][1]["id"] == "second"
    stats = json.loads((tmp_path / "cwb" / "stats.json").read_text())
    tokenize = next(s for s in stats["stages"] if s["stage"] == "tokenize")
    assert tokenize["extra"]["values_cut"] >= 5
