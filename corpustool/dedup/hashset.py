"""Compact sets of 64-bit n-gram hashes with vectorised membership tests.

Seed 003 Sect. 3.5.1 stores the duplicate n-gram hashes of Algorithm 3.1 in
Judy arrays at 6-20 bytes per hash. A Python ``set`` of ints costs ~70 bytes
per element, so we keep hashes in sorted ``uint64`` numpy arrays instead
(8 bytes per hash) and answer membership for a whole array of queries at once.

:class:`SortedRun` is one sorted, duplicate-free array with a *bucket
directory*: hashes are uniform, so the top ``k`` bits of a query locate a
bucket of ~2-4 entries and a few vectorised bisection steps finish the search
(a plain ``np.searchsorted`` on a 10M-element array costs ~10x more per query
because every one of its ~24 steps is a cache miss).

:class:`HashSet` is a small log-structured merge tree of such runs: inserts go
to a small level that is merged upwards when it grows, and the main level is a
buffer with ~25 % slack that grows with ``ndarray.resize`` (``realloc``/
``mremap``, no copy) and is merged in place with a stable sort (timsort merges
two sorted runs in linear time with a temporary buffer the size of the smaller
run). Resident cost: 8 bytes per hash plus slack plus ~1 byte of directory.

:class:`FlaggedHashSet` is the two-pass form of Algorithm 3.1: the static set
G2+ of duplicate n-grams with one flag byte per hash that records whether the
n-gram is already in the output (G_out). "Moving from G2+ to G_out" is setting
the flag, so memory never grows during pass 2 (9 bytes per hash).
"""
from __future__ import annotations

import numpy as np

_UINT64 = np.uint64
_CHUNK = 32768


def _release_freed_memory_promptly() -> None:
    """Make glibc return large freed blocks to the system at once.

    glibc raises its mmap threshold after large blocks are freed, after which
    arrays of up to 32 MiB come from the heap and their memory stays resident
    when freed; the merge levels below would then cost twice their size.
    """
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 1 << 20)   # M_MMAP_THRESHOLD: fixed at 1 MiB
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


_release_freed_memory_promptly()


def trim_mask(bits: int) -> int:
    """Mask keeping the low ``bits`` bits of a hash (seed 003 used 56-60 bit hashes)."""
    if not 8 <= bits <= 64:
        raise ValueError(f"hash bits must be between 8 and 64, not {bits}")
    return (1 << bits) - 1


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values of a uint64 array."""
    if values.size == 0:
        return np.empty(0, dtype=_UINT64)
    s = np.sort(values.astype(_UINT64, copy=False))
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


class SortedRun:
    """A sorted array of distinct hashes plus a bucket directory for fast lookups.

    ``data`` may be a view into a larger buffer (the main level of
    :class:`HashSet`); the run never writes to it.
    """

    __slots__ = ("data", "bits", "shift", "directory")

    def __init__(self, data: np.ndarray, bits: int = 64) -> None:
        self.data = data
        self.bits = bits
        self._build_directory()

    def _build_directory(self) -> None:
        n = self.data.size
        # ~2-4 entries per bucket: k = floor(log2 n) - 1 bits of the hash select the bucket
        k = max(1, min(self.bits, int(n).bit_length() - 2)) if n > 4 else 1
        self.shift = _UINT64(self.bits - k)
        counts = np.bincount((self.data >> self.shift).astype(np.intp), minlength=1 << k)
        dtype = np.uint32 if n < 2**32 else np.int64
        directory = np.zeros((1 << k) + 1, dtype=dtype)
        np.cumsum(counts, out=directory[1:])
        self.directory = directory

    def __len__(self) -> int:
        return int(self.data.size)

    def nbytes(self) -> int:
        return int(self.data.nbytes + self.directory.nbytes)

    def lower_bound(self, q: np.ndarray) -> np.ndarray:
        """For each query, the index of the first element >= it (like ``searchsorted``)."""
        if self.data.size == 0:
            return np.zeros(q.size, dtype=np.intp)
        if q.size <= _CHUNK:
            return self._lower_bound(q)
        # chunks keep the temporaries small and in cache
        out = np.empty(q.size, dtype=np.intp)
        for i in range(0, q.size, _CHUNK):
            out[i:i + _CHUNK] = self._lower_bound(q[i:i + _CHUNK])
        return out

    def _lower_bound(self, q: np.ndarray) -> np.ndarray:
        data = self.data
        b = (q >> self.shift).astype(np.intp)
        pos = self.directory[b].astype(np.intp)
        end = self.directory[b + 1].astype(np.intp)
        # linear scan inside the buckets (~3 entries on average); queries past a
        # bucket's last element stop at the next bucket's start, which is right
        active = np.nonzero(pos < end)[0]
        while active.size:
            p = pos[active]
            advance = data[p] < q[active]
            active = active[advance]
            p = p[advance] + 1
            pos[active] = p
            active = active[p < end[active]]
        return pos

    def contains(self, q: np.ndarray) -> np.ndarray:
        if self.data.size == 0 or q.size == 0:
            return np.zeros(q.size, dtype=bool)
        pos = self.lower_bound(q)
        inside = pos < self.data.size
        found = np.zeros(q.size, dtype=bool)
        found[inside] = self.data[pos[inside]] == q[inside]
        return found


class HashSet:
    """A growing set of (optionally trimmed) 64-bit hashes at <= ~11 bytes per hash.

    ``contains`` and ``add`` take whole numpy arrays. Three levels: a small
    level ``l0`` (merged by re-sorting), a middle level ``l1`` (at most 1/8 of
    the main level) and the main level ``main`` kept in a buffer with slack.
    """

    L0_LIMIT = 1 << 18
    GROWTH = 1.25

    def __init__(self, bits: int = 64, l0_limit: int | None = None) -> None:
        self.bits = bits
        self.mask = _UINT64(trim_mask(bits))
        self.l0_limit = l0_limit or self.L0_LIMIT
        self._buf = np.empty(0, dtype=_UINT64)
        self._size = 0
        self._main = SortedRun(self._buf[:0], bits)
        self._l1 = SortedRun(np.empty(0, dtype=_UINT64), bits)
        self._l0 = SortedRun(np.empty(0, dtype=_UINT64), bits)
        self._journal: list[np.ndarray] | None = None     # hashes added since the last checkpoint

    def __len__(self) -> int:
        return self._size + len(self._l1) + len(self._l0)

    # -- checkpoints: what was added since the last one, and back ---------------
    def start_journal(self) -> None:
        """Record the hashes added from now on (for :meth:`take_journal`)."""
        if self._journal is None:
            self._journal = []

    def take_journal(self) -> np.ndarray:
        """The hashes added since the previous call (or :meth:`start_journal`), sorted."""
        parts, self._journal = self._journal or [], []
        if not parts:
            return np.empty(0, dtype=_UINT64)
        return unique_sorted(np.concatenate(parts))

    def restore(self, hashes: np.ndarray) -> None:
        """Become the set of ``hashes`` (any order), in a buffer of its own that can grow."""
        u = unique_sorted(self.trim(hashes))
        self._buf = np.empty(max(int(u.size * self.GROWTH), 1 << 16) if u.size else 0, dtype=_UINT64)
        self._buf[:u.size] = u
        self._size = int(u.size)
        self._main = SortedRun(self._buf[:self._size], self.bits)
        self._l1 = SortedRun(np.empty(0, dtype=_UINT64), self.bits)
        self._l0 = SortedRun(np.empty(0, dtype=_UINT64), self.bits)

    def nbytes(self) -> int:
        """Bytes held by the structure (buffer capacity included)."""
        return int(self._buf.nbytes + self._main.directory.nbytes + self._l1.nbytes() + self._l0.nbytes())

    def trim(self, hashes: np.ndarray) -> np.ndarray:
        hashes = np.asarray(hashes, dtype=_UINT64)
        return hashes & self.mask if self.bits < 64 else hashes

    def contains(self, hashes: np.ndarray) -> np.ndarray:
        q = self.trim(hashes)
        found = self._main.contains(q)
        for run in (self._l1, self._l0):
            if len(run):
                found |= run.contains(q)
        return found

    def __contains__(self, h: int) -> bool:
        return bool(self.contains(np.array([h], dtype=_UINT64))[0])

    def query(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Membership of each hash, and a handle for :meth:`add_queried`."""
        found = self.contains(hashes)
        return found, found

    def relevant(self, handle: np.ndarray) -> None:
        """Every queried hash matters to a growing set (see FlaggedHashSet.relevant)."""
        return None

    def restrict(self, handle: np.ndarray, keep: np.ndarray) -> np.ndarray:
        return handle[keep]

    def add_queried(self, hashes: np.ndarray, handle: np.ndarray, select: np.ndarray) -> int:
        """Insert ``hashes[select]`` right after :meth:`query` (no second lookup)."""
        return self._insert_new(unique_sorted(self.trim(hashes[select & ~handle])))

    def add(self, hashes: np.ndarray) -> int:
        """Insert many hashes; returns how many were new."""
        u = unique_sorted(self.trim(hashes))
        if u.size == 0:
            return 0
        return self._insert_new(u[~self.contains(u)])

    def _insert_new(self, u: np.ndarray) -> int:
        """Insert sorted distinct hashes known to be absent."""
        if u.size == 0:
            return 0
        if self._journal is not None:
            self._journal.append(u)
        self._l0 = SortedRun(_merge_sorted(self._l0.data, u), self.bits)
        if len(self._l0) >= self.l0_limit:
            self._l1 = SortedRun(_merge_sorted(self._l1.data, self._l0.data), self.bits)
            self._l0 = SortedRun(np.empty(0, dtype=_UINT64), self.bits)
            if len(self._l1) * 8 >= max(self._size, self.l0_limit * 8):
                self._merge_into_main()
        return int(u.size)

    def _merge_into_main(self) -> None:
        extra = self._l1.data
        need = self._size + extra.size
        if need > self._buf.size:
            cap = max(need, int(self._buf.size * self.GROWTH), 1 << 16)
            # drop every view of the buffer before resizing it in place
            self._main = SortedRun(np.empty(0, dtype=_UINT64), self.bits)
            if self._buf.flags.owndata and self._buf.base is None:
                self._buf.resize(cap, refcheck=False)
            else:   # a view (restored from a buffer, e.g. an old pickle): it cannot grow in place
                grown = np.empty(cap, dtype=_UINT64)
                grown[:self._size] = self._buf[:self._size]
                self._buf = grown
        self._buf[self._size:need] = extra
        # two sorted runs: timsort ("stable") merges them in linear time in place
        self._buf[:need].sort(kind="stable")
        self._size = need
        self._l1 = SortedRun(np.empty(0, dtype=_UINT64), self.bits)
        self._main = SortedRun(self._buf[:need], self.bits)

    def to_array(self) -> np.ndarray:
        """All hashes, sorted."""
        return _merge_sorted(_merge_sorted(self._buf[:self._size], self._l1.data), self._l0.data)


def _distinct_count(values: np.ndarray) -> int:
    s = np.sort(values)
    return int(1 + np.count_nonzero(s[1:] != s[:-1])) if s.size else 0


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.size == 0:
        return b.copy()
    if b.size == 0:
        return a.copy()
    out = np.concatenate([a, b])
    out.sort(kind="stable")
    return out


class FlaggedHashSet:
    """G2+ and G_out of Algorithm 3.1 over one static sorted array of duplicate n-grams.

    ``contains`` answers membership in G_out; ``add`` moves the given hashes
    from G2+ to G_out (hashes not in G2+ are ignored: they occur once in the
    whole input, so no later n-gram can match them).
    """

    def __init__(self, duplicates: np.ndarray, bits: int = 64) -> None:
        self.bits = bits
        self.mask = _UINT64(trim_mask(bits))
        dup = np.asarray(duplicates, dtype=_UINT64)
        if bits < 64:
            dup = dup & self.mask
        if dup.size > 1 and not bool(np.all(dup[1:] > dup[:-1])):
            dup = unique_sorted(dup)
        self.g2 = SortedRun(dup, bits)
        self.in_out = np.zeros(dup.size, dtype=bool)
        self.n_out = 0
        self._journal: list[np.ndarray] | None = None     # positions flagged since the last checkpoint

    def start_journal(self) -> None:
        if self._journal is None:
            self._journal = []

    def take_journal(self) -> np.ndarray:
        """The positions in G2+ moved to G_out since the previous call."""
        parts, self._journal = self._journal or [], []
        return np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.empty(0, dtype=np.int64)

    def restore(self, positions: np.ndarray) -> None:
        """Flag exactly ``positions`` (from :meth:`take_journal` calls) as in G_out."""
        self.in_out[:] = False
        self.in_out[np.asarray(positions, dtype=np.int64)] = True
        self.n_out = int(np.count_nonzero(self.in_out))

    def __len__(self) -> int:
        return self.n_out

    @property
    def n_duplicates(self) -> int:
        return len(self.g2)

    def nbytes(self) -> int:
        return int(self.g2.nbytes() + self.in_out.nbytes)

    def _find(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.asarray(hashes, dtype=_UINT64)
        if self.bits < 64:
            q = q & self.mask
        pos = self.g2.lower_bound(q)
        n = len(self.g2)
        found = np.zeros(q.size, dtype=bool)
        inside = pos < n
        found[inside] = self.g2.data[pos[inside]] == q[inside]
        return pos, found

    def in_g2(self, hashes: np.ndarray) -> np.ndarray:
        return self._find(hashes)[1]

    def contains(self, hashes: np.ndarray) -> np.ndarray:
        pos, found = self._find(hashes)
        out = np.zeros(found.size, dtype=bool)
        out[found] = self.in_out[pos[found]]
        return out

    def query(self, hashes: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Membership in G_out, and a handle for :meth:`add_queried`."""
        pos, found = self._find(hashes)
        out = np.zeros(found.size, dtype=bool)
        out[found] = self.in_out[pos[found]]
        return out, (pos, found)

    def relevant(self, handle: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The queried hashes in G2+: the others can never be in G_out."""
        return handle[1]

    def restrict(self, handle: tuple[np.ndarray, np.ndarray], keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return handle[0][keep], handle[1][keep]

    def add_queried(self, hashes: np.ndarray, handle: tuple[np.ndarray, np.ndarray], select: np.ndarray) -> int:
        pos, found = handle
        return self._flag(pos[found & select])

    def add(self, hashes: np.ndarray) -> int:
        pos, found = self._find(hashes)
        return self._flag(pos[found])

    def _flag(self, idx: np.ndarray) -> int:
        """Set the flags; returns how many hashes were newly moved to G_out."""
        fresh = idx[~self.in_out[idx]]
        if fresh.size == 0:
            return 0
        new = _distinct_count(fresh)     # the same hash may come twice in one batch
        self.in_out[fresh] = True
        if self._journal is not None:
            self._journal.append(fresh.astype(np.int64))
        self.n_out += new
        return new
