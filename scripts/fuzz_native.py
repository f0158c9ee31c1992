#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris/libFuzzer) of corpustool's compiled code under AddressSanitizer.

Run it through ``make fuzz`` (see corpustool/native/README.md): that builds the extensions with
clang's -fsanitize=address,undefined,fuzzer-no-link into .venv-fuzz and starts this script with
atheris's ASan runtime preloaded. The first byte of an input picks the entry point (justext-plus,
the classic engine, raw bytes straight to libxml2's SAX parse, the compiled walk over lxml's
tree, the text scans), the rest is the page or text: tests/native/fuzz_targets.py.

A crash (ASan report, signal), a Python exception or a timeout stops libFuzzer and writes the
input to the artifact prefix; ``scripts/fuzz_campaign.sh`` restarts it until the campaign's time
is up. Inputs worth keeping go to tests/native/fuzz_corpus/ (tests/native/test_fuzz_corpus.py replays each in a
fresh child process).
"""
from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "native"))
with atheris.instrument_imports(include=["corpustool", "fuzz_targets"]):
    import fuzz_targets


def main() -> None:
    # one-time work (stoplists, the language models, the extensions' tables) before the clock of
    # libFuzzer's -timeout starts: under ASan the first language guess alone takes half a minute
    for target in range(len(fuzz_targets.TARGETS)):
        fuzz_targets.run(bytes([target]) + b"<html lang=en><title>t</title><p>Warm up the entry points.</p>")
    atheris.Setup(sys.argv, fuzz_targets.run)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
