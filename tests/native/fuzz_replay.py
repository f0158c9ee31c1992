"""Replay fuzz inputs (tests/native/fuzz_targets.py), each input with each target in a fresh child.

``python tests/native/fuzz_replay.py FILE...`` imports corpustool once, parses nothing, then forks one
child per (input, target): a child starts from a process that has never parsed a page, so an
input that crashes only in a fresh process crashes here, and a crash kills the child, not the
replay. Prints one line per child: ``status<TAB>target<TAB>file``, status being ``ok``,
``exception`` (a Python exception, traceback on stderr), ``signal N`` or ``exit N``; a child
still running after --timeout seconds is killed by SIGALRM (``signal 14``). ``--no-native``
runs the pure-Python fallbacks instead of the compiled modules.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def replay(path: str, target, timeout: int) -> str:
    with open(path, "rb") as f:
        body = f.read()[1:]
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            signal.alarm(timeout)
            target(body)
        except BaseException:   # noqa: BLE001 - reported, then the child ends
            print(f"{target.__name__} {path}:", file=sys.stderr)
            traceback.print_exc()
            code = 3
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    code = os.WEXITSTATUS(status)
    return "ok" if code == 0 else "exception" if code == 3 else f"exit {code}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-native", action="store_true",
                    help="block corpustool.native's extensions: the pure-Python paths run")
    args = ap.parse_args()
    if args.no_native:
        for name in ("justext_walk", "justext_plus_decide", "text_scan"):
            sys.modules[f"corpustool.native.{name}"] = None    # import fails as if not built
    import fuzz_targets
    for path in args.files:
        for target in fuzz_targets.TARGETS:
            print(f"{replay(path, target, args.timeout)}\t{target.__name__}\t{path}", flush=True)


if __name__ == "__main__":
    main()
