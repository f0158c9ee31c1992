"""scripts/bench/bench_justext.py runs on generated pages (as `make bench` runs it without ../shared)."""
from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO

SCRIPT = REPO / "scripts" / "bench" / "bench_justext.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--source", "generated", "--limit", "6", *args],
                          capture_output=True, text=True, cwd=REPO)


def test_the_walk_and_free_phases_are_timed_for_justext_learned():
    done = run("--extractor", "justext-learned", "--walk", "--free", "columns,trees")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "justext-learned's walk alone" in out
    # the rows are labelled with the extractor they measure, not the default's name
    assert "justext-learned / package, from the raw bytes:" in out and "justext-plus /" not in out
    free = out.split("justext-learned with columns and trees free (their results looked up):")[1]
    ratio = float(free.split("from the raw bytes:")[1].split()[0])
    assert ratio > 0


def test_free_phases_are_refused_for_another_extractor_or_phase():
    for args, said in ((["--free", "columns"], "--extractor justext-learned"),
                       (["--extractor", "justext-learned", "--free", "walk"], "not walk")):
        done = run(*args)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr
