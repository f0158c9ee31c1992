"""onion over a vertical byte stream: the engine of ``corpustool onion`` and ``corpustool dupngrams``.

The onion program's algorithm (seed 003 Sect. 3.5, Algorithm 3.1, block level with onion's context
smoothing; onion 1.2 by Jan Pomikálek), described in :mod:`corpustool.native._onion`, which does the
work: :func:`engine` returns it. :class:`PyEngine` is the same algorithm in plain Python, line by
line: the reference the compiled engine is tested and fuzzed against, and the fallback when it was
not built (about 50x slower). Both take and give bytes, so lines are kept byte for byte.

An engine is ``Engine(n, threshold, max_stub, smoothing, stub_rule, strip, doc_tag, par_tag,
hash_bits, mode, spill_dir)``; ``feed(bytes)`` returns the output of the documents completed,
``finish()`` the rest; ``mode=1`` collects n-gram hashes instead (pass 1): ``write_duplicates(file)``
writes those occurring at least twice. ``load_duplicates(file)`` reads them for pass 2 (``-f``).
"""
from __future__ import annotations

from ..native import backend

MODE_MARK, MODE_COLLECT = 0, 1
HASH_NAME = "onion-vertical-v1"     # recorded in duplicate n-gram files made by this engine

# the engine that hashes n-grams each way (onion_options.OnionOptions.hash_params: the extended one)
_HASH_ENGINES = {HASH_NAME: "onion", "xxh3-poly-v1": "extended"}


def mismatch_message(path: str, diff: dict) -> str:
    """Why a duplicate n-gram file does not fit the run, naming the --engine that reads it."""
    detail = ", ".join(f"{k}: file {a!r} vs now {b!r}" for k, (a, b) in sorted(diff.items()))
    message = f"{path} was made with other n-gram options ({detail})"
    engine_name = _HASH_ENGINES.get(diff.get("hash", (None, None))[0])
    if engine_name:
        message += f"; it was written by 'dupngrams --engine {engine_name}': give the same --engine here"
    return message


_M64 = (1 << 64) - 1
_POLY = 0x9E3779B97F4A7C15


def engine(**options):
    """The compiled engine, or the Python one when the extension was not built."""
    Engine = backend.onion.get("Engine")
    return Engine(**options) if Engine is not None else PyEngine(**options)


def compiled() -> bool:
    return backend.onion.compiled


def _mix64(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & _M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def token_hash(b: bytes) -> int:
    """Hash of one line, as the compiled engine's token_hash."""
    n = len(b)
    h = 0x243F6A8885A308D3 ^ ((n * _POLY) & _M64)
    i = 0
    while n - i >= 8:
        w = int.from_bytes(b[i:i + 8], "little")
        h = ((h ^ w) * 0xFF51AFD7ED558CCD) & _M64
        h ^= h >> 32
        i += 8
    w = int.from_bytes(b[i:], "little")
    h = ((h ^ w ^ (((n - i) << 56) & _M64)) * 0xC4CEB9FE1A85EC53) & _M64
    return h ^ (h >> 29)


def _symbol(cp: int) -> bool:
    return ((0x80 <= cp <= 0xBF and cp not in (0xAA, 0xB2, 0xB3, 0xB5, 0xB9, 0xBA) and not 0xBC <= cp <= 0xBE)
            or cp in (0xD7, 0xF7) or 0x2000 <= cp <= 0x2BFF or 0x3000 <= cp <= 0x3004 or 0x3008 <= cp <= 0x303F
            or 0xFE00 <= cp <= 0xFE0F or 0xFE30 <= cp <= 0xFE4F or 0xFF00 <= cp <= 0xFF0F
            or 0xFF1A <= cp <= 0xFF20 or 0xFF3B <= cp <= 0xFF40 or 0xFF5B <= cp <= 0xFF65
            or 0x1F000 <= cp <= 0x1FAFF)


def is_word_token(b: bytes) -> bool:
    """Does a token hold a letter or digit (the compiled engine's is_word_token, for skip_punct)?

    ASCII letters, digits and '_' do; so does a non-ASCII character outside the punctuation and
    symbol blocks of _symbol, and a byte that does not start a well-formed UTF-8 sequence.
    """
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        if c < 0x80:
            if 48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95:
                return True
            i += 1
            continue
        k = 1 if 0xC2 <= c <= 0xDF else 2 if 0xE0 <= c <= 0xEF else 3 if 0xF0 <= c <= 0xF4 else 0
        if k == 0 or i + k >= n:
            return True
        cp = c & (0x1F if k == 1 else 0x0F if k == 2 else 0x07)
        for j in range(1, k + 1):
            x = b[i + j]
            if x & 0xC0 != 0x80:
                return True
            cp = (cp << 6) | (x & 0x3F)
        if not _symbol(cp):
            return True
        i += k + 1
    return False


def _starts(line: bytes, tag: bytes) -> bool:
    return len(line) > len(tag) and line.startswith(tag) and line[len(tag)] in b" >"


class PyEngine:
    def __init__(self, n: int = 7, threshold: float = 0.5, max_stub: int = 20, smoothing: bool = True,
                 stub_rule: str = "onion", strip: bool = False, doc_tag: str = "doc", par_tag: str = "p",
                 hash_bits: int = 64, mode: int = MODE_MARK, spill_dir: str | None = None,
                 whole_paragraphs: bool = False, within: str = "ngrams", near: float = -1.0,
                 skip_punct: bool = False) -> None:
        import struct

        if within not in ("ngrams", "paragraphs", "none") or (within == "paragraphs" and not whole_paragraphs):
            raise ValueError("within must be ngrams, paragraphs (with whole_paragraphs) or none")
        self.whole, self.within = whole_paragraphs, within
        self.skip_punct = bool(skip_punct)
        if not 1 <= n <= 100 or not 16 <= hash_bits <= 64 or max_stub < 0 or mode not in (0, 1):
            raise ValueError("bad engine options")
        if stub_rule not in ("onion", "inner"):
            raise ValueError("stub_rule must be onion or inner")
        if not doc_tag or len(doc_tag.encode()) > 60 or len(par_tag.encode()) > 60:
            raise ValueError("document and paragraph tags must be 1..60 bytes")
        self.n, self.max_stub, self.smoothing, self.stub_rule = n, max_stub, smoothing, stub_rule
        self.threshold = struct.unpack("f", struct.pack("f", threshold))[0]   # onion's float
        if not (near < 0 or near <= threshold):
            raise ValueError("near must be < 0 (off) or at most the threshold")
        self.near = -1.0 if near < 0 else struct.unpack("f", struct.pack("f", near))[0]
        self.strip, self.mode = strip, mode
        self.hmask = _M64 if hash_bits == 64 else (1 << hash_bits) - 1
        self.doc_tag, self.doc_end = b"<" + doc_tag.encode(), b"</" + doc_tag.encode() + b">"
        self.par_tag, self.par_end = b"<" + par_tag.encode(), b"</" + par_tag.encode() + b">"
        self.pending = b""
        self.lines: list[bytes] = []       # complete lines (with their b"\n") of the current document
        self.started = False
        self.doc_next = self.par_next = False
        self.glob: dict[int, bool] = {}    # file key -> seen (flagged) / True (single pass)
        self.flagged = False
        self.collected: dict[int, int] = {}
        self.out: list[bytes] = []
        self.st = dict.fromkeys(("documents", "documents_removed", "paragraphs", "paragraphs_removed",
                                 "tokens", "tokens_removed", "lines", "ngrams"), 0)

    def _file_key(self, h: int) -> int:
        k = h & self.hmask & ~1
        return k or 2

    def feed(self, data: bytes) -> bytes:
        buf = self.pending + bytes(data)
        parts = buf.split(b"\n")
        self.pending = parts.pop()
        for p in parts:
            self._line(p + b"\n")
        return self._take()

    def finish(self) -> bytes:
        if self.pending:
            self._line(self.pending)
            self.pending = b""
        if self.lines:
            self._doc(self.lines)
            self.lines = []
        return self._take()

    def _take(self) -> bytes:
        out = b"".join(self.out)
        self.out = []
        return out

    def _line(self, raw: bytes) -> None:
        s = raw[:-1] if raw.endswith(b"\n") else raw
        if not self.started:
            self.started = True
        elif self.lines:
            if self.doc_next or _starts(s, self.doc_tag):
                self.doc_next = False
                self._doc(self.lines)
                self.lines = []
            elif s.startswith(self.doc_end):
                self.doc_next = True
        self.lines.append(raw)

    def _doc(self, lines: list[bytes]) -> None:
        n = self.n
        par_of: list[int] = []
        plen: list[int] = []
        bad: list[bool] = []
        keys: list[int | None] = []        # per token: the n-gram ending there (file key) or None
        whole_keys: list[int | None] = []  # per paragraph: its whole-paragraph key
        local: set[int] = set()
        ring: list[int] = []
        total = badtok = 0
        prev_bad = n
        par_ring: list[int] = []

        def close() -> None:
            nonlocal badtok
            wk = None
            total_all = len(par_ring)      # the paragraph's tokens, punctuation included
            if self.whole and total > 0:
                wh = 0
                for th in par_ring:
                    wh = (wh * _POLY + th) & _M64
                mixed = _mix64(wh ^ ((total_all * 0xD6E8FEB86659FD93) & _M64))
                wk = self._file_key(mixed)
                if self.mode == MODE_COLLECT:
                    self.collected[wk] = self.collected.get(wk, 0) + 1
                else:
                    dup = False
                    if self.within != "none":
                        dup = mixed in local
                        local.add(mixed)
                    if not dup:
                        seen = self.glob.get(wk)
                        dup = seen is not None and (not self.flagged or seen)
                    if dup:
                        badtok = total
            whole_keys.append(wk)
            par_ring.clear()
            plen.append(total_all)
            ratio = badtok / total if total > 0 else 0.0
            bad.append(total > 0 and (True if ratio > self.threshold
                                      else "near" if 0 <= self.near < ratio else False))

        for li, raw in enumerate(lines):
            s = raw[:-1] if raw.endswith(b"\n") else raw
            if li > 0:
                if s.startswith(self.doc_end):
                    pass
                elif self.par_next or _starts(s, self.par_tag):
                    close()
                    total = badtok = 0
                    prev_bad = n
                    self.par_next = False
                elif s.startswith(self.par_end):
                    self.par_next = True
            par_of.append(len(plen))
            if s[:1] == b"<":
                continue
            th = token_hash(s)
            par_ring.append(th)
            if self.skip_punct and not is_word_token(s):
                keys.append(None)
                continue
            ring.append(th)
            total += 1
            prev_bad = max(prev_bad - 1, 0)
            if len(ring) < n:
                keys.append(None)
                continue
            g = 0
            for th in ring[-n:]:
                g = (g * _POLY + th) & _M64
            mixed = _mix64(g)
            fk = self._file_key(mixed)
            keys.append(fk)
            self.st["ngrams"] += 1
            if self.mode == MODE_COLLECT:
                self.collected[fk] = self.collected.get(fk, 0) + 1
                continue
            dup = self.within == "ngrams" and mixed in local
            if not dup:
                seen = self.glob.get(fk)
                dup = seen is not None and (not self.flagged or seen)
                if self.within == "ngrams":
                    local.add(mixed)
            if dup:
                badtok += n - prev_bad
                prev_bad = n
        close()
        P = len(plen)
        self.st["documents"] += 1
        if self.mode == MODE_COLLECT:
            self.st["tokens"] += sum(plen)
            return
        if self.near >= 0:
            # context rule (seed 003 Sect. 3.5.2): a near-duplicate is a duplicate when the nearest
            # paragraphs with tokens that are not near-duplicates, on both sides, are duplicates
            # (a document edge counts as one)
            decided = list(bad)
            for p in range(P):
                if bad[p] != "near":
                    continue
                sides = []
                for rng in (range(p - 1, -1, -1), range(p + 1, P)):
                    q = next((q for q in rng if plen[q] > 0 and bad[q] != "near"), None)
                    sides.append(q is None or bad[q] is True)
                decided[p] = all(sides)
            bad = decided
        if self.smoothing and self.stub_rule == "onion":
            last_bad, stub = -1, 0
            for p in range(P + 1):
                if p == P or bad[p]:
                    if stub <= self.max_stub:
                        for q in range(last_bad + 1, p):
                            bad[q] = True
                    last_bad, stub = p, 0
                else:
                    stub += plen[p]
        elif self.smoothing:
            p = 0
            while p < P:
                if bad[p]:
                    p += 1
                    continue
                q = p
                while q < P and not bad[q]:
                    q += 1
                if p > 0 and q < P and all(plen[r] <= self.max_stub for r in range(p, q)):
                    for r in range(p, q):
                        bad[r] = True
                p = q
        all_bad = not any(plen[p] > 0 and not bad[p] for p in range(P))
        for p in range(P):
            if plen[p] > 0:
                self.st["paragraphs"] += 1
                self.st["tokens"] += plen[p]
                if bad[p]:
                    self.st["paragraphs_removed"] += 1
                    self.st["tokens_removed"] += plen[p]
        if all_bad and any(plen):
            self.st["documents_removed"] += 1
        t = 0
        last = len(lines) - 1
        for li, raw in enumerate(lines):
            s = raw[:-1] if raw.endswith(b"\n") else raw
            p = par_of[li]
            mark = bad[p]
            if li == 0 and s.startswith(self.doc_tag):
                mark = all_bad
            if li == last and s == self.doc_end:
                mark = all_bad
            self.st["lines"] += 1
            if self.strip:
                if not mark:
                    self.out.append(raw)
            else:
                self.out.append((b"1\t" if mark else b"0\t") + raw)
            if s[:1] == b"<":
                continue
            k = keys[t]
            t += 1
            if k is not None and not bad[p]:
                self._keep(k)
        for p in range(P):
            if whole_keys[p] is not None and not bad[p]:
                self._keep(whole_keys[p])

    def _keep(self, k: int) -> None:
        if self.flagged:
            if k in self.glob:
                self.glob[k] = True
        else:
            self.glob[k] = True

    def load_duplicates(self, fh) -> int:
        data = fh.read()
        count = len(data) // 8
        for i in range(count):
            self.glob[self._file_key(int.from_bytes(data[8 * i:8 * i + 8], "little"))] = False
        self.flagged = True
        return count

    def write_duplicates(self, fh) -> int:
        # the compiled engine's order: by partition (bits 1..8), sorted inside each
        dups = sorted((k for k, c in self.collected.items() if c >= 2), key=lambda k: ((k >> 1) & 255, k))
        fh.write(b"".join(k.to_bytes(8, "little") for k in dups))
        fh.flush()
        return len(dups)

    def stats(self) -> dict:
        st = dict(self.st)
        st["stored_hashes"] = len(self.glob)
        st["set_bytes"] = 0
        return st


# Duplicate n-gram files: the format of corpustool.dedup.onion.write_dup_ngrams (magic, header length,
# JSON parameters, padding to 8 bytes, little-endian uint64 hashes), read and written without numpy.
_MAGIC = b"CTDUPNG1"


def write_dup_header(fh, params: dict) -> None:
    import json

    header = json.dumps(params, sort_keys=True).encode("utf-8")
    fh.write(_MAGIC + len(header).to_bytes(4, "little") + header + b"\0" * ((-(len(_MAGIC) + 4 + len(header))) % 8))


def read_dup_header(fh, path: str) -> dict:
    """The parameters of a duplicate n-gram file; leaves fh at the first hash."""
    import json

    from ..errors import OptionError

    try:
        if fh.read(len(_MAGIC)) != _MAGIC:
            raise OptionError(f"{path} is not a duplicate n-gram file (written by 'corpustool dupngrams')")
        hlen = int.from_bytes(fh.read(4), "little")
        if hlen > 1 << 20:
            raise ValueError
        raw = fh.read(hlen)
        params = json.loads(raw.decode("utf-8"))
        pad = (-(len(_MAGIC) + 4 + hlen)) % 8
        if len(raw) != hlen or len(fh.read(pad)) != pad or not isinstance(params, dict):
            raise ValueError
    except OptionError:
        raise
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError):
        raise OptionError(f"{path}: damaged duplicate n-gram file header") from None
    return params
