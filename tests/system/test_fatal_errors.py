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

from tests.support.paths import REPO
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


def test_output_in_a_missing_folder_is_refused_and_no_folder_is_made(tmp_path):
    # issue 30 item 6: -o missing/dir/out.vert used to create the folders silently (and Ctrl-C left them)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "p.html").write_text("<html><body><p>x</p></body></html>")
    for args, flag, folder in (
            (["build", DEMO, "-o", "missing/dir/out.vert"], "-o", "missing/dir"),
            (["build", DEMO, "-o", "out.vert", "--stats", "nostats/s.json"], "--stats", "nostats"),
            (["build", DEMO, "-o", "out.vert", "--rejects", "norejects/r.jsonl"], "--rejects", "norejects"),
            (["build", DEMO, "-o", "out.vert", "--report", "noreport/r.html"], "--report", "noreport"),
            (["read", DEMO, "--stats", "nostats/s.json"], "--stats", "nostats"),
            (["vert", "-o", "missing/out.vert"], "-o", "missing")):
        proc = _run(*args, cwd=tmp_path)
        _assert_refused(proc, f"cannot write {flag} ", f"the folder {folder} does not exist")
        assert proc.stderr.startswith(f"corpustool {args[0]}: error: ")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


@pytest.mark.parametrize("what", ["empty-warc", "empty-html", "empty-jsonl", "empty-dir", "dir-of-other-files",
                                  "warc-as-jsonl", "stdin"])
def test_a_build_whose_input_holds_no_document_says_so_and_exits_1(tmp_path, what):
    # issue 30 item 6: an empty input gave a 0-byte corpus, exit 0, no word
    inp = {"empty-warc": "crawl.warc.gz", "empty-html": "page.html", "empty-jsonl": "docs.jsonl",
           "empty-dir": "pages", "dir-of-other-files": "pages", "warc-as-jsonl": "crawl.warc.gz",
           "stdin": "-"}[what]
    extra = []
    if what in ("empty-dir", "dir-of-other-files"):
        (tmp_path / inp).mkdir()
        if what == "dir-of-other-files":
            (tmp_path / inp / "notes.txt").write_text("some notes")
    elif what == "warc-as-jsonl":
        (tmp_path / inp).write_bytes(DEMO.read_bytes())
        extra = ["--input-format", "jsonl"]
    elif inp != "-":
        (tmp_path / inp).write_bytes(b"")
    proc = subprocess.run(_cli("build", inp, "-o", "out.vert", "--stats", "stats.json", "--rejects", "r.jsonl",
                               *extra), capture_output=True, text=True, cwd=tmp_path, timeout=300, input="")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    name = "standard input" if inp == "-" else inp
    assert lines[0].startswith(f"corpustool build: error: no documents in {name}"), lines[0]
    assert {"empty-warc": "it is empty", "empty-html": "it is empty", "empty-jsonl": "it is empty",
            "empty-dir": name, "dir-of-other-files": "1 file skipped in a directory",
            "warc-as-jsonl": "looks like a WARC archive", "stdin": "it is empty"}[what] in lines[0]
    # no corpus, statistics, rejects or lock file
    assert not {"out.vert", "stats.json", "r.jsonl", "out.vert.lock"} & {p.name for p in tmp_path.iterdir()}
    # `read`, the pipeline's first filter, says the same
    proc = subprocess.run(_cli("read", inp, *extra), capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          input="")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == lines[0].replace("corpustool build:", "corpustool read:"), proc.stderr


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
        assert _wait_for(lambda: _lock_owner(tmp_path / "c.vert.lock") == str(first.pid) or first.poll() is not None)
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


def _lock_owner(path):
    """The pid a lock file holds ("" while it has none or is not there)."""
    try:
        return path.read_text().strip()
    except OSError:
        return ""


@pytest.mark.parametrize("shared, resume", [("--rejects", False), ("--stats", False), ("--report", False),
                                            ("--rejects", True)], ids=["rejects", "stats", "report", "rejects-resume"])
def test_second_build_sharing_any_output_is_refused_at_once(tmp_path, shared, resume):
    """Issue 29, item 12: every output is locked, not -o alone (with --resume, two builds with one
    --rejects file would write the same REJECTS.partial)."""
    pages = [_pages(tmp_path / f"pages{i}", 400) for i in range(3)]
    name = {"--rejects": "rej.jsonl", "--stats": "stats.json", "--report": "report.html"}[shared]

    def args(out):
        return ["build", *pages, "-o", tmp_path / out, "--lang", "en", "--no-dedup-near", shared, tmp_path / name,
                "-q", *(["--resume"] if resume else [])]
    first = subprocess.Popen(_cli(*args("a.vert")), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # (the pid is written once the lock is held: the file alone may be stopped between its open and its lock)
        assert _wait_for(lambda: _lock_owner(tmp_path / f"{name}.lock") == str(first.pid) or first.poll() is not None)
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


# -- a full disk (issue 29, item 9) -------------------------------------------------------------
# A file-size limit (RLIMIT_FSIZE) in the child makes every write past it fail as a full disk would
# (EFBIG; Python ignores SIGXFSZ), with no root rights and no mount.

def _identical_pages(directory: Path, n: int) -> Path:
    """``n`` copies of one page: one document is kept, n - 1 are rejected as exact duplicates."""
    directory.mkdir()
    r = random.Random(1)
    paras = "".join(f"<p>{' '.join(r.choices(WORDS, k=40))}.</p>" for _ in range(3))
    for i in range(n):
        (directory / f"copy-of-the-same-page-{i:04d}.html").write_text(f"<html><body>{paras}</body></html>")
    return directory


def _run_with_file_limit(limit: int, *args, cwd):
    import resource

    def limit_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(_cli(*args), capture_output=True, text=True, cwd=cwd, timeout=600,
                          preexec_fn=limit_files)


def _leftovers(directory: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_a_full_disk_under_the_rejects_file_leaves_no_corpus_and_no_temporary_file(tmp_path):
    src = _identical_pages(tmp_path / "in", 20)
    out = tmp_path / "out"
    out.mkdir()
    ref = _run("build", src, "-o", out / "ref.vert", "--lang", "en", "--quiet", "--rejects", out / "ref.jsonl")
    assert ref.returncode == 0, ref.stderr
    corpus, rejects = (out / "ref.vert").stat().st_size, (out / "ref.jsonl").stat().st_size
    assert corpus < 4000 < rejects < 8000       # the rejects fit in the write buffer: they fail at the end
    proc = _run_with_file_limit(4096, "build", src, "-o", out / "c.vert", "--lang", "en", "--quiet",
                                "--rejects", out / "rej.jsonl", "--stats", out / "s.json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "rej.jsonl" in lines[0] and "Traceback" not in proc.stderr
    # the corpus is moved into place only when everything else succeeded; nothing temporary is left
    assert _leftovers(out, {"ref.vert", "ref.jsonl"}) == []


@pytest.mark.parametrize("name", ["c.vert", "c.vert.gz"])
def test_a_full_disk_under_the_output_names_it_and_leaves_nothing(tmp_path, name):
    src = _pages(tmp_path / "in", 30)
    out = tmp_path / "out"
    out.mkdir()
    proc = _run_with_file_limit(20_000, "build", src, "-o", out / name, "--lang", "en", "--quiet",
                                "--rejects", out / "rej.jsonl", "--stats", out / "s.json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{out / name}:" in lines[0], proc.stderr
    assert _leftovers(out, set()) == []


@pytest.mark.parametrize("two_pass", [False, True], ids=["one-pass", "two-pass"])
def test_onion_on_a_full_disk_names_its_output_not_its_input(tmp_path, two_pass):
    """onion said "cannot read c.vert" when its output could not grow."""
    src = _pages(tmp_path / "in", 30)
    vert = tmp_path / "c.vert"
    assert _run("build", src, "-o", vert, "--lang", "en", "--quiet").returncode == 0
    size = vert.stat().st_size
    out = tmp_path / "out.vert"
    proc = _run_with_file_limit(size // 2, "onion", vert, "-o", out, *(["--two-pass"] if two_pass else []),
                                cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"corpustool onion: error: cannot write {out}: File too large"], proc.stderr


def test_a_disk_full_from_the_start_leaves_no_lock_file(tmp_path):
    src = _pages(tmp_path / "in", 3)
    out = tmp_path / "out"
    out.mkdir()
    proc = _run_with_file_limit(0, "build", src, "-o", out / "c.vert", "--lang", "en", "--quiet", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "error: /" in lines[0], proc.stderr     # names the file that could not grow
    assert _leftovers(out, set()) == []


# -- outputs are regular files (issue 29, item 8) -------------------------------------------------

@pytest.mark.parametrize("option", ["-o", "--stats", "--rejects", "--report"])
def test_an_output_that_is_a_device_or_a_fifo_is_refused_and_kept(tmp_path, option):
    src = _pages(tmp_path / "in", 2)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    args = ["build", src, "--lang", "en", "--quiet"]
    args += ["-o", fifo] if option == "-o" else ["-o", tmp_path / "c.vert", option, fifo]
    proc = _run(*args)
    _assert_refused(proc, option, "not a regular file")
    assert fifo.is_fifo()
    assert not (tmp_path / "c.vert").exists()


def test_dev_stdout_is_standard_output(tmp_path):
    src = _pages(tmp_path / "in", 2)
    ref = _run("build", src, "-o", "-", "--lang", "en", "--quiet")
    proc = _run("build", src, "-o", "/dev/stdout", "--lang", "en", "--quiet")
    assert ref.returncode == 0 and proc.returncode == 0, proc.stderr
    assert proc.stdout == ref.stdout and "<doc " in proc.stdout


def test_stats_and_rejects_dash_are_standard_output(tmp_path):
    src = _pages(tmp_path / "in", 3)
    (tmp_path / "in" / "dup.html").write_text((tmp_path / "in" / "p0000.html").read_text())
    proc = _run("build", src, "-o", tmp_path / "c.vert", "--lang", "en", "--quiet", "--stats", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stages"] and (tmp_path / "c.vert").exists()
    proc = _run("build", src, "-o", tmp_path / "d.vert", "--lang", "en", "--quiet", "--rejects", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["reason"] for line in proc.stdout.splitlines()] == ["exact-duplicate"]
    proc = subprocess.run(_cli("vert", "-o", tmp_path / "e.vert", "--stats", "-"), input="", capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and json.loads(proc.stdout), proc.stderr
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("args", [
    ["build", "IN", "-o", "-", "--stats", "-"],
    ["build", "IN", "-o", "OUT", "--stats", "-", "--rejects", "/dev/stdout"],
    ["build", "IN", "-o", "-", "--report", "-"],
    ["build", "IN", "-o", "OUT", "--rejects", "-", "--resume"],
    ["clean", "--lang", "en", "--rejects", "-"],
    ["read", "IN", "--stats", "-"],
    ["vert", "--stats", "-"],
    ["onion", "--stats", "-"],
], ids=["build-o-stats", "build-stats-rejects", "build-o-report", "build-resume-rejects", "clean-rejects",
        "read-stats", "vert-stats", "onion-stats"])
def test_two_outputs_on_standard_output_are_refused(tmp_path, args):
    src = _pages(tmp_path / "in", 2)
    args = [src if a == "IN" else tmp_path / "c.vert" if a == "OUT" else a for a in args]
    proc = subprocess.run(_cli(*args), input="", capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "standard output" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


def _closed_early(args, stdin=None):
    """Run, read a little of standard output and close it, as `| head -c 100` does."""
    proc = subprocess.Popen(_cli(*args), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(timeout=300), err


@pytest.mark.parametrize("command", ["build", "read", "onion"])
def test_standard_output_closed_early_is_no_success(tmp_path, command):
    src = _pages(tmp_path / "in", 300)
    stats, rejects = tmp_path / "s.json", tmp_path / "r.jsonl"
    if command == "build":
        args = ["build", src, "-o", "-", "--lang", "en", "--quiet", "--stats", stats, "--rejects", rejects]
    elif command == "read":
        args = ["read", src, "--stats", stats]
    else:
        vert = tmp_path / "c.vert"
        assert _run("build", src, "-o", vert, "--lang", "en", "--quiet").returncode == 0
        args = ["onion", vert, "--stats", stats]
    rc, err = _closed_early(args)
    # as a process killed by SIGPIPE, quietly; not a success, and no statistics as if it were one
    assert rc == 128 + signal.SIGPIPE and err == "", err
    assert not stats.exists() and not rejects.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in"] + (["c.vert"] if command == "onion" else []))
