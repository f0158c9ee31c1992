"""User stoplists (issue 30, item 7): ``stoplist build --name xx`` then ``--lang xx``, outside the checkout.

Every test points ``$CORPUSTOOL_STOPLISTS`` at a temporary folder (conftest.py does for the whole
suite too): nothing is written into the real home.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpustool.errors import OptionError
from corpustool.language import stoplists as sl

from tests.support.paths import REPO
DEMO = REPO / "data" / "demo"
SAMPLE = sorted(str(p) for p in (DEMO / "texts" / "gazette").glob("*.txt"))


def _env(user_dir: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["CORPUSTOOL_STOPLISTS"] = str(user_dir)
    env["HOME"] = str(home)                    # a write to the default directory would land here
    env.pop("XDG_DATA_HOME", None)
    env["PYTHONPATH"] = str(REPO)
    return env


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "corpustool", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    folder = tmp_path / "user-stoplists"
    monkeypatch.setenv("CORPUSTOOL_STOPLISTS", str(folder))
    monkeypatch.setattr(sl, "REPO_STOPLIST_DIR", tmp_path / "no-checkout")   # as an installed package
    sl.refresh()
    yield folder
    monkeypatch.undo()
    sl.refresh()


def test_build_name_then_lang_works_outside_the_checkout(tmp_path):
    """The README's example end to end, run from a folder that is not the checkout."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = _env(tmp_path / "user", home)
    before = _cli(["build", str(DEMO / "crawl.warc.gz"), "-o", "x.vert", "--lang", "xx", "-q"], env, work)
    assert before.returncode == 2 and "unknown language 'xx'" in before.stderr
    assert "stoplist build SAMPLE.txt --name xx" in before.stderr          # the message says how
    built = _cli(["stoplist", "build", *SAMPLE, "--top", "300", "--name", "xx"], env, work)
    assert built.returncode == 0, built.stderr
    installed = tmp_path / "user" / "xx.txt"
    assert installed.is_file() and len(sl._read_words(installed.read_text(encoding="utf-8"))) == 300
    assert "the" in installed.read_text(encoding="utf-8").split()
    assert not any(home.rglob("*")), "nothing may be written into the home"
    run = _cli(["build", str(DEMO / "crawl.warc.gz"), "-o", "x.vert", "--lang", "xx", "-q"], env, work)
    assert run.returncode == 0, run.stderr
    assert (work / "x.vert").stat().st_size > 1000
    listed = _cli(["stoplist", "list"], env, work)
    assert listed.returncode == 0
    rows = {line.split("\t")[0]: line.split("\t") for line in listed.stdout.splitlines()}
    assert rows["xx"][2:] == ["300", "user directory", str(installed)]
    assert rows["en"][3:] == ["justext package", "justext:English.txt"]
    assert str(tmp_path / "user") in listed.stderr
    shown = _cli(["stoplist", "dir"], env, work)
    assert shown.stdout.strip() == str(tmp_path / "user")
    # the -o form still writes a file for --stoplist FILE
    out = _cli(["stoplist", "build", *SAMPLE, "--top", "50", "-o", "mine.txt"], env, work)
    assert out.returncode == 0 and "--stoplist mine.txt" in out.stderr
    clean = _cli(["build", str(DEMO / "crawl.warc.gz"), "-o", "y.vert", "--lang", "en", "--stoplist", "mine.txt",
                  "-q"], env, work)
    assert clean.returncode == 0, clean.stderr


def test_name_refuses_a_language_the_package_covers_and_bad_codes(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(tmp_path / "user", home)
    for name, message in (("de", "--stoplist FILE"), ("English", "not a language code"),
                          ("x/y", "not a language code")):
        r = _cli(["stoplist", "build", *SAMPLE, "--name", name], env, tmp_path)
        assert r.returncode == 2 and message in r.stderr, (name, r.stderr)
    r = _cli(["stoplist", "build", *SAMPLE, "--name", "xx", "-o", "f.txt"], env, tmp_path)
    assert r.returncode == 2
    assert not (tmp_path / "user").exists()
    # --capitalised was ignored with --counts, silently
    r = _cli(["stoplist", "build", *SAMPLE, "--counts", "--capitalised"], env, tmp_path)
    assert r.returncode == 2 and "--capitalised" in r.stderr and "Traceback" not in r.stderr


def test_user_directory_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("CORPUSTOOL_STOPLISTS", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert sl.user_stoplist_dir() == tmp_path / "a"
    monkeypatch.delenv("CORPUSTOOL_STOPLISTS")
    assert sl.user_stoplist_dir() == tmp_path / "xdg" / "corpustool" / "stoplists"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")        # the XDG spec: ignored when relative
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert sl.user_stoplist_dir() == tmp_path / "home" / ".local" / "share" / "corpustool" / "stoplists"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert sl.user_stoplist_dir() == tmp_path / "home" / ".local" / "share" / "corpustool" / "stoplists"


def test_user_lists_add_languages_win_over_the_checkout_and_never_replace_the_package(user_dir, tmp_path):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "xx.txt").write_text("aaa\nbbb\n", encoding="utf-8")
    (checkout / "yy.txt").write_text("ccc\n", encoding="utf-8")
    user_dir.mkdir()
    (user_dir / "xx.txt").write_text("# mine\nDdd\neee\n", encoding="utf-8")
    (user_dir / "en.txt").write_text("zzz\n", encoding="utf-8")
    sl.REPO_STOPLIST_DIR = checkout      # undone by the fixture's monkeypatch
    sl.refresh()
    assert sl.stoplist("xx") == {"ddd", "eee"}
    assert sl.stoplist_origin("xx") == "user directory" and sl.stoplist_source("xx") == str(user_dir / "xx.txt")
    assert sl.stoplist("yy") == {"ccc"} and sl.stoplist_origin("yy") == "checkout stoplists/"
    assert "zzz" not in sl.stoplist("en") and sl.stoplist_origin("en") == "justext package"
    assert {"xx", "yy"} <= set(sl.available_languages())
    from corpustool.language.identify import default_candidates

    assert "xx" in default_candidates()                # --lang auto considers it


def test_without_a_user_list_xx_is_unknown(user_dir):
    with pytest.raises(OptionError, match="unknown language 'xx'.*--name xx"):
        sl.resolve_language("xx")
