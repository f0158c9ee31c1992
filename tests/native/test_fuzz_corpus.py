"""The fuzz corpus (tests/native/fuzz_corpus/) as regression tests: no input crashes, raises or hangs.

Each file is a fuzz input of scripts/fuzz_native.py (first byte: the entry point it was found
with; every entry point of tests/native/fuzz_targets.py is run on the rest). The files are the inputs
of issue 19 that crashed the removed HTML tokenizer, our own edge inputs, and what fuzz
campaigns found (corpustool/native/README.md). tests/native/fuzz_replay.py runs each (input, entry
point) in a child forked from a process that has parsed nothing, so a crash that needs a fresh
process is seen, and a crash fails this test instead of killing the test run. The same inputs go
through the pure-Python fallbacks too (the extensions blocked), which must survive them as well.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.native import fuzz_targets
from tests.support.paths import SCRIPTS

HERE = Path(__file__).resolve().parent
CORPUS = sorted((HERE / "fuzz_corpus").iterdir())


def test_the_seeds_use_every_entry_point():
    """scripts/fuzz_seeds.py gives the dev pages to every entry point of fuzz_targets in turn."""
    spec = importlib.util.spec_from_file_location("fuzz_seeds", SCRIPTS / "fuzz_seeds.py")
    seeds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seeds)
    assert seeds.N_TARGETS == len(fuzz_targets.TARGETS)


def test_the_corpus_holds_the_crashes_of_issue_19():
    names = {p.name for p in CORPUS}
    assert {"issue19-attribute-value-cut", "issue19-empty-values-after-long-value"} <= names


@pytest.mark.parametrize("native", [True, False], ids=["compiled", "pure-python"])
@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_fuzz_input_runs_through_every_entry_point_in_a_fresh_process(path, native):
    command = [sys.executable, str(HERE / "fuzz_replay.py"), str(path)] + ([] if native else ["--no-native"])
    out = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    assert len(lines) == len(fuzz_targets.TARGETS), out.stdout
    failed = [f"{target}: {status}" for status, target, _ in lines if status != "ok"]
    assert not failed, f"{path.name}: {failed}\n{out.stderr[-3000:]}"
