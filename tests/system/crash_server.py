"""Fork server of the crash-regression tests (issue 19): each input is cleaned in a fresh child.

Run as a fresh interpreter (``python tests/system/crash_server.py SUITE``): it imports corpustool and
builds the clean stages once, parses nothing itself, then forks one child per input. The child
cleans the input and exits 0; a signal (segmentation fault, abort, or the alarm of a hang), an
exception or a counted ``error:`` drop is a failure. So every input meets the parser in the state
of a fresh process (a crash that needs a fresh process is not hidden by earlier parses) and a crash
fails the test instead of killing the test run. Forking a process that has imported everything is
cheap (about a millisecond), so thousands of inputs take seconds.

Output: one JSON line per failed input (its label, the configuration, the exit status or signal,
and the file the input was saved to), then ``{"done": N}``.
"""
from __future__ import annotations

import gc
import gzip
import json
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[2]   # (run as a script: tests/system/crash_server.py)
DATA = REPO.parent / "shared" / "data"
SNIPPET_PAGES = DATA / "snippets" / "pages"
WCXB_PAGES = DATA / "wcxb-dev" / "html"

# (name, extractor, languages, given as text): the default path (justext-plus through the clean
# stage, from bytes and from a decoded string as extract_text(str) gives it) and the classic engine,
# with one stoplist, another one, and the language guessed before cleaning
CONFIGS = [
    ("justext-plus/en", "justext-plus", ["en"], False),
    ("justext-plus/auto", "justext-plus", ["auto"], False),
    ("justext-plus/de/str", "justext-plus", ["de"], True),
    ("justext/en", "justext", ["en"], False),
    ("justext/de", "justext", ["de"], False),
    ("justext/auto/str", "justext", ["auto"], True),
]
HANG_SECONDS = 30     # a child still running after this is killed by SIGALRM: a hang
EXIT_EXCEPTION, EXIT_ERROR_DROP = 3, 4

# the crashers of issue 19: an attribute value cut off by the end of the input (a NULL value
# buffer), and many empty values after a long one (a write past the value buffer)
KNOWN_CRASHERS = [
    b"<a href=", b"<p class=", b"x<b c= ",
    b'<a x="' + b"y" * 4088 + b'"' + b' a=""' * 20 + b">t</a>",
]


def dev_page_files() -> list[Path]:
    """Every development page file, in name order; empty when the data is absent."""
    files = []
    if SNIPPET_PAGES.is_dir():
        files += sorted(SNIPPET_PAGES.glob("*.html"))
    if WCXB_PAGES.is_dir():
        files += sorted(WCXB_PAGES.glob("*.html.gz"))
    return files


def read_page(path: Path) -> tuple[str, bytes]:
    """(label, raw bytes) of a development page, read when its turn comes: the server stays small,
    and so does the cost of each fork."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError):
            pass
    return f"{path.parent.parent.name}/{path.name}", raw


def edge_inputs() -> list[tuple[str, bytes]]:
    """Hand-made inputs for each way markup can be cut or broken (issue 19, point 4)."""
    out = [(f"known crasher {i}", raw) for i, raw in enumerate(KNOWN_CRASHERS)]
    page = (b'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>T &amp; t</title>'
            b'<script>var a = "<p>" < 3;</script><style>p{x:"y"}</style></head><body>'
            b'<div class="main" id=\'m\' data-x=y hidden><p title="a &quot;b&quot; c">The text of the '
            b"article is long enough to be kept &copy; &#169; &#xA9; &bogus; &#0; &#xD800; &#99999999;"
            b" and more words.</p><!-- a comment -- with -- dashes --><![CDATA[ raw ]]>"
            b"<?php echo 1 ?><a href='/x?a=1&b=2'>link</a><br/><img src=x alt=\"\"></div></body></html>")
    # every cut of a page that has every construct: inside tag names, attribute names and values
    # (quoted, unquoted, empty), entities, comments, CDATA, processing instructions
    out += [(f"edge page cut at {n}", page[:n]) for n in range(len(page) + 1)]
    for stub in [b"<a href=", b"<a href='", b'<a href="', b"<a href=x", b"<a href", b"<a ", b"<a", b"<",
                 b"</", b"</a", b"<!", b"<!-", b"<!--", b"<!-- x -", b"<![CDATA[", b"<![CDATA[x]", b"<?",
                 b"<?xml", b"&", b"&am", b"&#", b"&#x", b"&#12", b"<!DOCTYPE", b"<a b=c d=", b"<a b= =c",
                 b'<a b="" c="" d=', b"<a =>", b"<a ==>", b"<a b=''''>", b"<a/b/c=d/>"]:
        out.append((f"stub {stub!r}", stub))
        out.append((f"stub {stub!r} after text", b"<html><body><p>Some text here. " + stub))
        out.append((f"stub {stub!r} with NUL", stub + b"\x00"))
    out += [
        ("NUL bytes", b"<p>te\x00xt</p>\x00<a hr\x00ef=\x00x>\x00</a>" + b"\x00" * 100),
        ("NUL in attribute value", b'<a href="\x00\x00">x</a><p class=\x00>y'),
        ("invalid UTF-8", b'<meta charset="utf-8"><p>\xff\xfe\xc3\x28 \xe2\x82 \xf0\x28\x8c\xbc text</p><a b="\xc3">'),
        ("invalid UTF-8 in tag names", b"<\xff\xfe>x</\xff\xfe><p\xc3 c\x80=\xe2>y"),
        ("UTF-16 declared, not UTF-16", b'<meta charset="utf-16"><p>text</p>'),
        ("lone surrogates as entities", b"<p>&#xD800;&#xDFFF;&#55296;</p>"),
        ("enormous attribute value", b'<a x="' + b"y" * 1_000_000 + b'">t</a><p>after</p>'),
        ("enormous unterminated attribute value", b'<a x="' + b"y" * 1_000_000),
        ("enormous attribute name", b"<a " + b"x" * 200_000 + b"=1>t</a>"),
        ("many attributes", b"<a" + b"".join(b" a%d=\"%d\"" % (i, i) for i in range(20_000)) + b">t</a>"),
        ("many empty values after long ones", b"".join(b'<a x="' + b"y" * n + b'"' + b' a=""' * 300 + b">t</a>"
                                                       for n in (100, 1000, 4088, 4096, 8191, 70_000))),
        ("many empty values unquoted", b"<a" + b" a=" * 5000 + b">t</a>"),
        ("duplicate attributes", b'<p class="a" class="b" CLASS=c id=1 id=2>x</p>' * 50),
        ("deep nesting", b"<div>" * 100_000 + b"deep text " * 20),
        ("deep nesting of inline", b"<b><i>" * 50_000 + b"x"),
        ("deep nesting closed", b"<div><p><span>" * 20_000 + b"x" + b"</span></p></div>" * 20_000),
        ("enormous comment", b"<!--" + b"-" * 500_000),
        ("enormous text", b"<p>" + b"word " * 400_000),
        ("many entities", b"<p>" + b"&amp;&lt;&#1;&#x1F600;&nbsp" * 50_000),
        ("only angle brackets", b"<" * 100_000),
        ("binary junk", bytes(random.Random(7).randrange(256) for _ in range(50_000))),
        ("control bytes", bytes(range(32)) * 100),
        ("BOM only", b"\xef\xbb\xbf"),
        ("UTF-16 BOM, odd length", b"\xff\xfe<\x00p\x00>\x00x"),
    ]
    rng = random.Random(19)
    for i in range(40):   # seeded tag soup of the constructs above
        parts = [rng.choice([b"<a", b" href=", b'"', b"'", b"=", b">", b"</a>", b"<!--", b"-->", b"&amp", b";",
                             b"<![CDATA[", b"]]>", b"\x00", b"\xff", b"<p class=", b"text ", b"<div>", b"/>",
                             b'=""', b"<script>", b"</script>", b"<title>", b"<?x"]) for _ in range(rng.randint(1, 400))]
        out.append((f"seeded soup {i}", b"".join(parts)))
    return out


def page_prefixes(files: list[Path], n_pages: int, length: int, seed: int = 19) -> Iterator[tuple[str, bytes]]:
    """Every prefix (every byte) of the first ``length`` bytes of a seeded sample of pages."""
    for path in random.Random(seed).sample(files, min(n_pages, len(files))):
        label, raw = read_page(path)
        for n in range(1, min(length, len(raw)) + 1):
            yield f"{label} cut at {n}", raw[:n]


def page_cuts(files: list[Path], per_page: int, seed: int = 19) -> Iterator[tuple[str, bytes]]:
    """Seeded cuts of every page further on: right after ``=``, a quote, ``&``, ``<!--``, ``<!`` or
    ``<`` (inside attribute values, entities, comments, tags), and at random bytes."""
    rng = random.Random(seed)
    marks = (b"=", b'="', b"='", b"&", b"<!--", b"<!", b"<")
    for path in files:
        label, raw = read_page(path)
        for k in range(per_page):
            if k % 2 == 0 and len(raw) > 1:
                mark = marks[rng.randrange(len(marks))]
                at = raw.find(mark, rng.randrange(len(raw)))
                n = at + len(mark) if at >= 0 else rng.randrange(1, len(raw))
            else:
                n = rng.randrange(1, max(2, len(raw)))
            yield f"{label} cut at {n}", raw[:n]


def suite(name: str, args: list[str]) -> Iterator[tuple[str, bytes, int]]:
    """(label, input, configuration index) of a named suite; configurations rotate over big suites."""
    if name == "edge":        # every edge input in every configuration; the page's cuts rotate
        for i, (label, raw) in enumerate(edge_inputs()):
            for c in ([i % len(CONFIGS)] if label.startswith("edge page cut") else range(len(CONFIGS))):
                yield label, raw, c
    elif name == "selftest":  # the server's own check: a crash, a hang and an exception are reported
        for label in ("segfault", "hang", "exception"):
            yield label, label.encode(), 0
    elif name == "known":
        for i, raw in enumerate(KNOWN_CRASHERS):
            for c in range(len(CONFIGS)):
                yield f"known crasher {i}", raw, c
    elif name == "prefixes":  # args: pages, bytes
        items = page_prefixes(dev_page_files(), int(args[0]), int(args[1]))
        for i, (label, raw) in enumerate(items):
            yield label, raw, i % len(CONFIGS)
    elif name == "cuts":      # args: cuts per page, pages taken (every page: 0)
        pages = dev_page_files()
        take = int(args[1]) if len(args) > 1 else 0
        if take:
            pages = random.Random(20).sample(pages, min(take, len(pages)))
        for i, (label, raw) in enumerate(page_cuts(pages, int(args[0]))):
            yield label, raw, i % len(CONFIGS)
    else:
        raise SystemExit(f"crash_server: unknown suite {name!r}")


def run_child(stage, raw: bytes, as_text: bool, selftest: bool = False) -> int:
    from corpustool.document import Document

    signal.alarm(int(os.environ.get("CRASH_HANG_SECONDS") or HANG_SECONDS))
    if selftest:
        if raw == b"segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif raw == b"hang":
            time.sleep(3600)
        raise SystemExit(EXIT_EXCEPTION)
    doc = Document(id="input", url="http://crash.example/page")
    if as_text:
        doc.html, doc.encoding, doc.encoding_source = raw.decode("utf-8", "replace"), "utf-8", "given"
    else:
        doc.raw = raw
    try:
        doc = stage.process(doc)
    except BaseException:   # noqa: BLE001 - any exception is a failure, reported with its traceback
        import traceback
        traceback.print_exc()
        return EXIT_EXCEPTION
    if doc.drop_reason and doc.drop_reason.startswith("error:"):
        return EXIT_ERROR_DROP
    return 0


def warm_up() -> None:
    """Load what the clean stage loads lazily (the language guess's module and tables), so each child
    does not load it again; no HTML is parsed here: the parser's state stays that of a fresh process."""
    from corpustool.language.identify import (PageWords, guess_stoplist_language, identify, no_stoplist_reason,
                                              stopword_density)

    words = PageWords("the of and to in der die und das le la et de el que y ")
    guess_stoplist_language(words, None)
    guess_stoplist_language(words, ["en", "de"])
    stopword_density(words, identify(words).lang)
    no_stoplist_reason(words, None)


def main(argv: list[str]) -> int:
    from corpustool.extractors.clean import Clean

    stages = [Clean(extractor=ext, languages=langs) for _, ext, langs, _ in CONFIGS]
    warm_up()
    save_dir = Path(os.environ.get("CRASH_SAVE_DIR") or tempfile.mkdtemp(prefix="corpustool-crash-"))
    gc.freeze()
    done, start = 0, time.perf_counter()
    for label, raw, c in suite(argv[0], argv[1:]):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:   # the child: clean, then leave without running the parent's cleanup
            status = 1
            try:
                gc.disable()   # the collector would touch (and copy) every object of the parent
                status = run_child(stages[c], raw, CONFIGS[c][3], argv[0] == "selftest")
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        _, status = os.waitpid(pid, 0)
        done += 1
        if status != 0:
            path = save_dir / f"failed-{done}.html"
            path.write_bytes(raw)
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            print(json.dumps({"input": label, "config": CONFIGS[c][0], "bytes": len(raw),
                              "signal": signal.Signals(sig).name if sig else None,
                              "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                              "saved": str(path)}), flush=True)
    print(json.dumps({"done": done, "seconds": round(time.perf_counter() - start, 1)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
