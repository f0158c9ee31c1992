"""Writers: sinks at the end of the pipeline.

Output is written under a temporary name and moved into place on
:meth:`Writer.close`, so an interrupted run never leaves a truncated file
that looks complete. ``.gz`` names are gzip-compressed when the text is
complete (with a fixed mtime, so identical input gives byte-identical
files). ``-`` is standard output.
"""
from __future__ import annotations

import errno
import gzip
import io
import os
import shutil
import sys
from typing import IO, Iterable

from ..document import Document


class Writer:
    name = "write"

    def __init__(self, path: str = "-", append: bool = False) -> None:
        self.path = path
        self.docs = 0
        self.append = append
        self._tmp: str | None = None
        self._raw: IO[bytes] | None = None
        if path == "-":
            self.fh: IO[str] = sys.stdout
            return
        if append:
            # a resumable build's partial output: plain text, appended in place
            self._raw = open(path, "ab")
            self.fh = io.TextIOWrapper(self._raw, encoding="utf-8", newline="\n")
            return
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        self._tmp = f"{path}.tmp{os.getpid()}"
        self._raw = open(self._tmp, "wb")
        self.fh = io.TextIOWrapper(self._raw, encoding="utf-8", newline="\n")

    def write(self, doc: Document) -> bool:
        """Write ``doc``; False when it has nothing to write (no token, no text)."""
        text = self.format(doc)
        if not text:
            return False
        self.docs += 1
        try:
            self.fh.write(text)
        except OSError as exc:          # a full disk: the message names the output
            raise named_error(exc, self.path) from None
        return True

    def format(self, doc: Document) -> str:
        raise NotImplementedError

    def flush(self) -> int:
        """Write everything out; the size of the file so far (resumable builds)."""
        try:
            self.fh.flush()
            if self._raw is not None:
                self._raw.flush()
                os.fsync(self._raw.fileno())
                return self._raw.tell()
        except OSError as exc:
            raise named_error(exc, self.path) from None
        return 0

    _ready: str | None = None

    def close(self, commit: bool = True) -> None:
        """Finish the output; with ``commit`` (the default) also move it into place, else
        :meth:`commit` does, once everything else of the run has succeeded."""
        try:
            if self.path == "-" or self.append:
                self.fh.flush()
                if self.append:
                    self.fh.close()
                return
            self.fh.close()
        except OSError as exc:
            raise named_error(exc, self.path) from None
        assert self._tmp is not None
        self._ready = prepare_output(self._tmp, self.path)
        if commit:
            self.commit()

    def commit(self) -> None:
        if self._ready is not None:
            assert self._tmp is not None
            commit_output(self._ready, self._tmp, self.path)
            self._ready = None

    def abort(self) -> None:
        """Discard a partial output (on error or interruption)."""
        if self.path == "-":
            return
        try:
            self.fh.close()
        except Exception:
            pass
        remove_quietly(self._tmp)
        if self._ready is not None and self._ready != self._tmp:
            remove_quietly(self._ready)
        self._ready = None


def named_error(exc: OSError, path: str | None) -> OSError:
    """``exc`` naming ``path`` when it names no file (a write to a full disk names none)."""
    if exc.filename or not path:
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), path)


def prepare_output(plain: str, path: str) -> str:
    """The file to move into place as ``path``: ``plain`` itself, or, when ``path`` ends in .gz,
    its compressed copy (fixed mtime, no file name) under a temporary name."""
    if not path.endswith(".gz"):
        return plain
    tmp = f"{path}.gz-tmp{os.getpid()}"
    try:
        with open(plain, "rb") as src, open(tmp, "wb") as raw, \
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            shutil.copyfileobj(src, gz, 1 << 20)
    except OSError as exc:
        remove_quietly(tmp)
        raise named_error(exc, path) from None
    except BaseException:
        remove_quietly(tmp)
        raise
    return tmp


def commit_output(ready: str, plain: str, path: str) -> None:
    """Move a prepared output into place (a rename: nothing left to fail for want of space)."""
    os.replace(ready, path)
    if ready != plain:
        remove_quietly(plain)


def finish_output(plain: str, path: str) -> None:
    """Move a finished plain output into place, gzip-compressed when ``path`` ends in .gz.

    Compressing the finished file in one pass (fixed mtime, no file name)
    gives the same bytes however the text was written: in one run or in a
    resumed one. Interrupted while compressing, it leaves no half-written file.
    """
    commit_output(prepare_output(plain, path), plain, path)


def remove_quietly(path: str | None) -> None:
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass


# -- checks before anything is written -------------------------------------------

def check_output_path(path: str, inputs: Iterable[str] = (), what: str = "-o") -> None:
    """Refuse, with a one-line OptionError, an output that cannot be written or that is an input.

    Run before anything is read or written: an output in a read-only folder,
    under a regular file, that is a directory, or that is one of the inputs
    (the same file, also through a symbolic link or another relative path)
    would otherwise fail after the work was done, or overwrite the input.
    """
    from ..errors import OptionError

    if path == "-":
        return
    if not path:
        raise OptionError(f"{what} needs a file name")
    real = os.path.realpath(path)
    for inp in inputs:
        if inp == "-":
            continue
        try:
            same = os.path.exists(path) and os.path.samefile(path, inp)
        except OSError:
            same = False
        if same or real == os.path.realpath(inp):
            raise OptionError(f"{what} {path} is the input {inp}; choose another output file")
    if os.path.isdir(real):
        raise OptionError(f"{what} {path} is a directory; give a file name")
    if os.path.exists(real) and not os.path.isfile(real):
        # a device, a FIFO or a socket: written under a temporary name and renamed, it would be replaced
        hint = "; use - for standard output" if what == "-o" else ""
        raise OptionError(f"{what} {path} is not a regular file (a device, pipe or socket); "
                          f"outputs are regular files only{hint}")
    # the folder must exist and be a writable directory: a missing one is not created (a typo in
    # the path would make folders silently, and an interrupted run would leave them behind)
    parent = os.path.dirname(real)
    if not os.path.exists(parent):
        ancestor = parent
        while not os.path.exists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise OptionError(f"cannot write {what} {path}: {ancestor} is a file, not a directory")
        folder = os.path.dirname(os.path.normpath(path)) or parent
        raise OptionError(f"cannot write {what} {path}: the folder {folder} does not exist (create it first)")
    if not os.path.isdir(parent):
        raise OptionError(f"cannot write {what} {path}: {parent} is a file, not a directory")
    # outputs are written under a temporary name next to the output and renamed: try exactly that
    # (access() says yes to root on a read-only file system)
    import tempfile
    try:
        fd, probe = tempfile.mkstemp(prefix=".corpustool-probe-", dir=parent)
    except OSError as exc:
        raise OptionError(f"cannot write {what} {path}: cannot create a file in {parent} ({exc.strerror or exc})") from None
    os.close(fd)
    remove_quietly(probe)


def check_distinct_outputs(named: Iterable[tuple[str, str | None]]) -> None:
    """Refuse two outputs of one run (-o, --rejects, --stats, --report) that are the same file."""
    from ..errors import OptionError

    seen: dict[str, str] = {}
    for what, path in named:
        if not path or path == "-":
            continue
        real = os.path.realpath(path)
        if real in seen:
            raise OptionError(f"{what} and {seen[real]} are the same file: {path}")
        seen[real] = what


def check_one_stdout(named: Iterable[tuple[str, str | None]]) -> None:
    """Refuse two outputs of one run that are both ``-``: their bytes would be mixed on standard output."""
    from ..errors import OptionError

    users = [what for what, path in named if path == "-"]
    if len(users) > 1:
        raise OptionError(f"{users[0]} and {users[1]} would both write to standard output; "
                          f"give one of them a file name")


class OutputLock:
    """An exclusive lock on ``OUTPUT.lock``, so that two runs never write the same output.

    ``fcntl.flock`` is released by the kernel when the process ends, however it
    ends, so a killed run never leaves a stale lock behind (its lock file may
    stay, unlocked, and is reused). The lock file holds the owner's pid for the
    message a second run prints.
    """

    def __init__(self, output: str) -> None:
        self.path = f"{output}.lock"
        self.fd: int | None = None

    def acquire(self) -> "OutputLock":
        import fcntl
        from ..errors import OptionError

        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                os.close(fd)
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                output = self.path[:-len(".lock")]
                raise OptionError(f"{output} is being written by another running build"
                                  f"{f' (pid {owner})' if owner.isdigit() else ''}; wait for it to end or "
                                  f"choose another output") from None
            # the holder before us may have removed the file between our open and our lock
            try:
                if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        self.fd = fd
        try:        # the pid is for the message of a second run only: a full disk does not stop us here
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        remove_quietly(self.path)       # removed while still locked: no one can take a stale file
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


FORMAT_SUFFIXES = {".vert": "vert", ".vrt": "vert", ".txt": "text", ".text": "text", ".jsonl": "jsonl",
                   ".json": "jsonl"}


def format_for(path: str) -> str:
    """Output format by file name: .vert/.vrt, .txt, .jsonl (each maybe .gz); stdout and a name
    without a suffix are vertical. Another suffix (``x.docx``) is refused: we would write
    vertical text under a name that promises something else (issue 22)."""
    from ..errors import OptionError

    base = path[:-3] if path.endswith(".gz") else path
    name = os.path.basename(base)
    suffix = os.path.splitext(name)[1].lower()
    if path == "-" or not suffix:
        return "vert"
    if suffix in FORMAT_SUFFIXES:
        return FORMAT_SUFFIXES[suffix]
    raise OptionError(f"cannot tell the output format of {path!r} from its name; use .vert, .vrt, .txt or "
                      f".jsonl (optionally .gz), or give --format")
