"""Command-line rough edges of issue 22: refused options say so in one line with status 2."""
import io
import json
import socket
import subprocess
import sys
import time

import pytest

from corpustool.cli import main
from corpustool.errors import OptionError
from corpustool.writers.base import format_for

from tests.support.paths import REPO
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


def test_unreachable_spark_master_is_one_line_at_once(tmp_path):
    """A valid-looking master nobody answers at: refused before the JVM starts (Spark would retry
    for 90 s, print Java's log and fail on a null pointer)."""
    from corpustool.executors.spark import spark_available
    if spark_available():
        pytest.skip(spark_available())
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.vert"),
                          "--engine", "spark", "--master", "spark://nohost.invalid:7077"],
                         capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Spark master spark://nohost.invalid:7077" in lines[0], run.stderr
    assert time.monotonic() - start < 30
    assert not (tmp_path / "c.vert").exists()


def test_spark_master_reachability_is_checked_on_every_host():
    from corpustool.executors.spark import check_master_reachable, master_endpoints
    assert master_endpoints("spark://a:7077,b:7078") == [("a", 7077), ("b", 7078)]
    assert master_endpoints("k8s://https://h:6443") == [("h", 6443)]
    assert master_endpoints("local[2]") == [] and master_endpoints("yarn") == []
    with socket.socket() as listening, socket.socket() as closed:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        closed.bind(("127.0.0.1", 0))             # bound, not listening: the connection is refused
        up, down = listening.getsockname()[1], closed.getsockname()[1]
        with pytest.raises(OptionError, match=f"127.0.0.1:{down}: Connection refused"):
            check_master_reachable(f"spark://127.0.0.1:{down}", timeout=2)
        check_master_reachable(f"spark://127.0.0.1:{down},127.0.0.1:{up}", timeout=2)   # a standby answers
        check_master_reachable("local[2]")


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]", "local[4,2]", "local-cluster[2,1,1024]",
                                    "spark://host:7077", "spark://a:7077,b:7077", "yarn", "k8s://https://h:443",
                                    "mesos://h:5050"])
def test_spark_master_urls_spark_accepts_pass_the_check(master):
    from corpustool.executors.spark import check_master
    check_master(master)


# -- statistics: a table per stage only where asked; "paras out" is what is written

PROSE = ("This is a long paragraph of ordinary English prose that is written the way people write when they "
         "have something to say, and it is there to be kept by the classifier because it has many of the "
         "words of the list.")


def test_paras_out_counts_the_paragraphs_written(tmp_path):
    """A paragraph of soft hyphens / zero-width spaces that jusText keeps by context normalises to
    nothing and is not written: no stage may count it as kept."""
    page = tmp_path / "p.html"
    page.write_text(f"<html><body><p>{PROSE}</p><p>&shy;&#8203;</p><p>{PROSE} Again.</p><p>&#8203;</p>"
                    f"<p>{PROSE} Third.</p></body></html>", encoding="utf-8")
    for extractor in ("justext", "justext-plus"):
        out, stats = tmp_path / f"{extractor}.vert", tmp_path / f"{extractor}.json"
        assert main(["build", str(page), "-o", str(out), "--lang", "en", "--extractor", extractor,
                     "--stats", str(stats), "-q"]) == 0
        written = out.read_text(encoding="utf-8").count("<p ")
        assert written == 3
        for stage in json.loads(stats.read_text(encoding="utf-8"))["stages"][1:]:
            assert stage["paragraphs_out"] == written, stage


def test_tokenize_stage_counts_only_paragraphs_with_tokens():
    from corpustool.document import Document, Paragraph
    from corpustool.text.stage import Tokenize

    stage = Tokenize()
    doc = Document(id="d", paragraphs=[Paragraph(text="Kept words."), Paragraph(text="\u2028")])
    (out,) = list(stage.run([doc]))
    assert [p.is_good for p in out.paragraphs] == [True, False] and stage.stats.paragraphs_out == 1
    # a document left without a paragraph to write is dropped, with its reason
    assert list(stage.run([Document(id="e", paragraphs=[Paragraph(text="\u2028")])])) == []
    assert stage.stats.drops["no-text"] == 1


def _stage(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "corpustool", *args], input=stdin, capture_output=True,
                          text=True, cwd=REPO, timeout=300)


def test_filters_print_their_statistics_only_with_stats(tmp_path):
    read = _stage(["read", str(DEMO)], "")
    assert read.returncode == 0 and read.stderr == ""
    cleaned = _stage(["clean", "--lang", "en"], read.stdout)
    assert cleaned.returncode == 0 and cleaned.stderr == ""
    plain = _stage(["dedup-exact"], cleaned.stdout)
    assert plain.returncode == 0 and plain.stderr == ""
    asked = _stage(["dedup-exact", "--stats"], cleaned.stdout)
    assert asked.stdout == plain.stdout
    assert asked.stderr.splitlines()[0].split()[:3] == ["stage", "docs", "in"]
    assert "dedup-exact" in asked.stderr and "exact-duplicate=1" in asked.stderr
    to_file = _stage(["dedup-exact", "--stats", str(tmp_path / "s.json")], cleaned.stdout)
    assert to_file.stderr == ""
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["stages"][0]["stage"] == "dedup-exact"
    # build keeps its table
    built = subprocess.run([sys.executable, "-m", "corpustool", "build", str(DEMO), "-o", str(tmp_path / "c.vert"),
                            "--lang", "en"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert built.returncode == 0 and "dedup-exact" in built.stderr and "paras out" in built.stderr


def test_read_stats_never_takes_an_input_for_its_file(tmp_path, capsys):
    """`--stats` takes an optional FILE: `read --stats a.warc.gz b.warc.gz` must not overwrite a.warc.gz."""
    a = tmp_path / "a.warc.gz"
    a.write_bytes(DEMO.read_bytes())
    err = one_line_error(capsys, ["read", "--stats", str(a), str(DEMO)])
    assert "--stats" in err
    assert a.read_bytes() == DEMO.read_bytes()


# -- options that were accepted and then ignored or misread: refused in one line

@pytest.mark.parametrize("argv, message", [
    (["--min-bytes", "-1"], "--min-bytes must be a non-negative integer"),
    (["--min-bytes", "2000", "--max-bytes", "1000"], "--min-bytes must be from 0 to max_bytes (1000), not 2000"),
    (["--master", "local[2]"], "--master needs --engine spark"),        # was ignored: the build ran locally
    (["--lang", ""], "--lang needs at least one language"),             # was read as auto
    (["--lang", " , "], "--lang needs at least one language"),
    # was ignored: stop words are left out of n-grams only with --onion-skip-stopwords
    (["--onion-stoplist", "de"], "--onion-stoplist is the list of --onion-skip-stopwords, which is not given"),
    # a missing file was called an unknown language
    (["--onion-skip-stopwords", "--onion-stoplist", "/nonexistent/my.txt"],
     "the stoplist file '/nonexistent/my.txt' does not exist"),
])
def test_build_refuses_options_it_would_ignore(tmp_path, capsys, argv, message):
    out = tmp_path / "c.vert"
    assert message in one_line_error(capsys, ["build", str(DEMO), "-o", str(out), "-q", *argv])
    assert not out.exists()


@pytest.mark.parametrize("argv", [["langfilter", "--lang", ""], ["clean", "--lang", ""], ["clean", "--min-bytes", "-5"]])
def test_filters_refuse_an_empty_language_list_and_negative_sizes(capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    one_line_error(capsys, argv)


def test_eval_refuses_an_empty_language_list(capsys):
    err = one_line_error(capsys, ["eval", "--gold", str(REPO / "data" / "demo"), "--lang", "", "-q"])
    assert "--lang needs a language" in err


def test_unknown_option_names_the_command(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["build", str(DEMO), "-o", "x.vert", "--dedup-near-threshold", "3"])
    assert exit.value.code == 2
    assert capsys.readouterr().err == "corpustool build: error: unrecognized arguments: --dedup-near-threshold 3\n"


def test_a_master_that_does_not_take_the_application_is_refused_in_bounded_time(monkeypatch):
    """A port that answers but is no Spark master: Spark waits 60 s, then fails later on a null pointer.
    The context's start is bounded (a stand-in SparkContext that hangs, so no JVM is needed)."""
    pyspark = pytest.importorskip("pyspark")
    from corpustool.executors.spark import _start_context

    monkeypatch.setattr(pyspark, "SparkContext", lambda conf: time.sleep(30))
    start = time.monotonic()
    with pytest.raises(OptionError, match=r"the Spark master spark://h:7077 did not take the application within 0.5 s"):
        _start_context(None, "spark://h:7077", timeout=0.5)
    assert time.monotonic() - start < 5

    def refuse(conf):
        raise ValueError("no")
    monkeypatch.setattr(pyspark, "SparkContext", refuse)
    with pytest.raises(ValueError, match="no"):           # Spark's own errors reach the caller
        _start_context(None, "spark://h:7077", timeout=5)
    monkeypatch.setattr(pyspark, "SparkContext", lambda conf: ("context", conf))
    assert _start_context("c", "local[2]", timeout=None) == ("context", "c")


@pytest.mark.parametrize("argv, extractor, own", [
    (["clean", "--extractor", "justext-learned", "--option", "nosuch=1"], "justext-learned", ["model", "comments"]),
    (["clean", "--extractor", "justext", "--option", "nosuch=1"], "justext", []),
    (["eval", "--gold", str(REPO / "data" / "demo"), "--extractor", "justext", "--extractor", "justext-learned",
      "--option", "nosuch=1", "-q"], "justext", []),
])
def test_an_unknown_extractor_option_names_the_extractor_and_what_it_takes(capsys, monkeypatch, argv, extractor, own):
    # (the message listed jusText's parameters only, not the learned extractor's own comments and
    # model, and did not say which of several extractors refused the name)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    err = one_line_error(capsys, argv)
    assert f"{extractor}: unknown option(s): nosuch; known: " in err
    known = err.split("known: ")[1].split(", ")
    assert set(own) | {"preset", "length_low", "max_link_density"} <= set(known)      # names, as --option takes them
    assert not any(k.startswith("--") for k in known)


def test_dedup_para_refuses_a_stoplist_without_skip_stopwords(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert "--stoplist is the list of --skip-stopwords" in one_line_error(capsys, ["dedup-para", "--stoplist", "en"])
