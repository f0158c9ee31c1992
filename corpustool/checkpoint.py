"""Checkpoints of resumable builds (``corpustool build --resume``).

``OUT.checkpoint/`` is a directory:

``manifest.json``
    written last at every checkpoint, atomically (temporary file, fsync,
    rename, fsync of the directory): the fingerprint of the inputs and
    options, the number of finished inputs, the sizes of ``OUT.partial`` and
    ``REJECTS.partial`` at that point, every stage's counters and numbers, and
    the corpus profile (bounded: at most 50,000 domains).
``0001.npz``, ``0002.npz``, ...
    one segment per finished input, never rewritten: the numpy arrays each
    stage's state gained during that input (the paragraph hashes, sketches,
    super-shingles and document ids it added). Written and fsynced before the
    manifest that counts it.
``opaque-K.pickle``
    only for stages without a checkpoint format (the site-level methods):
    their whole state at checkpoint K; older ones are removed.

A kill at any moment leaves a manifest that counts checkpoint K or K+1, and
every segment it counts is complete; a segment that no manifest counts is
ignored and overwritten. Loading reads segments 1..K and rebuilds the stages'
structures from them, as arrays of their own that grow again (nothing is
mapped from the file). The segments add up to the arrays the stages hold
(without their slack and indexes), so the checkpoint is about the size of
the state and never needs room for two copies.
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

FORMAT = 1
MANIFEST = "manifest.json"


def pack_strings(name: str, values: list[str]) -> dict[str, np.ndarray]:
    """Strings as two arrays: their UTF-8 bytes end to end, and the byte lengths."""
    data = [v.encode("utf-8", "surrogatepass") for v in values]
    return {f"{name}.bytes": np.frombuffer(b"".join(data), dtype=np.uint8).copy(),
            f"{name}.lengths": np.array([len(d) for d in data], dtype=np.int64)}


def unpack_strings(name: str, arrays: dict[str, np.ndarray]) -> list[str]:
    blob = arrays[f"{name}.bytes"].tobytes()
    out, pos = [], 0
    for n in arrays[f"{name}.lengths"].tolist():
        out.append(blob[pos:pos + n].decode("utf-8", "surrogatepass"))
        pos += n
    return out


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_file(path: str) -> None:
    """Push a file's written bytes to the disk (a checkpoint counts them)."""
    if path and os.path.exists(path):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_atomically(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not exc.filename:
            # a full disk names no file: say which (the build's one line names it, as for the corpus)
            raise type(exc)(exc.errno, exc.strerror or str(exc), path) from None
        raise


class Checkpoint:
    """The checkpoint directory of one output."""

    def __init__(self, path: str) -> None:
        self.path = path

    def _file(self, name: str) -> str:
        return os.path.join(self.path, name)

    @staticmethod
    def segment_name(k: int) -> str:
        return f"{k:04d}.npz"

    def load_manifest(self) -> dict[str, Any] | None:
        from .errors import OptionError
        if os.path.isfile(self.path):
            raise OptionError(f"{self.path} is a checkpoint of an older corpustool; remove it to start afresh")
        try:
            with open(self._file(MANIFEST), "rb") as fh:
                manifest = json.loads(fh.read().decode("utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError):
            raise OptionError(f"{self._file(MANIFEST)} is damaged; remove {self.path} to start afresh") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise OptionError(f"{self.path} is in another checkpoint format; remove it to start afresh")
        return manifest

    def load_segments(self, done: int) -> list[dict[str, np.ndarray]]:
        """The arrays of checkpoints 1..done, oldest first."""
        from .errors import OptionError
        segments = []
        for k in range(1, done + 1):
            path = self._file(self.segment_name(k))
            try:
                with np.load(path, allow_pickle=False) as z:
                    segments.append({name: z[name] for name in z.files})
            except (OSError, ValueError) as exc:
                raise OptionError(f"{path}: {exc}; remove {self.path} to start afresh") from None
        return segments

    def load_opaque(self, done: int) -> dict[str, Any]:
        import pickle
        path = self._file(f"opaque-{done:04d}.pickle")
        if not os.path.exists(path):
            return {}
        with open(path, "rb") as fh:
            return pickle.load(fh)

    def write(self, done: int, manifest: dict[str, Any], arrays: dict[str, np.ndarray],
              opaque: bytes | None = None) -> None:
        """Checkpoint ``done``: its segment (and opaque state), then the manifest that counts them."""
        import io
        os.makedirs(self.path, exist_ok=True)
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        _write_atomically(self._file(self.segment_name(done)), buf.getvalue())
        if opaque is not None:
            _write_atomically(self._file(f"opaque-{done:04d}.pickle"), opaque)
        manifest = {"format": FORMAT, **manifest, "done": done}
        _write_atomically(self._file(MANIFEST), json.dumps(manifest, sort_keys=True).encode("utf-8"))
        _fsync_dir(self.path)
        for name in os.listdir(self.path):      # older opaque states and segments no manifest counts
            stale = (name.startswith("opaque-") and name != f"opaque-{done:04d}.pickle") or \
                (name.endswith(".npz") and name[:-4].isdigit() and int(name[:-4]) > done)
            if stale:
                try:
                    os.unlink(self._file(name))
                except OSError:
                    pass

    def clear(self) -> None:
        """Remove the checkpoint: the manifest first, so that a kill halfway leaves none."""
        import shutil
        if os.path.isfile(self.path):
            os.unlink(self.path)
            return
        try:
            os.unlink(self._file(MANIFEST))
        except FileNotFoundError:
            pass
        shutil.rmtree(self.path, ignore_errors=True)

    def size(self) -> int:
        """Bytes on disk (for measurements)."""
        if not os.path.isdir(self.path):
            return 0
        return sum(os.path.getsize(self._file(n)) for n in os.listdir(self.path))
