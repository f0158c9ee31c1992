#!/usr/bin/env python3
"""``make eval``: our extractors and the installed peers on ../shared/data/snippets and wcxb-dev.

Runs ``corpustool eval`` with the clean stage's default configuration, the
thesis presets A-D (seed 003, Table 2.7), justext-package with the package
defaults, and every installed peer (peer:justext, peer:trafilatura,
peer:resiliparse), and prints the table: snippet hit rates (``with`` found,
``without`` absent), snippet-level precision/recall/F1, fragmentation and
pages per second. Then the same on ../shared/data/wcxb-dev (the WCXB development split,
1,476 pages with a main text, seven page types) with the default, the classic
``justext`` and every installed peer (trafilatura gets the page URL): mean
word F1 (the benchmark's bag-of-words metric), per page type, per domain fold
and for the development and held-out halves of the folds. Without a data set
it says so and goes on.

Extra arguments are passed to ``corpustool eval`` (e.g. ``--limit 100``,
``--lang html``, ``--csv out.csv``, ``--html report/``).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SNIPPETS = REPO.parent / "shared" / "data" / "snippets"
WCXB = REPO.parent / "shared" / "data" / "wcxb-dev"
sys.path.insert(0, str(REPO))


def configurations() -> list[str]:
    from corpustool.eval.peers import installed_peers
    from corpustool.extractors.base import OptionError, get_extractor
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR

    specs = [f"default={DEFAULT_EXTRACTOR}"]
    # the presets belong to the default engine when it takes them, else to justext-package
    preset_engine = DEFAULT_EXTRACTOR
    try:
        get_extractor(DEFAULT_EXTRACTOR, preset="A")
    except OptionError:
        preset_engine = "justext-package"
    specs += [f"{p}={preset_engine}:preset={p}" for p in "ABCD"]
    if DEFAULT_EXTRACTOR != "justext-package" or preset_engine != "justext-package":
        specs.append("justext-package")
    specs += [f"peer:{p}" for p in installed_peers()]
    return specs


def wcxb_configurations() -> list[str]:
    from corpustool.eval.peers import installed_peers
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR

    return [f"default={DEFAULT_EXTRACTOR}", "justext"] + [f"peer:{p}" for p in installed_peers()]


def main(argv: list[str]) -> int:
    from corpustool.cli import main as cli_main
    from corpustool.eval.peers import PEERS, installed_peers
    from corpustool.extractors.clean import DEFAULT_EXTRACTOR

    print(f"default = {DEFAULT_EXTRACTOR} (the clean stage's default configuration)")
    missing = [p for p in PEERS if p not in installed_peers()]
    if missing:
        print("peers not installed (skipped): " + ", ".join(f"peer:{p}" for p in missing))
    status = 0
    gold_sets = [("snippets", "snippets", SNIPPETS, SNIPPETS / "evaldata.json", configurations),
                 ("wcxb", "wcxb-dev", WCXB, WCXB / "ground-truth", wcxb_configurations)]
    for i, (kind, name, folder, marker, specs) in enumerate(gold_sets):
        if i:
            print()
        if not marker.exists():
            print(f"skipped: ../shared/data/{name} not present")
            continue
        args = ["eval", "--gold", f"{kind}:{folder}", "-q"]
        for spec in specs():
            args += ["--extractor", spec]
        status = cli_main(args + argv) or status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
