"""Command-line rough edges of issue 22: refused options say so in one line with status 2."""
import subprocess
import sys
from pathlib import Path

import pytest

from corpustool.cli import main
from corpustool.writers.base import format_for

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "data" / "demo" / "crawl.warc.gz"


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_output_name_with_an_unknown_suffix_needs_format(tmp_path, capsys):
    page = tmp_path / "p.html"
    page.write_text("<html><body><p>" + "This is a short text that is written for the test. " * 5
                    + "</p></body></html>", encoding="utf-8")
    out = tmp_path / "x.docx"
    err = one_line_error(capsys, ["build", str(page), "-o", str(out), "--lang", "en"])
    assert "x.docx" in err and "--format" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [page]      # nothing written, no temp file
    # with --format the name is the user's choice
    assert main(["build", str(page), "-o", str(out), "--lang", "en", "--format", "text", "-q"]) == 0
    assert out.read_text(encoding="utf-8").startswith("This is a short text")
    # the known names, compressed or not, and stdout
    assert [format_for(n) for n in ("c.vert", "c.VRT", "c.vert.gz", "c.txt.gz", "c.jsonl", "c.json", "-",
                                    "corpus", "/dev/null")] == \
        ["vert", "vert", "vert", "text", "jsonl", "jsonl", "vert", "vert", "vert"]


def test_vert_filter_refuses_an_unknown_suffix(tmp_path):
    run = subprocess.run([sys.executable, "-m", "corpustool", "vert", "-o", str(tmp_path / "c.docx")],
                         input="", capture_output=True, text=True, cwd=REPO, timeout=120)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1, run.stderr


def test_bogus_spark_master_is_one_line(tmp_path):
    """Refused before any JVM starts (which would print a page of Java log)."""
    run = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.vert"),
                          "--engine", "spark", "--master", "bogus://x"],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "bogus://x" in lines[0], run.stderr
    assert not (tmp_path / "c.vert").exists()


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "local[4,2]", "local-cluster[2,1,1024]",
                                    "spark://host:7077", "spark://a:7077,b:7077", "yarn", "k8s://https://h:443",
                                    "mesos://h:5050"])
def test_spark_master_urls_spark_accepts_pass_the_check(master):
    from corpustool.executors.spark import check_master
    check_master(master)
