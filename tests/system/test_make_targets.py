"""`make test` uses what the machine has; system packages come only from `make system-deps` (issue 30)."""
import os
import re
import subprocess

import pytest

from tests.support.paths import REPO


def recipe(target: str) -> str:
    """The commands `make -n TARGET` would run (prerequisites already satisfied or not)."""
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    m = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)*)", text, re.M)
    assert m, f"no {target} target"
    return m.group(1)


def test_make_test_changes_nothing_on_the_system():
    body = recipe("test")
    assert "apt-get" not in body and "install_" not in body and "sudo" not in body
    assert "pytest -rs" in body                     # and says which tests it skipped, and why


def test_system_deps_is_an_explicit_target_that_ci_calls():
    body = recipe("system-deps")
    assert "install_chromium.sh" in body and "install_java.sh" in body
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make system-deps" in ci
    # CI runs the suite the way a user gets it first: a fresh clone with no ../shared beside it
    assert "git clone" in ci and 'make -C "$fresh/corpustool" test' in ci


def test_make_dry_run_of_test_names_only_pytest():
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
        r = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.installed", "test"], cwd=REPO,
                           capture_output=True, text=True, timeout=60, env=env)
    except FileNotFoundError:
        pytest.skip("make is not installed")
    assert r.returncode == 0, r.stderr
    assert [line for line in r.stdout.splitlines() if line.strip()] == [".venv/bin/python -m pytest -rs"]
