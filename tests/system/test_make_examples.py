"""``make examples`` and ``make eval`` without data (issue 30, item 10)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.paths import REPO


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def test_run_eval_without_data_says_what_is_missing_and_fails(tmp_path):
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "run_eval.py")], capture_output=True, text=True,
                         env=_env(CORPUSTOOL_EVAL_DATA=str(tmp_path)), timeout=300)
    assert run.returncode != 0
    assert f"missing {tmp_path / 'snippets'}/" in run.stderr
    assert f"missing {tmp_path / 'wcxb-dev'}/" in run.stderr
    assert "make examples" in run.stderr and "CORPUSTOOL_EVAL_DATA" in run.stderr


def test_make_examples_builds_the_readme_inputs_and_run_eval_uses_a_present_set(tmp_path):
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "make_examples.py"), str(tmp_path / "ex")],
                         capture_output=True, text=True, env=_env(), timeout=600)
    assert run.returncode == 0, run.stderr
    ex = tmp_path / "ex"
    assert (ex / "crawl.warc.gz").stat().st_size > 10_000
    assert len(list((ex / "pages").glob("*.html"))) > 20
    assert b"<html" in (ex / "page.html").read_bytes()[:2000].lower()
    assert "the" in (ex / "sample.txt").read_text(encoding="utf-8").split()
    gold = json.loads((ex / "snippets" / "evaldata.json").read_text(encoding="utf-8"))
    assert len(gold) > 20 and all((ex / "snippets" / "pages" / e["file"]).is_file() for e in gold.values())
    # the snippets set found, wcxb-dev missing: evaluated, the missing one named, status 0
    data = tmp_path / "data"
    data.mkdir()
    (data / "snippets").symlink_to(ex / "snippets")
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "run_eval.py"), "--limit", "2", "--bootstrap", "0"],
                         capture_output=True, text=True, env=_env(CORPUSTOOL_EVAL_DATA=str(data)), timeout=600)
    assert run.returncode == 0, run.stderr
    assert "default" in run.stdout and f"skipped: {data / 'wcxb-dev'} not present" in run.stdout


def test_make_has_an_examples_target_and_git_ignores_its_output():
    dry = subprocess.run(["make", "-n", "-C", str(REPO), "examples"], capture_output=True, text=True, timeout=120)
    assert dry.returncode == 0 and "scripts/make_examples.py examples" in dry.stdout
    assert "/examples/" in (REPO / ".gitignore").read_text(encoding="utf-8").split()
