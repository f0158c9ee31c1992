"""`corpustool onion` on onion's algorithm over bytes (corpustool.dedup.onion_vertical): lines kept
byte for byte, onion's rules (the compiled engine against its Python twin on random input:
tests/native/test_backend_parity.py)."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from corpustool.cli import main as cli_main
from corpustool.dedup.onion_vertical import PyEngine, compiled, engine

needs_compiled = pytest.mark.skipif(not compiled(), reason="corpustool.native._onion not built")


def words(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def doc(doc_id: str, paragraphs: list[list[str]], nl: str = "\n") -> str:
    lines = [f'<doc id="{doc_id}">']
    for p in paragraphs:
        lines += ["<p>", *p, "</p>"]
    lines.append("</doc>")
    return nl.join(lines) + nl


def run(make, data: bytes, chunk: int, **options) -> tuple[bytes, dict]:
    e = make(**options)
    out = [e.feed(data[i:i + chunk]) for i in range(0, len(data), chunk)]
    out.append(e.finish())
    st = e.stats()
    st.pop("set_bytes")
    st.pop("stored_hashes")
    return b"".join(out), st


def test_lines_are_kept_byte_for_byte(tmp_path):
    """Issue 19 point 7: CR, CRLF, invalid UTF-8, NUL and a last line without newline come out as they went in."""
    body = [b"caf\xc3\xa9", b"na\xefve", b"cr\r", b"nul\x00byte", b"\xff\xfe", b""] + [b"w%d" % i for i in range(30)]
    raw = (b'<doc id="1">\r\n<p>\r\n' + b"\r\n".join(body) + b"\r\n</p>\r\n</doc>\r\n"
           + b'<doc id="2">\n<p>\n' + b"\n".join(b"u%d\r" % i for i in range(30)) + b"\n</p>\n</doc>")
    src = tmp_path / "in.vert"
    src.write_bytes(raw)
    out = tmp_path / "out.vert"
    assert cli_main(["onion", "-q", "-s", "-o", str(out), str(src)]) == 0
    assert out.read_bytes() == raw
    assert cli_main(["onion", "-q", "-o", str(out), str(src)]) == 0
    marked = out.read_bytes()
    assert marked.startswith(b'0\t<doc id="1">\r\n') and marked.endswith(b"0\t</doc>")
    assert b"".join(line[2:] for line in marked.split(b"\n")[:-1]) + marked.split(b"\n")[-1][2:] \
        == raw.replace(b"\n", b"")
    # stdin to stdout, as a filter
    res = subprocess.run([sys.executable, "-m", "corpustool", "onion", "-q", "-s"], input=raw, capture_output=True)
    assert res.returncode == 0 and res.stdout == raw


def test_onion_rules(tmp_path):
    A, B, C = words("a", 30), words("b", 30), words("c", 30)
    text = doc("1", [A, B]) + doc("2", [C, A]) + doc("3", [B, ["short", "stub"], A]) + doc("4", [C + C])
    data = text.encode()
    out, st = run(engine, data, 1 << 20)
    marks = [line[:1] for line in out.split(b"\n")[:-1]]
    lines = text.split("\n")[:-1]
    by_doc = {}
    current = None
    for m, line in zip(marks, lines):
        if line.startswith("<doc"):
            current = line
        by_doc.setdefault(current, []).append((m, line))
    # doc 2: A repeats document 1's paragraph
    d2 = by_doc['<doc id="2">']
    assert all(m == b"1" for m, l in d2 if l.startswith("a"))
    assert all(m == b"0" for m, l in d2 if l.startswith("c"))
    # doc 3: B and A are duplicates, the 2-token paragraph between them a stub: all removed, tags too
    assert all(m == b"1" for m, _ in by_doc['<doc id="3">'])
    # doc 4: C repeated inside one document: onion counts n-grams seen earlier in the document,
    # and C was kept in document 2: all gone
    assert all(m == b"1" for m, l in by_doc['<doc id="4">'] if l.startswith("c"))
    assert st["documents"] == 4 and st["documents_removed"] == 2
    # a short document (<= 20 tokens in all) is a stub between the document's edges, as in onion
    short, _ = run(engine, doc("9", [words("z", 12)]).encode(), 1 << 20)
    assert all(line.startswith(b"1\t") for line in short.split(b"\n")[:-1])
    kept, _ = run(engine, doc("9", [words("z", 12)]).encode(), 1 << 20, stub_rule="inner")
    assert all(line.startswith(b"0\t") for line in kept.split(b"\n")[:-1])


def test_context_rule_removes_a_near_duplicate_only_between_duplicates():
    """Seed 003 Sect. 3.5.2: a paragraph partly duplicate (here 10 of 30 tokens, under -t 0.5) goes
    when the paragraphs around it are duplicates (a rewritten copy of a document), stays when a
    unique paragraph is next to it (a new page quoting a phrase)."""
    A, B, C, D = words("a", 30), words("b", 30), words("c", 30), words("d", 30)
    edited = B[:10] + words("x", 20)                   # a third of it duplicate
    edited2 = B[:10] + words("y", 20)
    text = (doc("1", [A, B, C]) + doc("copy", [A, edited, C]) + doc("new", [D, edited2, words("e", 30)]))

    def marks(**options):
        out, _ = run(engine, text.encode(), 1 << 20, smoothing=False, **options)
        got = {}
        for line in out.decode().split("\n")[:-1]:
            m, _, tok = line.partition("\t")
            got.setdefault(tok[:1], set()).add(m)
        return got

    without = marks()
    assert without["x"] == {"0"} and without["y"] == {"0"}        # onion keeps both
    got = marks(near=0.2)
    assert got["x"] == {"1"}                                       # between two duplicates: removed
    assert got["y"] == {"0"} and got["d"] == {"0"} and got["e"] == {"0"}   # unique neighbours: kept
    assert marks(near=0.4)["x"] == {"0"}                           # a third is not above 0.4
    with pytest.raises(ValueError):
        engine(near=0.6, threshold=0.5)


def test_skip_punct_finds_a_copy_with_other_punctuation():
    """Punctuation left out of n-grams (seed 003 Table 3.4's "excl. punct"): a copy whose commas and
    dashes differ is found; the punctuation tokens still count for the stub rule and statistics."""
    from corpustool.dedup.onion_vertical import is_word_token

    assert [is_word_token(t.encode()) for t in ["word", "9", "_", "ä", "日本", ",", "–", "“", "€", "...", "",
                                                  "😀", "©"]] == [True] * 5 + [False] * 8
    assert is_word_token(b"\xff") and is_word_token(b"\xc3") and not is_word_token(b"\xe2\x80\x93-")
    A = words("a", 30)
    with_commas = [t for w in A for t in (w, ",")]
    with_dashes = [t for w in A for t in (w, "\u2013")]
    text = doc("1", [with_commas]) + doc("2", [with_dashes])
    plain, st = run(PyEngine, text.encode(), 1 << 20)
    assert b"1\t" not in plain                       # onion: every 7-gram holds a comma or a dash
    out, st = run(PyEngine, text.encode(), 1 << 20, skip_punct=True)
    assert out.count(b"1\ta") == 30 and st["tokens"] == 120 and st["ngrams"] == 2 * (30 - 6)


def random_vertical(rng: random.Random) -> bytes:
    vocab = [b"w%d" % i for i in range(rng.choice([3, 20, 200]))] + [b"", b"<g/>", b"x\r", b"\xff", b"<", b"<p",
                                                                     b",", b"\xe2\x80\x93", b"\xc3", b"--"]
    tags = [b"<doc>", b'<doc id="x">', b"</doc>", b"<p>", b"</p>", b"<p x>", b"<doc", b"</doc>x", b"<s>"]
    lines = []
    for _ in range(rng.randrange(0, 400)):
        lines.append(rng.choice(tags) if rng.random() < 0.15 else rng.choice(vocab))
    data = b"\n".join(lines)
    if rng.random() < 0.7:
        data += b"\n"
    return data


@needs_compiled
def test_two_pass_equals_single_pass_and_dupngrams_file(tmp_path):
    rng = random.Random(5)
    paras = [words(f"p{i}_", 25) for i in range(30)]
    text = "".join(doc(str(d), [rng.choice(paras) for _ in range(rng.randrange(1, 6))]) for d in range(60))
    src = tmp_path / "in.vert"
    src.write_text(text)
    out1, out2, out3 = (tmp_path / f"o{i}" for i in range(3))
    dup = tmp_path / "dup.bin"
    assert cli_main(["onion", "-q", "-o", str(out1), str(src)]) == 0
    assert cli_main(["dupngrams", "-q", "-o", str(dup), str(src)]) == 0
    assert cli_main(["onion", "-q", "-f", str(dup), "-o", str(out2), str(src)]) == 0
    assert cli_main(["onion", "-q", "--two-pass", "-o", str(out3), str(src)]) == 0
    assert out1.read_bytes() == out2.read_bytes() == out3.read_bytes()
    assert out1.read_bytes().count(b"1\t") > 100
    # the same with onion's behaviour, and --onion-compat's marks are the engine's onion defaults
    c1, c2 = tmp_path / "c1", tmp_path / "c2"
    assert cli_main(["onion", "-q", "--onion-compat", "-o", str(c1), str(src)]) == 0
    assert cli_main(["dupngrams", "-q", "--onion-compat", "-o", str(dup), str(src)]) == 0
    assert cli_main(["onion", "-q", "--onion-compat", "-f", str(dup), "-o", str(c2), str(src)]) == 0
    assert c1.read_bytes() == c2.read_bytes() == run(PyEngine, src.read_bytes(), 1 << 20)[0]
    # a -f file made with other whole-paragraph settings is refused
    assert cli_main(["onion", "-q", "-f", str(dup), "-o", str(c2), str(src)]) == 2
    # spilled to disk (pass 1's buffers full) gives the same file
    big = tmp_path / "big.vert"
    big.write_text(text * 40)
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    assert cli_main(["dupngrams", "-q", "-o", str(d1), str(big)]) == 0
    e = PyEngine(mode=1, whole_paragraphs=True, skip_punct=True)
    e.feed(big.read_bytes())
    e.finish()
    with open(d2, "wb") as fh:
        from corpustool.dedup.onion_vertical import write_dup_header
        write_dup_header(fh, {"n": 7, "skip_punct": True, "skip_stopwords": False, "stoplist": None,
                              "hash_bits": 64, "whole_paragraphs": True, "hash": "onion-vertical-v1"})
        e.write_duplicates(fh)
    assert d1.read_bytes() == d2.read_bytes()


def test_bad_options_and_files(tmp_path, capsys):
    src = tmp_path / "in.vert"
    src.write_text(doc("1", [words("a", 30)]))
    assert cli_main(["onion", "-q", "-n", "0", str(src)]) == 2
    assert cli_main(["onion", "-q", "-t", "2", str(src)]) == 2
    assert cli_main(["onion", "-q", str(tmp_path / "missing.vert")]) == 2
    bad = tmp_path / "bad.dup"
    bad.write_bytes(b"garbage")
    assert cli_main(["onion", "-q", "-f", str(bad), str(src)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "not a duplicate n-gram file" in err


@pytest.mark.parametrize("options", [["--engine", "extended"], ["--skip-stopwords", "--stoplist", "en"], ["--document-level"],
                                     ["--reorder", "--two-pass"]], ids=lambda o: o[0])
def test_the_extended_engine_keeps_cr_and_crlf_byte_for_byte(tmp_path, options):
    """Issue 29 item 11: a lone CR does not split a line, CRLF stays CRLF; marks line up with input lines."""
    body = [b"caf\xc3\xa9", b"lone\rcr", b"cr\r", b"na\xefve", b""] + [b"w%d" % i for i in range(30)]
    raw = (b'<doc id="1">\r\n<p>\r\n' + b"\r\n".join(body) + b"\r\n</p>\r\n</doc>\r\n"
           + b'<doc id="2">\n<p>\n' + b"\n".join(b"u%d\r" % i for i in range(30)) + b"\nx\ry\n</p>\n</doc>\n")
    src = tmp_path / "in.vert"
    src.write_bytes(raw)
    out = tmp_path / "out.vert"
    assert cli_main(["onion", "-q", "-s", *options, "-o", str(out), str(src)]) == 0
    assert out.read_bytes() == raw
    assert cli_main(["onion", "-q", *options, "-o", str(out), str(src)]) == 0
    marked = out.read_bytes().split(b"\n")[:-1]
    lines = raw.split(b"\n")[:-1]
    assert len(marked) == len(lines)
    assert [m[:2] in (b"0\t", b"1\t") for m in marked] == [True] * len(lines)
    assert [m[2:] for m in marked] == lines
    if "--two-pass" not in options:     # (two passes read a file, not stdin)
        res = subprocess.run([sys.executable, "-m", "corpustool", "onion", "-q", "-s", *options], input=raw,
                             capture_output=True)
        assert res.returncode == 0 and res.stdout == raw


# -- the library run behind the command (corpustool.dedup.onion_files) ------------------------------

@pytest.mark.parametrize("extended", [False, True])
def test_library_run_marks_the_repeated_document_as_the_command_does(tmp_path, capsys, extended):
    from corpustool.dedup.onion_files import VerticalOnion, run_onion
    from corpustool.dedup.onion_options import OnionOptions

    text = (doc("a", [words("a", 12), words("b", 12)]) + doc("b", [words("a", 12), words("c", 12)]))
    src = tmp_path / "in.vert"
    src.write_text(text, encoding="utf-8")
    lib_out, cli_out = tmp_path / "lib.vert", tmp_path / "cli.vert"
    # what the command's defaults resolve to on vertical input (resolve_vertical_defaults)
    options = OnionOptions(skip_punct=True, whole_paragraphs=True, within_document="paragraphs")
    stats = run_onion(VerticalOnion(input=str(src), output=str(lib_out), options=options, extended=extended))
    argv = ["onion", str(src), "-o", str(cli_out), "-q"] + (["--engine", "extended"] if extended else [])
    assert cli_main(argv) == 0
    assert lib_out.read_bytes() == cli_out.read_bytes()
    marked = lib_out.read_text(encoding="utf-8").splitlines()
    second = marked[marked.index('0\t<doc id="b">'):]
    assert [line.split("\t")[0] for line in second if line.endswith("a0")] == ["1"]   # the repeated paragraph
    assert [line.split("\t")[0] for line in second if line.endswith("c0")] == ["0"]
    assert stats["paragraphs"] == 4 and stats["paragraphs_removed"] == 1


def test_library_errors_name_parameters_and_the_command_names_flags(tmp_path, capsys):
    from corpustool.dedup.onion_files import VerticalOnion, run_onion
    from corpustool.errors import OptionError

    src = tmp_path / "in.vert"
    src.write_text(doc("a", [words("a", 12)]), encoding="utf-8")
    with pytest.raises(OptionError, match="^max_doc_tokens must be positive"):
        run_onion(VerticalOnion(input=str(src), output=str(tmp_path / "o"), extended=True, max_doc_tokens=0))
    assert cli_main(["onion", str(src), "--engine", "extended", "--max-doc-tokens", "0", "-q"]) == 2
    assert "--max-doc-tokens must be positive" in capsys.readouterr().err
