"""Reproducible releases: release init writes a Makefile; make builds identical corpora and manifests."""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpustool.cli import main

MAKE = shutil.which("make")
needs_make = pytest.mark.skipif(MAKE is None, reason="make is not installed")

_TOPICS = [
    ("The old harbour", "The harbour was the reason the town grew where it did. Ships from the south brought "
     "wine, oil and news, and they left again with wool, timber and salted fish from the northern coast."),
    ("Walking in the hills", "The path climbs slowly through the forest and then along the ridge, where on a "
     "clear day you can see the sea in the west and the mountains in the east. It takes about five hours."),
    ("Repairing a bicycle", "Most repairs that a bicycle needs can be done at home with a few simple tools. "
     "A puncture takes ten minutes to fix once you have done it a couple of times, and brakes are not hard."),
    ("Growing tomatoes", "Tomatoes need a warm and sunny place, regular watering and something to climb on. "
     "If you pinch out the side shoots the plant puts its energy into the fruit rather than into the leaves."),
    ("A library in the village", "When the village library opened there were only a few hundred books on the "
     "shelves, most of them given by the people who lived there. Today it is one of the busiest places in town."),
]


def _page(title: str, text: str) -> str:
    body = "".join(f"<p>{text} This is the {n} paragraph of the article, and it is written so that it is "
                   f"long enough and has enough common words to be recognised as the main text.</p>\n"
                   for n in ("first", "second", "third"))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
            "<ul class='menu'><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li>"
            f"<li><a href='/contact'>Contact</a></li></ul><h1>{title}</h1>\n{body}"
            "<div class='footer'>Copyright 2024 | Privacy | Terms</div></body></html>")


@pytest.fixture()
def crawl(tmp_path) -> Path:
    """A directory of hand-written pages: five articles, an exact copy of one, and an empty page."""
    d = tmp_path / "crawl"
    (d / "sub").mkdir(parents=True)
    for i, (title, text) in enumerate(_TOPICS):
        (d / f"page{i}.html").write_text(_page(title, text), encoding="utf-8")
    (d / "sub" / "copy-of-page0.html").write_text(_page(*_TOPICS[0]), encoding="utf-8")
    (d / "sub" / "empty.html").write_text("<html><body> </body></html>", encoding="utf-8")
    return d


def _init(directory: Path, crawl: Path, *extra: str) -> None:
    assert main(["release", "init", str(directory), "--input", str(crawl), "--lang", "en",
                 "--name", "test-release", *extra]) == 0


def _make(directory: Path, *targets: str) -> subprocess.CompletedProcess:
    res = subprocess.run([MAKE, "-C", str(directory), f"PYTHON={sys.executable}", *targets],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_BUILT = ("corpus.vert.gz", "stats.json", "rejects.jsonl", "manifest.json")


@needs_make
def test_release_built_twice_is_identical(tmp_path, crawl):
    a, b = tmp_path / "a", tmp_path / "b"
    _init(a, crawl)
    _init(b, crawl)
    assert (a / "release.json").read_bytes() == (b / "release.json").read_bytes()
    _make(a)
    _make(b)
    for name in _BUILT:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name

    corpus = gzip.decompress((a / "corpus.vert.gz").read_bytes()).decode("utf-8")
    assert corpus.count("<doc ") == 5             # five articles; the copy and the empty page dropped
    assert "harbour" in corpus and "Copyright" not in corpus

    manifest = json.loads((a / "manifest.json").read_text(encoding="utf-8"))
    # tool and dependency versions
    assert manifest["tool"]["name"] == "corpustool" and manifest["tool"]["version"]
    assert manifest["dependencies"].get("lxml") and manifest["dependencies"].get("justext")
    # every option, including the ones left at their defaults
    assert manifest["options"]["lang"] == "en"
    assert manifest["options"]["near_threshold"] == 0.8 and manifest["options"]["workers"] == 1
    assert "--lang=en" in manifest["command"]
    # input checksums: every file of the input directory
    inputs = {Path(e["path"]).relative_to(crawl).as_posix(): e for e in manifest["inputs"]}
    assert sorted(inputs) == ["page0.html", "page1.html", "page2.html", "page3.html", "page4.html",
                              "sub/copy-of-page0.html", "sub/empty.html"]
    assert inputs["page3.html"]["sha256"] == _sha(crawl / "page3.html")
    # output checksums match the files
    outputs = {e["path"]: e for e in manifest["outputs"]}
    assert set(outputs) == {"corpus.vert.gz", "rejects.jsonl", "stats.json"}
    for name, entry in outputs.items():
        assert entry["sha256"] == _sha(a / name) and entry["bytes"] == (a / name).stat().st_size
    # per-stage statistics, as in stats.json
    stats = json.loads((a / "stats.json").read_text(encoding="utf-8"))
    assert manifest["statistics"]["stages"] == stats["stages"]
    assert manifest["statistics"]["corpus_sizes"] == stats["corpus_sizes"]
    dedup = next(s for s in stats["stages"] if s["stage"] == "dedup-exact")
    assert dedup["drops"] == {"exact-duplicate": 1}

    # make is incremental: nothing to do; after clean the rebuild is again identical
    before = {name: (a / name).read_bytes() for name in _BUILT}
    res = _make(a)
    assert "release build" not in res.stdout
    _make(a, "clean")
    assert not any((a / name).exists() for name in _BUILT)
    _make(a)
    assert {name: (a / name).read_bytes() for name in _BUILT} == before


@needs_make
def test_release_rebuilds_when_an_input_changes(tmp_path, crawl):
    """issue 22: the Makefile lists the inputs as prerequisites (directories walked)."""
    rel = tmp_path / "rel"
    _init(rel, crawl)
    _make(rel)
    assert "release build" not in _make(rel).stdout          # nothing changed: nothing to do
    corpus = lambda: gzip.decompress((rel / "corpus.vert.gz").read_bytes()).decode("utf-8")
    # a changed file inside an input directory
    page = crawl / "page1.html"
    page.write_text(page.read_text(encoding="utf-8").replace("ridge", "crest"), encoding="utf-8")
    assert "release build" in _make(rel).stdout
    assert "\ncrest\n" in corpus() and "\nridge\n" not in corpus()
    manifest = json.loads((rel / "manifest.json").read_text(encoding="utf-8"))
    assert {e["path"]: e["sha256"] for e in manifest["inputs"]}[str(page)] == _sha(page)
    # an added file, then a removed one
    (crawl / "sub" / "new.html").write_text(_page("Baking bread", "Bread needs flour, water, salt and time. "
                                                  "A slow rise in a cool kitchen gives the loaf its taste, and a hot "
                                                  "oven with some steam gives it a crust that crackles as it cools."),
                                            encoding="utf-8")
    assert "release build" in _make(rel).stdout and "Baking bread" in corpus()
    (crawl / "sub" / "new.html").unlink()
    assert "release build" in _make(rel).stdout and "Baking bread" not in corpus()
    assert "release build" not in _make(rel).stdout


@needs_make
def test_release_output_does_not_depend_on_workers(tmp_path, crawl):
    one, two = tmp_path / "one", tmp_path / "two"
    _init(one, crawl, "--workers", "1")
    _init(two, crawl, "--workers", "2")
    _make(one)
    _make(two)
    assert (one / "corpus.vert.gz").read_bytes() == (two / "corpus.vert.gz").read_bytes()
    # the same rejected documents (their order is checked by the next test)
    assert sorted((one / "rejects.jsonl").read_text().splitlines()) == \
        sorted((two / "rejects.jsonl").read_text().splitlines())
    m1 = json.loads((one / "manifest.json").read_text(encoding="utf-8"))
    m2 = json.loads((two / "manifest.json").read_text(encoding="utf-8"))
    assert m1["statistics"] == m2["statistics"]
    assert m2["options"]["workers"] == 2


@needs_make
def test_release_rejects_file_does_not_depend_on_workers(tmp_path, crawl):
    one, two = tmp_path / "one", tmp_path / "two"
    _init(one, crawl, "--workers", "1")
    _init(two, crawl, "--workers", "2")
    _make(one)
    _make(two)
    assert (one / "rejects.jsonl").read_bytes() == (two / "rejects.jsonl").read_bytes()


@needs_make
def test_verify_detects_changed_inputs_and_outputs(tmp_path, crawl, capsys):
    rel = tmp_path / "rel"
    _init(rel, crawl)
    _make(rel)
    assert main(["release", "verify", str(rel / "manifest.json")]) == 0
    (crawl / "page1.html").write_text(_page("Changed", "Somebody edited this page after the release."),
                                      encoding="utf-8")
    (rel / "rejects.jsonl").write_text("", encoding="utf-8")
    capsys.readouterr()
    assert main(["release", "verify", str(rel / "manifest.json")]) == 1
    err = capsys.readouterr().err
    assert "page1.html: changed" in err and "rejects.jsonl: changed" in err
    # the release's directory names its manifest (a user's first guess; was "Is a directory")
    assert main(["release", "verify", str(rel)]) == 1
    assert "page1.html: changed" in capsys.readouterr().err


def test_init_records_every_build_option_and_refuses_bad_ones(tmp_path, crawl, capsys):
    rel = tmp_path / "rel"
    _init(rel, crawl, "--set", "near_threshold=0.9", "--set", "no-dedup-para=true", "--output", "c.txt")
    config = json.loads((rel / "release.json").read_text(encoding="utf-8"))
    assert config["inputs"] == [str(crawl)]
    assert config["output"] == "c.txt"
    opts = config["options"]
    assert opts["near_threshold"] == 0.9 and opts["no_dedup_para"] is True and opts["lang"] == "en"
    assert opts["min_lang_confidence"] == 0.5 and opts["workers"] == 1     # defaults spelled out
    makefile = (rel / "Makefile").read_text(encoding="utf-8")
    assert "release build $(CONFIG)" in makefile and "rm -f c.txt" in makefile

    # an existing release is not overwritten without --force
    capsys.readouterr()
    assert main(["release", "init", str(rel), "--input", str(crawl)]) == 2
    assert "--force" in capsys.readouterr().err
    # unknown options and values corpustool build would refuse are refused at init time
    assert main(["release", "init", str(tmp_path / "x"), "--input", str(crawl), "--set", "colour=red"]) == 2
    assert "unknown build option" in capsys.readouterr().err
    assert main(["release", "init", str(tmp_path / "y"), "--input", str(crawl),
                 "--set", "near_threshold=2"]) == 2
    assert "--near-threshold" in capsys.readouterr().err
    assert main(["release", "init", str(tmp_path / "z"), "--input", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() or not (tmp_path / "x" / "release.json").exists()


def test_manifest_before_build_is_a_clear_error(tmp_path, crawl, capsys):
    rel = tmp_path / "rel"
    _init(rel, crawl)
    capsys.readouterr()
    assert main(["release", "manifest", str(rel / "release.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "build the release first" in err and len(err.splitlines()) == 1


def test_build_command_round_trips_every_option(tmp_path):
    """The options a release records are exactly what `corpustool build` parses from its command."""
    from corpustool.cli.release import BUILD
    from corpustool.release import build_argv, resolved_options

    changed = {"lang": "en,de", "no_dedup_near": True, "near_threshold": 0.75, "workers": 2,
               "max_bytes": 1_000_000}
    if "option" in BUILD.defaults():           # the repeatable extractor option, when present
        changed["option"] = ["a=1", "b=x y"]
    config = {"inputs": ["crawl.warc.gz"], "output": "c.vert", "stats": "s.json", "rejects": "r.jsonl",
              "options": changed}
    args = vars(BUILD.parser().parse_args(build_argv(config, BUILD)[1:]))
    assert args["inputs"] == ["crawl.warc.gz"] and args["output"] == "c.vert"
    for dest, value in resolved_options(config, BUILD).items():
        assert args[dest] == value, dest


@needs_make
def test_verify_detects_an_edited_config_and_an_added_input_file(tmp_path, crawl, capsys):
    # the manifest records release.json's checksum and every file of an input directory: an
    # edited config or a page added to the crawl directory was "all files match the manifest"
    rel = tmp_path / "rel"
    _init(rel, crawl)
    _make(rel)
    assert main(["release", "verify", str(rel)]) == 0
    (crawl / "zz-added.html").write_text(_page("Added", "A page added to the crawl after the release."),
                                         encoding="utf-8")
    capsys.readouterr()
    assert main(["release", "verify", str(rel)]) == 1
    assert "zz-added.html: added" in capsys.readouterr().err
    (crawl / "zz-added.html").unlink()
    assert main(["release", "verify", str(rel)]) == 0
    config = rel / "release.json"
    config.write_text(config.read_text(encoding="utf-8").replace('"near_threshold": 0.8',
                                                                  '"near_threshold": 0.5'), encoding="utf-8")
    capsys.readouterr()
    assert main(["release", "verify", str(rel)]) == 1
    assert "release.json: changed" in capsys.readouterr().err
