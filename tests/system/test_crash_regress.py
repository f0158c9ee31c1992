"""No input crashes or hangs the clean stage (issue 19, point 4): each input in a fresh process.

The inputs run in children of a fork server started as a fresh interpreter (tests/system/crash_server.py):
a segmentation fault, an abort or a hang is a failure naming the input, never a dead test run, and
no input is helped by what earlier inputs left in the parser (the tokenizer's NULL value buffer
crashed only in a fresh process). The default path (justext-plus), the classic ``justext`` engine,
with ``en``, ``de`` and ``auto``, from bytes and from a decoded string. Dev pages are read from
../shared/data (skipped when absent); sizes scale with CORPUSTOOL_CRASH_SCALE (1 by default).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.system import crash_server

SERVER = Path(crash_server.__file__)

SCALE = max(1, int(os.environ.get("CORPUSTOOL_CRASH_SCALE") or 1))
needs_dev_pages = pytest.mark.skipif(not (crash_server.SNIPPET_PAGES.is_dir() or crash_server.WCXB_PAGES.is_dir()),
                                     reason="../shared/data (snippets, wcxb-dev) is not present")


def run_server(tmp_path: Path, *args: str, env: dict | None = None) -> tuple[list[dict], dict, str]:
    proc = subprocess.run([sys.executable, str(SERVER), *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "CRASH_SAVE_DIR": str(tmp_path), **(env or {})}, timeout=3600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines and "done" in lines[-1], proc.stdout[-3000:] + proc.stderr[-3000:]
    return [line for line in lines if "input" in line], lines[-1], proc.stderr


def assert_no_failure(tmp_path: Path, *args: str) -> int:
    failures, done, stderr = run_server(tmp_path, *args)
    assert not failures, f"{len(failures)} of {done['done']} inputs failed:\n" + "\n".join(
        f"  {f['input']} [{f['config']}]: {'signal ' + f['signal'] if f['signal'] else 'exit ' + str(f['exit'])}"
        f" (input saved as {f['saved']})" for f in failures[:30]) + "\n" + stderr[-3000:]
    return done["done"]


def test_the_server_reports_a_crash_a_hang_and_an_exception(tmp_path):
    failures, done, _ = run_server(tmp_path, "selftest", env={"CRASH_HANG_SECONDS": "2"})
    assert done["done"] == 3
    assert [(f["input"], f["signal"]) for f in failures] == [("segfault", "SIGSEGV"), ("hang", "SIGALRM"),
                                                              ("exception", None)]
    assert failures[2]["exit"] != 0
    assert Path(failures[0]["saved"]).read_bytes() == b"segfault"


def test_known_crashers_and_edge_inputs(tmp_path):
    # the crashers, every cut of a page with every construct, stubs of tags, attributes,
    # entities, comments and CDATA, NUL bytes, invalid UTF-8, enormous attributes, deep nesting
    expected = sum(1 for _ in crash_server.suite("edge", []))
    assert assert_no_failure(tmp_path, "edge") == expected > 1000


@needs_dev_pages
def test_every_prefix_of_the_head_of_dev_pages(tmp_path):
    # every byte of the first KB of a seeded sample of pages (their heads: doctype, meta
    # tags, attributes cut at every byte)
    pages, length = 2 * SCALE, 1024 * SCALE
    assert assert_no_failure(tmp_path, "prefixes", str(pages), str(length)) >= pages * length * 0.9


@needs_dev_pages
def test_seeded_cuts_of_every_dev_page(tmp_path):
    # every snippets and wcxb-dev page cut once further on (inside an attribute value, an entity,
    # a comment or a tag, or at a random byte), the configurations taking turns
    n = len(crash_server.dev_page_files())
    assert assert_no_failure(tmp_path, "cuts", str(SCALE)) == n * SCALE


@pytest.mark.parametrize("crasher", crash_server.KNOWN_CRASHERS, ids=["a-href", "p-class", "b-c", "long-value"])
def test_known_crashers_in_a_fresh_interpreter(crasher):
    code = ("import sys, corpustool\n"
            "raw = sys.stdin.buffer.read()\n"
            "for extractor in ('justext-plus', 'justext'):\n"
            "    for lang in ('en', 'auto'):\n"
            "        corpustool.extract_text(raw, language=lang, extractor=extractor)\n"
            "        corpustool.extract_text(raw.decode('utf-8', 'replace'), language=lang, extractor=extractor)\n"
            "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], input=crasher, capture_output=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == b"ok", (proc.returncode, proc.stderr[-2000:])


def test_build_of_the_known_crashers_finishes(tmp_path):
    # the user's view: `corpustool build` over pages that used to kill it with status 139
    pages = tmp_path / "pages"
    pages.mkdir()
    for i, raw in enumerate(crash_server.KNOWN_CRASHERS):
        (pages / f"crasher{i}.html").write_bytes(raw)
    (pages / "good.html").write_bytes(b"<html><body><p>" + b"This is a sentence of the article and it is long "
                                      b"enough to be kept by the extractor. " * 6 + b"</p></body></html>")
    stats = tmp_path / "stats.json"
    proc = subprocess.run([sys.executable, "-m", "corpustool", "build", str(pages), "-o", str(tmp_path / "out.vert"),
                           "--lang", "en", "--quiet", "--stats", str(stats)], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    clean = next(s for s in json.loads(stats.read_text())["stages"] if s["stage"] == "clean")
    assert clean["docs_in"] == 5 and clean["docs_out"] + sum(clean["drops"].values()) == 5
    assert "This is a sentence" in " ".join((tmp_path / "out.vert").read_text().split())
