"""build's progress bar: input bytes against the total with an ETA, on a terminal, also a 0x0 pty (issue 22)."""
import os
import pty
import re
import select
import shutil
import subprocess
import sys

import pytest

from corpustool.progress import InputBytes

from tests.support.paths import REPO
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"
BAR = re.compile(r"input:\s+(\d+)%\|.*\| ([\d.]+k?)/([\d.]+k?) \[[\d:]+<[\d:?]+")


def test_input_position_follows_record_offsets_and_files(tmp_path):
    (tmp_path / "d").mkdir()
    a, b = tmp_path / "d" / "a.html", tmp_path / "d" / "b.html"
    a.write_bytes(b"x" * 100)
    b.write_bytes(b"y" * 50)
    warc = tmp_path / "c.warc.gz"
    warc.write_bytes(b"z" * 1000)
    where = InputBytes([str(tmp_path / "d"), str(warc)])
    assert where.total == 1150
    assert where.position(str(a)) == 100                      # an HTML file counts whole when read
    assert where.position(str(b)) == 150
    assert where.position(f"{warc}@400") == 150 + 400         # a record: its offset in the archive
    assert where.position(None) == 550 and where.position("elsewhere:3") == 550   # unknown: no move
    assert where.position(f"{warc}@900") == 1050
    assert InputBytes(["-"]).total is None


def _read_pty(master: int, proc: subprocess.Popen) -> str:
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    return out.decode("utf-8", "replace")


def _check_bar(text: str) -> None:
    frames = [m.groups() for m in BAR.finditer(text.replace("\r", "\n"))]
    assert frames, text[:500]
    percent, done, total = frames[-1]
    assert percent == "100" and done == total          # the total is the input's size, reached at the end
    assert "docs" in text                              # and the documents read so far


def test_bar_with_total_on_a_terminal_without_a_window_size(tmp_path):
    """A fresh pty reports 0 columns and 0 lines, as under `script -q -c`."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.vert"),
                             "--lang", "en"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                            cwd=REPO)
    os.close(slave)
    try:
        text = _read_pty(master, proc)
    finally:
        os.close(master)
    assert proc.wait(timeout=300) == 0
    _check_bar(text)
    assert "dedup-exact" in text                       # the statistics table follows


@pytest.mark.skipif(shutil.which("script") is None, reason="script(1) is not installed")
def test_bar_under_script(tmp_path):
    log = tmp_path / "typescript"
    cmd = f"{sys.executable} -m corpustool build {DEMO} -o {tmp_path / 'c.vert'} --lang en"
    run = subprocess.run(["script", "-q", "-c", cmd, str(log)], stdin=subprocess.DEVNULL, capture_output=True,
                         cwd=REPO, timeout=300)
    assert run.returncode == 0
    _check_bar(log.read_text(encoding="utf-8", errors="replace"))


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path):
    run = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.vert"),
                          "--lang", "en"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 0 and "input:" not in run.stderr and "dedup-exact" in run.stderr
