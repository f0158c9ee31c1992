"""The option table (corpustool/options.py): one definition per option, read by every layer."""
from __future__ import annotations

import argparse
import re

import pytest

from corpustool.cli import build_parser, main
from corpustool.cli.build import options_from_args
from corpustool.errors import OptionError
from corpustool.options import ONION_OPTIONS, ONION_PREFIX, OPTIONS, default
from corpustool.pipeline import PipelineOptions, build_stages
from tests.support.paths import PACKAGE



def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _build_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["build", "in.warc.gz", "-o", "out.vert", *argv])


def _clean_stage(*argv: str):
    return build_stages(options_from_args(_build_args(*argv)))[0]


# -- the --max-link-density shadowing ----------------------------------------------------------------

def test_max_link_density_reaches_the_jusText_engine_of_the_default_extractor():
    """--max-link-density is documented as jusText's parameter: with justext-plus (the default) it
    used to set justext-plus's own threshold and leave the engine's at 0.2."""
    clean = _clean_stage("--max-link-density", "0.3", "--length-low", "50")
    assert clean.extractor_name == "justext-plus"
    assert clean.extractor.engine.params.max_link_density == 0.3
    assert clean.extractor.engine.params.length_low == 50
    assert clean.extractor.region_max_link_density == 0.5      # justext-plus's own, untouched


def test_justext_plus_threshold_has_its_own_flag():
    clean = _clean_stage("--region-max-link-density", "0.3")
    assert clean.extractor.region_max_link_density == 0.3
    assert clean.extractor.engine.params.max_link_density == 0.2      # jusText's default


# -- the table and the command line ------------------------------------------------------------------

def test_build_flags_take_default_and_help_from_the_table():
    actions = {a.dest: a for a in _subparser("build")._actions}
    for opt in OPTIONS.values():
        if opt.name in ("paragraph_min_confidence", "second_opinion_below"):      # langfilter's, not build's
            continue
        action = actions[opt.dest()]
        assert action.help == opt.help, opt.name
        expected = (None if opt.default is None else False) if opt.switch else opt.default
        assert action.default == expected, opt.name
    for opt in ONION_OPTIONS.values():
        action = actions[opt.dest(ONION_PREFIX)]
        assert action.help == opt.help and action.option_strings == [ONION_PREFIX + opt.flag[2:]]
        assert action.default == (False if opt.switch else opt.default), opt.name


@pytest.mark.parametrize("command, names", [
    ("clean", ("max_bytes", "min_bytes", "max_paragraphs", "max_link_density", "region_max_link_density")),
    ("dedup-para", tuple(ONION_OPTIONS)),
])
def test_subcommands_share_the_table(command, names):
    actions = {a.dest: a for a in _subparser(command)._actions}
    for name in names:
        opt = OPTIONS.get(name) if command != "dedup-para" else ONION_OPTIONS[name]
        action = actions[opt.dest()]
        assert action.help == opt.help
        assert action.default == ((None if opt.default is None else False) if opt.switch else opt.default)


def test_library_defaults_are_the_tables():
    from corpustool.dedup.near import NearDuplicates
    from corpustool.dedup.onion import Onion
    from corpustool.executors.local import LocalExecutor
    from corpustool.extractors.clean import Clean
    from corpustool.language.filter import LanguageFilter

    opts = PipelineOptions()
    for name in ("max_bytes", "min_bytes", "max_paragraphs", "min_lang_confidence", "near_threshold",
                 "workers", "doc_timeout", "extractor", "stoplist_file", "template_evidence", "sentences"):
        assert getattr(opts, name) == default(name)
    assert opts.languages == [default("languages")]
    assert Clean().max_bytes == default("max_bytes")
    assert LanguageFilter().min_confidence == default("min_lang_confidence")
    assert NearDuplicates().params.threshold == default("near_threshold")
    assert LocalExecutor().doc_timeout == default("doc_timeout")
    onion = Onion().opts
    for name, opt in ONION_OPTIONS.items():
        if opt.default is not None:
            assert getattr(onion, name) == opt.default, name


# known defaults that were written three or four times: now only in options.py
_COPIES = [
    r"10\s*\*\s*1024\s*\*\s*1024|10\s*<<\s*20|10485760",                       # max bytes
    r"confidence\w*\s*(:\s*float)?\s*=\s*0\.[58]\b",                             # language confidence
    r"(threshold\w*|THRESHOLD)\s*(:\s*float)?\s*=\s*0\.8\b",                    # near threshold
    r"(doc_timeout|DOC_TIMEOUT)\w*\s*(:\s*[\w |]+)?\s*=\s*60(\.0)?\b",          # doc timeout
    r"(max_paragraphs|MAX_PARAGRAPHS)\w*\s*(:\s*int)?\s*=\s*100_?000\b",        # max paragraphs
    r"(DEFAULT_N|DEFAULT_THRESHOLD|DEFAULT_MAX_STUB|DEFAULT_MAX_HEADING_DISTANCE)\s*=\s*\d",   # onion's
    r"add_argument\([^\n]*\"--(max-bytes|min-bytes|max-paragraphs|min-lang-confidence|"
    r"doc-timeout|workers|max-link-density|length-low|hash-bits|lang|sentences|template-evidence)\"[^\n]*default=",
    r"sentences\s*(:\s*bool)?\s*=\s*True\b",                                    # <s> by default
    r"second_opinion_below\w*\s*(:\s*float)?\s*=\s*0\.75|--second-opinion-below\"[^\n]*default=",
    r"(DEFAULT_TARGET|target)\s*(:\s*str)?\s*=\s*\"(manatee|cwb)\"",               # the vertical target

]


def test_no_default_is_written_twice():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "options.py":
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for pattern in _COPIES:
                if re.search(pattern, line):
                    found.append(f"{path.relative_to(PACKAGE)}:{lineno}: {line.strip()}")
    assert not found, "defaults written outside options.py:\n" + "\n".join(found)


# -- messages: the library names the parameter, the command line the flag ------------------------------

def test_library_errors_name_parameters():
    from corpustool.executors.local import LocalExecutor

    with pytest.raises(OptionError, match=r"^workers must be at least 1") as exc:
        LocalExecutor(workers=0)
    assert exc.value.option == "workers"
    with pytest.raises(OptionError, match=r"^min_lang_confidence must be in \[0, 1\]"):
        PipelineOptions(min_lang_confidence=1.5).validate()
    with pytest.raises(OptionError, match=r"^onion_threshold must be in \[0, 1\]"):
        PipelineOptions(onion_options={"threshold": 2.0}).validate()


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--min-lang-confidence", "2"], "--min-lang-confidence must be in [0, 1]"),
    (["--near-threshold", "0"], "--near-threshold must be in (0, 1]"),
    (["--doc-timeout", "-1"], "--doc-timeout must be 0 (no limit)"),
    (["--max-link-density", "1.5"], "--max-link-density must be a number in [0, 1]"),
    (["--lang", "auto,de"], "--lang: auto cannot be combined with other languages"),
    (["--template-evidence", "justext"], "--template-evidence needs a site-level method"),
    (["--region-max-link-density", "1.5"], "--region-max-link-density must be in [0, 1]"),
    (["--onion-threshold", "1.5"], "--onion-threshold must be in [0, 1]"),
    (["--onion-ngram", "0"], "--onion-ngram must be an integer from 1 to 100"),
])
def test_the_command_line_names_flags(tmp_path, capsys, argv, message):
    demo = PACKAGE.parent / "data" / "demo" / "crawl.warc.gz"
    out = tmp_path / "c.vert"
    assert main(["build", str(demo), "-o", str(out), "-q", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_message_naming_two_parameters_names_two_flags():
    from corpustool.cli import option_message

    exc = OptionError("near_threshold must be at most threshold, or negative (off)",
                      options=("near_threshold", "threshold"))
    assert option_message(exc) == "--near-threshold must be at most --threshold, or negative (off)"
    exc = OptionError("languages: auto cannot be combined with other languages", option="languages")
    assert option_message(exc) == "--lang: auto cannot be combined with other languages"


def test_library_messages_name_no_flag():
    """Outside cli/, an OptionError's message names parameters; the command line adds the flags."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "cli" in path.relative_to(PACKAGE).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"OptionError\(\s*f?[\"'](-[-\w]+|[^\"']*\s--\w)", text):
            found.append(f"{path.relative_to(PACKAGE)}: {m.group(0)}")
    assert not found, "\n".join(found)


# -- build sets the onion stage's options, as dedup-para does ------------------------------------------

def _pages(tmp_path):
    """Two pages whose paragraphs share some n-grams (every sentence ends alike)."""
    import random

    words = ("the river basin report water quality fish committee published annual state recommendations city "
             "council people school children teacher morning weather market bread garden house street history "
             "museum old town bridge summer winter train station library book reader").split()
    r = random.Random(7)

    def sentence():
        return " ".join(r.choice(words) for _ in range(14)).capitalize() + \
            " of the world and the people who live there."

    def page(name, title, paras):
        body = "".join(f"<p>{p}</p>" for p in paras)
        path = tmp_path / name
        path.write_text(f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}"
                        f"</article></body></html>", encoding="utf-8")
        return str(path)

    first = [" ".join(sentence() for _ in range(3)) for _ in range(4)]
    words0 = first[0].split()
    second = [" ".join(words0[:len(words0) // 3]) + " " + sentence() + " " + sentence()]
    second += [" ".join(sentence() for _ in range(3)) for _ in range(3)]
    return [page("a.html", "First page about the river", first), page("b.html", "Second page about the town", second)]


def _kept(path) -> list[tuple[str, list[str]]]:
    import json

    docs = [json.loads(line) for line in open(path, encoding="utf-8")]
    return [(d["id"], [p["text"] for p in d["paragraphs"] if p.get("cls", "good") == "good"]) for d in docs]


def test_build_onion_flag_changes_the_result(tmp_path):
    pages = _pages(tmp_path)
    default_out, set_out = tmp_path / "d.jsonl", tmp_path / "t.jsonl"
    assert main(["build", *pages, "--lang", "en", "-o", str(default_out), "-q"]) == 0
    assert main(["build", *pages, "--lang", "en", "-o", str(set_out), "-q", "--onion-threshold", "0.2"]) == 0
    kept_default, kept_set = _kept(default_out), _kept(set_out)
    assert [doc for doc, _ in kept_default] == [pages[0], pages[1]]
    assert [doc for doc, _ in kept_set] == [pages[0]]      # the second page's paragraphs are duplicates at 0.2


@pytest.mark.parametrize("argv", [
    ["-t", "0.2"], ["-n", "4"], ["--skip-punct"], ["--no-smoothing"], ["--max-stub-length", "3"],
    ["--no-whole-paragraphs"], ["--within-document", "ngrams"], ["--hash-bits", "32"], ["--document-level"],
    ["--skip-stopwords", "--stoplist", "en"], ["--max-heading-distance", "50"],
])
def test_build_onion_flags_make_the_stage_dedup_para_makes(argv):
    """`build --onion-X V` and `dedup-para --X V` give the paragraph stage the same options."""
    from corpustool.cli.onion import onion_options_from_args
    from corpustool.dedup.onion import Onion, OnionOptions

    long = {"-t": "--threshold", "-n": "--ngram"}
    build_argv = [ONION_PREFIX + long.get(a, a)[2:] if a.startswith("-") else a for a in argv]
    stage = next(s for s in build_stages(options_from_args(_build_args(*build_argv))) if isinstance(s, Onion))
    wanted = onion_options_from_args(build_parser().parse_args(["dedup-para", *argv]))
    assert stage.opts == wanted.validate()
    assert stage.opts != OnionOptions()                   # the value was not the default


def test_vertical_and_cleaning_flags_come_from_the_table():
    """--lang, --extractor, --preset, --stoplist, --template-evidence and --sentences/--no-sentences
    are table rows too: the parsed values reach PipelineOptions."""
    opts = options_from_args(_build_args())
    assert (opts.languages, opts.extractor, opts.stoplist_file, opts.template_evidence, opts.sentences) == \
        (["auto"], "justext-plus", None, None, True)
    opts = options_from_args(_build_args("--lang", "cs,de", "--no-sentences", "--template-evidence",
                                         "--stoplist", "my.txt", "--extractor", "justext", "--preset", "C"))
    assert opts.languages == ["cs", "de"] and opts.sentences is False
    assert opts.template_evidence == "urltree" and opts.stoplist_file == "my.txt"
    assert opts.extractor == "justext" and opts.extractor_options["preset"] == "C"
    assert options_from_args(_build_args("--sentences")).sentences is True
    vert = _subparser("vert").parse_args(["--no-sentences"])
    assert vert.sentences is False


def test_pipeline_options_refuse_a_value_outside_the_choices():
    with pytest.raises(OptionError, match=r"^quality must be one of off, mark, drop, not 'sometimes'"):
        PipelineOptions(quality="sometimes").validate()
