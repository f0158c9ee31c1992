"""The framework on the development snippets (skipped without ../shared/data/snippets) and run_eval.py."""
import importlib.util
import io
from contextlib import redirect_stdout

from corpustool.cli import main
from corpustool.eval.gold import read_gold
from corpustool.eval.runner import Evaluation, parse_config
from corpustool.eval.tokens import normalize_snippet
from tests.support.paths import SCRIPTS

SCRIPT = SCRIPTS / "make" / "run_eval.py"


def load_script():
    spec = importlib.util.spec_from_file_location("run_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_eval_without_data_names_what_is_missing_and_fails(tmp_path, monkeypatch, capsys):
    # issue 30, item 10: it used to print two "skipped" lines and exit 0 having done nothing
    module = load_script()
    monkeypatch.setenv("CORPUSTOOL_EVAL_DATA", str(tmp_path / "absent"))
    assert module.main([]) == 1
    out = capsys.readouterr()
    assert "gold:" not in out.out      # nothing was evaluated
    assert f"missing {tmp_path / 'absent' / 'snippets'}/" in out.err
    assert f"missing {tmp_path / 'absent' / 'wcxb-dev'}/" in out.err
    assert "make examples" in out.err


def test_run_eval_shows_only_the_shared_folder_relative():
    # a fresh clone in /tmp printed the pytest folder /tmp/pytest-of-root/... as ../pytest-of-root/...
    module = load_script()
    beside = module.REPO.parent / "elsewhere" / "data"
    assert module._shown(beside) == str(beside)
    assert module._shown(module.REPO.parent / "shared" / "data") == "../shared/data"


def test_run_eval_configurations_cover_default_presets_and_peers():
    module = load_script()
    from corpustool.eval.peers import installed_peers
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR
    specs = module.configurations()
    assert specs[0] == f"default={DEFAULT_EXTRACTOR}"
    assert [s.split("=", 1)[0] for s in specs[1:5]] == ["A", "B", "C", "D"]
    assert all(s.endswith(f"preset={s[0]}") for s in specs[1:5])
    assert [s for s in specs if s.startswith("peer:")] == [f"peer:{p}" for p in installed_peers()]


def test_snippets_wrapper_matches_the_justext_package(snippets_dir):
    pages = read_gold(f"snippets:{snippets_dir}")[:40]
    ev = Evaluation(pages, [parse_config("justext-package"), parse_config("peer:justext")])
    ev.run()
    ours, package = (ev.summary(c.label, resamples=0) for c in ev.configs)
    # same engine, same stoplist choice: the same snippets are found
    assert (ours.with_rate, ours.without_rate) == (package.with_rate, package.without_rate)
    assert 0.3 < ours.with_rate < 1 and ours.without_rate > 0.6
    testable = sum(1 for p in pages for s in p.with_snippets if normalize_snippet(s))
    assert ours.snippets.tp + ours.snippets.fn == testable


def test_reports_are_deterministic(snippets_dir, tmp_path):
    outputs = []
    for run in ("a", "b"):
        csv_path, html_dir = tmp_path / f"{run}.csv", tmp_path / f"{run}-html"
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = main(["eval", "--gold", str(snippets_dir), "--extractor", "justext-package:preset=C",
                         "--limit", "15", "-q", "--csv", str(csv_path), "--html", str(html_dir)])
        assert code == 0
        files = sorted(p.relative_to(html_dir) for p in html_dir.rglob("*.html"))
        outputs.append((csv_path.read_bytes(), files, [(html_dir / f).read_bytes() for f in files]))
    assert outputs[0] == outputs[1]
    assert len(outputs[0][1]) == 16                      # index + 15 inspect pages
