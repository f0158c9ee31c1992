"""No silent end and no stray files: fatal errors, signals, bad -o, and two builds on one output.

Each fatal error prints one line naming the file, exits non-zero, and leaves no
temporary or partial file (OUT.tmpPID, a half-written rejects or statistics
file); outputs that cannot be written, that are an input, or that another
running build holds are refused before anything is written.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"
WORDS = ("the of and to in is that it was for on are with as his they be at one have this from or had by word "
         "but what some we can out other were all there when up use your how said an each she which do").split()


def _pages(directory: Path, n: int) -> Path:
    directory.mkdir()
    for i in range(n):
        r = random.Random(i)
        paras = "".join(f"<p>{' '.join(r.choices(WORDS, k=40))}.</p>" for _ in range(8))
        (directory / f"p{i:04d}.html").write_text(f"<html><body>{paras}</body></html>")
    return directory


def _cli(*args, cwd=None, **kw):
    return [sys.executable, "-m", "corpustool", *map(str, args)]


def _run(*args, cwd=None):
    return subprocess.run(_cli(*args), capture_output=True, text=True, cwd=cwd, timeout=300)


def _wait_for(predicate, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


# -- signals -----------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_leaves_no_temporary_or_partial_file(tmp_path, sig, workers):
    pages = _pages(tmp_path / "pages", 1500)
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen(_cli("build", pages, "-o", out / "c.vert.gz", "--lang", "en", "--rejects",
                                 out / "rejects.jsonl", "--stats", out / "stats.json", "-q",
                                 "--workers", workers),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # the run is under way once its temporary output exists
        assert _wait_for(lambda: any(".tmp" in p.name for p in out.iterdir()) or proc.poll() is not None)
        assert proc.poll() is None, "the build ended before it could be stopped"
        time.sleep(0.3)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + sig
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert sorted(p.name for p in out.iterdir()) == []          # no OUT.tmpPID, rejects, stats, lock


# -- -o that cannot be written or is an input ------------------------------------

def _assert_refused(proc, *words):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in lines[0]


def test_output_equal_to_the_input_is_refused_before_anything_is_written(tmp_path):
    crawl = tmp_path / "crawl.warc.gz"
    crawl.write_bytes(DEMO.read_bytes())
    (tmp_path / "link.warc.gz").symlink_to(crawl)
    (tmp_path / "sub").mkdir()
    before = crawl.read_bytes()
    for inp, out in (("crawl.warc.gz", "crawl.warc.gz"), ("link.warc.gz", "crawl.warc.gz"),
                     ("crawl.warc.gz", "link.warc.gz"), ("crawl.warc.gz", "sub/../crawl.warc.gz"),
                     (str(crawl), "./crawl.warc.gz")):
        proc = _run("build", inp, "-o", out, "--lang", "en", cwd=tmp_path)
        _assert_refused(proc, "is the input")
        assert crawl.read_bytes() == before
    proc = _run("build", "crawl.warc.gz", "-o", "c.vert", "--rejects", "crawl.warc.gz", cwd=tmp_path)
    _assert_refused(proc, "--rejects", "is the input")
    proc = _run("build", "crawl.warc.gz", "-o", "c.vert", "--stats", "c.vert", cwd=tmp_path)
    _assert_refused(proc, "same file")
    assert crawl.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crawl.warc.gz", "link.warc.gz", "sub"]


def test_output_under_a_regular_file_is_refused(tmp_path):
    (tmp_path / "afile").write_text("x")
    for args in (["build", DEMO, "-o", tmp_path / "afile" / "out.vert"],
                 ["build", DEMO, "-o", tmp_path / "afile" / "deeper" / "out.vert"],
                 ["build", DEMO, "-o", tmp_path / "out.vert", "--rejects", tmp_path / "afile" / "r.jsonl"],
                 ["vert", "-o", tmp_path / "afile" / "out.vert"]):
        _assert_refused(_run(*args), "afile", "not a directory")


def test_output_in_a_read_only_folder_is_refused(tmp_path):
    if sys.platform.startswith("linux"):        # /proc: no file can be created there, not even by root
        _assert_refused(_run("build", DEMO, "-o", "/proc/corpus.vert"), "cannot write", "/proc")
    if os.geteuid() != 0:                        # root may write in a folder without write permission
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        try:
            _assert_refused(_run("build", DEMO, "-o", ro / "out.vert"), "cannot write")
        finally:
            ro.chmod(0o755)


def test_output_that_is_a_directory_is_refused(tmp_path):
    _assert_refused(_run("build", DEMO, "-o", tmp_path), "is a directory")


# -- two builds on one output ------------------------------------------------------

@pytest.mark.parametrize("resume", [False, True], ids=["plain", "resume"])
def test_second_build_on_the_same_output_is_refused_at_once(tmp_path, resume):
    pages = [_pages(tmp_path / f"pages{i}", 400) for i in range(3)]
    out = tmp_path / "c.vert"
    extra = ["--resume"] if resume else []
    args = ["build", *pages, "-o", out, "--lang", "en", "--no-dedup-near", "--rejects", tmp_path / "rej.jsonl",
            "--stats", tmp_path / "stats.json", "-q", *extra]
    first = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: (tmp_path / "c.vert.lock").exists() or first.poll() is not None)
        assert first.poll() is None
        first.send_signal(signal.SIGSTOP)        # hold the first build in the middle of its work
        t0 = time.monotonic()
        second = _run(*args)
        assert time.monotonic() - t0 < 60
        first.send_signal(signal.SIGCONT)
        _, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 2
    assert len(second.stderr.strip().splitlines()) == 1
    assert "another running build" in second.stderr and f"pid {first.pid}" in second.stderr
    assert first.returncode == 0, err
    # the first build's corpus, statistics and rejects agree: nothing interleaved, nothing lost
    stats = json.loads((tmp_path / "stats.json").read_text())["stages"]
    assert out.read_text().count("<doc ") == stats[-1]["docs_out"]
    drops = sum(sum(s["drops"].values()) for s in stats)
    rejects = [json.loads(line) for line in (tmp_path / "rej.jsonl").read_text().splitlines()]
    assert len(rejects) == drops
    assert stats[0]["docs_out"] == stats[-1]["docs_out"] + drops
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.vert", "pages0", "pages1", "pages2", "rej.jsonl",
                                                          "stats.json"]


@pytest.mark.parametrize("shared", ["--rejects", "--stats", "--report"])
def test_second_build_sharing_any_output_is_refused_at_once(tmp_path, shared):
    """Issue 29, item 12: every output is locked, not -o alone."""
    pages = [_pages(tmp_path / f"pages{i}", 400) for i in range(3)]
    name = {"--rejects": "rej.jsonl", "--stats": "stats.json", "--report": "report.html"}[shared]

    def args(out):
        return ["build", *pages, "-o", tmp_path / out, "--lang", "en", "--no-dedup-near", shared, tmp_path / name,
                "-q"]
    first = subprocess.Popen(_cli(*args("a.vert")), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: (tmp_path / f"{name}.lock").exists() or first.poll() is not None)
        assert first.poll() is None
        first.send_signal(signal.SIGSTOP)
        second = _run(*args("b.vert"))
        first.send_signal(signal.SIGCONT)
        _, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert second.returncode == 2, second.stderr
    assert len(second.stderr.strip().splitlines()) == 1
    assert name in second.stderr and "another running build" in second.stderr and f"pid {first.pid}" in second.stderr
    assert first.returncode == 0, err
    # the second build left nothing, not even its own output's lock
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.vert", "pages0", "pages1", "pages2", name]


def test_lock_of_a_killed_build_does_not_block_the_next(tmp_path):
    out = tmp_path / "c.vert"
    (tmp_path / "c.vert.lock").write_text("999999\n")        # left by a build killed with SIGKILL
    proc = _run("build", DEMO, "-o", out, "--lang", "en", "-q")
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and not (tmp_path / "c.vert.lock").exists()


# -- unexpected errors: one line, no traceback ---------------------------------------

def test_unexpected_error_is_one_line_naming_the_input(tmp_path, monkeypatch, capsys):
    from corpustool.cli import main
    from corpustool.readers import warc

    def broken(*a, **k):
        raise RuntimeError("something we did not foresee")
        yield

    monkeypatch.setattr(warc, "_read_resync", broken)
    rc = main(["build", str(DEMO), "-o", str(tmp_path / "c.vert"), "--lang", "en", "-q"])
    err = capsys.readouterr().err
    assert rc == 1
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert str(DEMO) in err and "something we did not foresee" in err
    assert os.listdir(tmp_path) == []


def test_input_error_part_way_is_counted_and_the_build_goes_on(tmp_path, monkeypatch, capsys):
    from corpustool.pipeline import Pipeline, PipelineOptions
    from corpustool.readers import warc

    real = warc._read_resync

    def failing(display, fh, reader, fmt="warc"):
        for i, doc in enumerate(real(display, fh, reader, fmt)):
            if i == 5:
                raise OSError(5, "Input/output error")
            yield doc

    monkeypatch.setattr(warc, "_read_resync", failing)
    pages = _pages(tmp_path / "pages", 3)
    p = Pipeline([str(DEMO), str(pages)], str(tmp_path / "c.vert"), PipelineOptions(languages=["en"]))
    stats = p.run()
    assert stats[0].extra["error:unreadable-file"] == 1
    assert stats[0].docs_out == 5 + 3
    err = capsys.readouterr().err
    assert "Input/output error after 5 documents" in err and str(DEMO) in err
