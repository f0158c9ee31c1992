# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""Scans of text that Python's ``re`` makes slow: C loops over a str's characters.

* :class:`LiteralGate`: which of a set of literal strings occur in a line, the
  keyword gate of :class:`corpustool.extractors.template_lines.KeywordGate`.
  It asks, for every short line of a page, which of its patterns' required
  strings occur in the line (lower-cased). pyahocorasick answers through a
  Python iterator, ~2.8 us a line, a tenth of what the whole verdict of a line
  costs. Here one C loop looks at the line's characters: a pair (for strings of
  2-3 characters) or a quad (for longer ones) that starts no string, most of
  them, costs one bit test; one that may start one compares the few strings
  filed under it. Strings of one character are tested against each character.
  The answer is the automaton's (tests/native/test_backend_parity.py compares them on
  every line of the development pages).
* :func:`first_control`: where a page has a C0 control character HTML
  forbids (:func:`corpustool.encoding.strip_controls`): ``re``'s search of a
  character class takes ~0.7 ms over a 146 KB page, this loop a tenth of that.
* :func:`has_control_bytes`: the same question of a page's bytes in an ASCII-compatible
  encoding (``encoding.decode``): ``bytes.translate`` takes ~0.1 ms over a page, SSE2
  compares 16 bytes a step.
* :func:`utf8_bytes`: the UTF-8 bytes libxml2 parses (``extractors.base.html_bytes``).
  Most pages are strings of 2-byte characters (one curly quote suffices), whose
  encoder in CPython takes ~0.11 ms over a 146 KB page, a twentieth of
  justext-plus's whole extraction; runs of ASCII go four characters at a time here.
* :func:`schema_type_names`: the schema.org types a page declares, read in its bytes
  (``justext_plus_structure.declared_types``): ``str.find`` of the two marks and a regex match
  at each took ~0.17 ms a page (most pages are 2-byte strings, which CPython searches by its
  slowest path), memchr/memmem and a C loop over the bytes 0.05 ms (922 dev pages).
* :func:`chunk_words`, :func:`stop_occurrences`, :func:`stop_word_scores`: the language
  guess of the clean stage (``language.identify.PageWords``) over a page's distinct chunks:
  the word regex's words of the chunks that are not letters only (the regex, ``str.strip``
  and the filters took ~0.15 ms a page, this loop a quarter of that), jusText's stop-word
  count without lower-casing the chunks that are lower case already, and the per-language
  sums of the stop words' weights in the same order of additions as the numpy path (half
  its time). tests/native/test_backend_parity.py compares each with the Python code on random text
  and on every character of Unicode.
* :func:`word_measures`: the counts behind the quality marks' word measures
  (``corpustool.quality.measure``): the words of ``str.split`` numbered by an open-addressing
  table over their characters, the letter runs of each distinct word, the most frequent 2-4-grams
  and the words under repeated 5-grams by hashing (k-grams looked at only where the
  (k-1)-gram repeats). The Python twin (numpy: ``str.split``, a dict, ``numpy.unique``) took
  1.15 s over the 2,399 documents of the quality sample, this pass 0.23 s; tests/native/test_quality_native.py
  compares both on random texts, every character and the development pages.
* :func:`find_ascii`: ``str.find`` of an ASCII needle, the page declarations' searches of a whole
  page (``text_types.page_metadata``: ``ld+json``, ``itemtype``, ``<time``): CPython's search of
  a page of 2-byte characters takes 0.2-0.45 ns a character for these needles, SSE2 compares of
  the needle's first, middle and last characters 4-6x less (page_metadata over the sample's
  pages 0.94 -> 0.32 s); tests/native/test_find_ascii.py compares it with ``str.find``.
"""
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_KIND, PyUnicode_READ

cdef extern from "Python.h":
    ctypedef unsigned char Py_UCS1
    ctypedef unsigned short Py_UCS2
    bint PyUnicode_IS_ASCII(object o)
    ctypedef struct PyObject
    PyObject* PyBytes_FromStringAndSize_raw "PyBytes_FromStringAndSize"(const char* s, Py_ssize_t n)
    char* PyBytes_AS_STRING_raw "PyBytes_AS_STRING"(PyObject* b)
    int _PyBytes_Resize(PyObject** b, Py_ssize_t n)
    void Py_DECREF_raw "Py_DECREF"(PyObject* o)
    enum:
        PyUnicode_1BYTE_KIND
        PyUnicode_2BYTE_KIND
        PyUnicode_4BYTE_KIND
from libc.string cimport memset
from cpython.pyport cimport PY_SSIZE_T_MAX

cdef enum:
    SHORT_BITS = 12              # strings of 2 or 3 characters, by their first pair
    SHORT_SLOTS = 1 << SHORT_BITS
    LONG_BITS = 16               # strings of 4 or more, by their first four characters
    LONG_SLOTS = 1 << LONG_BITS
    PREFIX = 4


cdef inline unsigned int pair_slot(Py_UCS4 a, Py_UCS4 b) noexcept nogil:
    return ((<unsigned int>a * 2654435761u) ^ (<unsigned int>b * 2246822519u)) >> (32 - SHORT_BITS)


cdef inline unsigned int quad_slot(Py_UCS4 a, Py_UCS4 b, Py_UCS4 c, Py_UCS4 d) noexcept nogil:
    return ((<unsigned int>a * 2654435761u) ^ (<unsigned int>b * 2246822519u) ^ (<unsigned int>c * 3266489917u)
            ^ (<unsigned int>d * 668265263u)) >> (32 - LONG_BITS)


cdef struct Index:
    # strings filed by slot (CSR): slot s holds items[first[s]:first[s + 1]]; used: a bit per slot
    Py_ssize_t* first
    Py_ssize_t* items
    unsigned char* used
    Py_ssize_t slots


cdef int index_init(Index* x, Py_ssize_t slots, Py_ssize_t n) except -1:
    x.slots = slots
    x.first = <Py_ssize_t*>PyMem_Malloc((slots + 1) * sizeof(Py_ssize_t))
    x.items = <Py_ssize_t*>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
    x.used = <unsigned char*>PyMem_Malloc(slots // 8)
    if x.first is NULL or x.items is NULL or x.used is NULL:
        raise MemoryError()
    memset(x.first, 0, (slots + 1) * sizeof(Py_ssize_t))
    memset(x.used, 0, slots // 8)
    return 0


cdef void index_free(Index* x) noexcept:
    PyMem_Free(x.first)
    PyMem_Free(x.items)
    PyMem_Free(x.used)


cdef void index_fill(Index* x, unsigned int* slot_of, Py_ssize_t n, unsigned char* member) noexcept:
    """File strings i with member[i] under slot_of[i] (counts, prefix sums, then the lists)."""
    cdef Py_ssize_t i, s, k
    for i in range(n):
        if member[i]:
            x.first[slot_of[i] + 1] += 1
            x.used[slot_of[i] >> 3] |= 1 << (slot_of[i] & 7)
    for s in range(x.slots):
        x.first[s + 1] += x.first[s]
    for i in range(n):
        if member[i]:
            k = x.first[slot_of[i]]
            x.items[k] = i
            x.first[slot_of[i]] = k + 1
    # (each slot's start moved to its end: shift back)
    for s in range(x.slots, 0, -1):
        x.first[s] = x.first[s - 1]
    x.first[0] = 0


cdef inline bint index_has(Index* x, unsigned int slot) noexcept nogil:
    return (x.used[slot >> 3] >> (slot & 7)) & 1


cdef class LiteralGate:
    """``mask(line)``: ``always`` | the bits of the strings of ``bits`` (string -> bit set) that
    occur in ``line``."""
    cdef Py_UCS4* chars          # every string's characters, one after another
    cdef Py_ssize_t* start       # string i: chars[start[i]:start[i] + length[i]]
    cdef Py_ssize_t* length
    cdef long* bits_of
    cdef Index short, long_
    cdef Py_UCS4* singles        # one-character strings and their bits
    cdef long* single_bits
    cdef Py_ssize_t n_singles
    cdef long always

    def __cinit__(self, dict bits, long always=0):
        strings = [string for string in bits if string]
        cdef Py_ssize_t n = len(strings), total = 0, i, pos = 0, m = 0
        for string in strings:
            total += len(string)
        self.always = always
        self.chars = <Py_UCS4*>PyMem_Malloc((total + 1) * sizeof(Py_UCS4))
        self.start = <Py_ssize_t*>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.length = <Py_ssize_t*>PyMem_Malloc((n + 1) * sizeof(Py_ssize_t))
        self.bits_of = <long*>PyMem_Malloc((n + 1) * sizeof(long))
        self.singles = <Py_UCS4*>PyMem_Malloc((n + 1) * sizeof(Py_UCS4))
        self.single_bits = <long*>PyMem_Malloc((n + 1) * sizeof(long))
        cdef unsigned int* slot_of = <unsigned int*>PyMem_Malloc((n + 1) * sizeof(unsigned int))
        cdef unsigned char* is_short = <unsigned char*>PyMem_Malloc(n + 1)
        cdef unsigned char* is_long = <unsigned char*>PyMem_Malloc(n + 1)
        cdef Py_UCS4* c
        try:
            if (self.chars is NULL or self.start is NULL or self.length is NULL or self.bits_of is NULL
                    or self.singles is NULL or self.single_bits is NULL or slot_of is NULL or is_short is NULL
                    or is_long is NULL):
                raise MemoryError()
            index_init(&self.short, SHORT_SLOTS, n)
            index_init(&self.long_, LONG_SLOTS, n)
            for i, string in enumerate(strings):
                self.start[i] = pos
                self.length[i] = len(string)
                self.bits_of[i] = bits[string]
                for ch in string:
                    self.chars[pos] = ord(ch)
                    pos += 1
                c = self.chars + self.start[i]
                is_short[i] = 2 <= self.length[i] < PREFIX
                is_long[i] = self.length[i] >= PREFIX
                if self.length[i] == 1:
                    self.singles[m] = c[0]
                    self.single_bits[m] = bits[string]
                    m += 1
                elif is_short[i]:
                    slot_of[i] = pair_slot(c[0], c[1])
            self.n_singles = m
            index_fill(&self.short, slot_of, n, is_short)
            for i in range(n):
                if is_long[i]:
                    c = self.chars + self.start[i]
                    slot_of[i] = quad_slot(c[0], c[1], c[2], c[3])
            index_fill(&self.long_, slot_of, n, is_long)
        finally:
            PyMem_Free(slot_of)
            PyMem_Free(is_short)
            PyMem_Free(is_long)

    def __dealloc__(self):
        PyMem_Free(self.chars)
        PyMem_Free(self.start)
        PyMem_Free(self.length)
        PyMem_Free(self.bits_of)
        PyMem_Free(self.singles)
        PyMem_Free(self.single_bits)
        index_free(&self.short)
        index_free(&self.long_)

    def mask(self, str line):
        cdef int kind = PyUnicode_KIND(line)
        cdef void* data = PyUnicode_DATA(line)
        cdef Py_ssize_t n = len(line), i, k
        cdef long mask = self.always
        cdef Py_UCS4 w0 = 0, w1 = 0, w2 = 0, w3 = 0
        # the window w0..w3 is line[i:i + 4] (past the end: never read as a match)
        if n > 0:
            w1 = PyUnicode_READ(kind, data, 0)
        if n > 1:
            w2 = PyUnicode_READ(kind, data, 1)
        if n > 2:
            w3 = PyUnicode_READ(kind, data, 2)
        for i in range(n):
            w0, w1, w2 = w1, w2, w3
            w3 = PyUnicode_READ(kind, data, i + 3) if i + 3 < n else 0
            for k in range(self.n_singles):
                if self.singles[k] == w0:
                    mask |= self.single_bits[k]
            if i + 1 < n and index_has(&self.short, pair_slot(w0, w1)):
                mask |= self.matches(&self.short, pair_slot(w0, w1), kind, data, i, n)
            if i + 3 < n and index_has(&self.long_, quad_slot(w0, w1, w2, w3)):
                mask |= self.matches(&self.long_, quad_slot(w0, w1, w2, w3), kind, data, i, n)
        return mask

    cdef long matches(self, Index* x, unsigned int slot, int kind, void* data, Py_ssize_t i,
                      Py_ssize_t n) noexcept:
        """The bits of the strings filed under slot that occur at line[i]."""
        cdef long mask = 0
        cdef Py_ssize_t k, s, j, length
        cdef const Py_UCS4* chars
        for k in range(x.first[slot], x.first[slot + 1]):
            s = x.items[k]
            length = self.length[s]
            if length > n - i:
                continue
            chars = self.chars + self.start[s]
            j = 0
            while j < length and chars[j] == PyUnicode_READ(kind, data, i + j):
                j += 1
            if j == length:
                mask |= self.bits_of[s]
        return mask


# the C0 controls HTML forbids: all but tab, line feed, carriage return (encoding._CONTROL_CHARS)
cdef unsigned int FORBIDDEN_C0 = 0xFFFFFFFF & ~((1u << 9) | (1u << 10) | (1u << 13))


cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* any byte of s[0:n] in 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F: 16 bytes a step with SSE2 */
    static int ct_has_control_bytes(const unsigned char* s, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if defined(__SSE2__)
        const __m128i c31 = _mm_set1_epi8(31), tab = _mm_set1_epi8(9), lf = _mm_set1_epi8(10),
                      cr = _mm_set1_epi8(13);
        for (; i + 16 <= n; i += 16) {
            __m128i x = _mm_loadu_si128((const __m128i*) (s + i));
            __m128i low = _mm_cmpeq_epi8(_mm_max_epu8(x, c31), c31);      /* x <= 31 */
            __m128i allowed = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(x, lf)),
                                           _mm_cmpeq_epi8(x, cr));
            if (_mm_movemask_epi8(_mm_andnot_si128(allowed, low)))
                return 1;
        }
    #endif
        for (; i < n; i++) {
            unsigned c = s[i];
            if ((c < 9u) | ((c - 11u) < 2u) | ((c - 14u) < 18u))
                return 1;
        }
        return 0;
    }
    """
    bint ct_has_control_bytes(const unsigned char* s, Py_ssize_t n) noexcept nogil


cdef extern from "string.h" nogil:
    void* memmem(const void* haystack, size_t haystack_len, const void* needle, size_t needle_len)
    int memcmp(const void* a, const void* b, size_t n)
    void* memchr(const void* s, int c, size_t n)



cdef inline bint ascii_space(unsigned char c) noexcept nogil:
    # bytes patterns' \s: space, \t, \n, \v, \f, \r
    return c == 32 or (c >= 9 and c <= 13)


cdef inline bint ascii_alpha(unsigned char c) noexcept nogil:
    return (c | 32) >= 97 and (c | 32) <= 122


cdef inline Py_ssize_t name_at(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The end of the run of ASCII letters at s[i:] (i when there is none)."""
    while i < n and ascii_alpha(s[i]):
        i += 1
    return i


cdef inline Py_ssize_t after_type_key(const unsigned char* s, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """Where the name starts after ``"@type"`` ends at s[i]: ``\s*:\s*\[?\s*"``; -1 if no match."""
    while i < n and ascii_space(s[i]):
        i += 1
    if i >= n or s[i] != 58:             # ':'
        return -1
    i += 1
    while i < n and ascii_space(s[i]):
        i += 1
    if i < n and s[i] == 91:             # '['
        i += 1
    while i < n and ascii_space(s[i]):
        i += 1
    if i >= n or s[i] != 34:             # '"'
        return -1
    return i + 1


def schema_type_names(const unsigned char[:] data, tuple names, Py_ssize_t max_marks):
    """Which of ``names`` (bytes) the page declares as a schema.org type: the bit mask (bit k:
    ``names[k]``) of the names read by ``rb'(?:"@type"\s*:\s*\[?\s*"|schema\.org/)([A-Za-z]+)'``
    at each occurrence of ``"@type"`` and of ``schema.org/``, the first ``max_marks`` of each.
    At most 64 names."""
    cdef Py_ssize_t n = data.shape[0], at, start, end, seen, k, m = len(names)
    cdef const unsigned char* s
    cdef const unsigned char* hit
    cdef int mark
    cdef unsigned long long found = 0
    cdef const char* marks[2]
    cdef Py_ssize_t mark_len[2]
    cdef bytes name
    if m > 64:
        raise ValueError("at most 64 names")
    for k in range(m):
        if type(names[k]) is not bytes:
            raise TypeError("names must be bytes")
    if n == 0:
        return 0
    s = &data[0]
    marks[0] = b'"@type"'
    mark_len[0] = 7
    marks[1] = b"schema.org/"
    mark_len[1] = 11
    for mark in range(2):
        at = 0
        seen = 0
        while seen < max_marks and at < n:
            if mark == 0:
                # ('"@type"' by its '@', found by memchr: rare in markup, and memchr is several
                # times faster than memmem)
                hit = <const unsigned char*>memchr(s + at + 1, 64, n - at - 1) if at + 1 < n else NULL
                if hit == NULL:
                    break
                if hit - s + 6 > n or memcmp(hit - 1, marks[0], 7) != 0:
                    at = hit - s          # (the next '@' is looked for after this one)
                    continue
                hit -= 1
            else:
                hit = <const unsigned char*>memmem(s + at, n - at, marks[mark], mark_len[mark])
                if hit == NULL:
                    break
            at = hit - s
            seen += 1
            start = at + mark_len[mark]
            if mark == 0:
                start = after_type_key(s, start, n)
            if start >= 0:
                end = name_at(s, start, n)
                if end > start:
                    for k in range(m):
                        name = <bytes>names[k]       # (checked above)
                        if len(name) == end - start and memcmp(PyBytes_AS_STRING(name), s + start, end - start) == 0:
                            found |= 1ULL << k
            at += mark_len[mark]
    return found


def has_control_bytes(const unsigned char[:] raw):
    """Does ``raw`` hold a byte of U+0000-U+0008, U+000B, U+000C or U+000E-U+001F (what
    :func:`first_control` finds in text)?"""
    if raw.shape[0] == 0:
        return False
    return ct_has_control_bytes(&raw[0], raw.shape[0])


def first_control(str text):
    """The index of the first character of ``text`` in U+0000-U+0008, U+000B, U+000C or
    U+000E-U+001F, or -1."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), i
    cdef const Py_UCS1* s1
    cdef const Py_UCS2* s2
    cdef const Py_UCS4* s4
    cdef unsigned int c
    if kind == PyUnicode_1BYTE_KIND:
        s1 = <const Py_UCS1*>data
        for i in range(n):
            c = s1[i]
            if c < 32 and (FORBIDDEN_C0 >> c) & 1:
                return i
    elif kind == PyUnicode_2BYTE_KIND:
        s2 = <const Py_UCS2*>data
        for i in range(n):
            c = s2[i]
            if c < 32 and (FORBIDDEN_C0 >> c) & 1:
                return i
    else:
        s4 = <const Py_UCS4*>data
        for i in range(n):
            c = s4[i]
            if c < 32 and (FORBIDDEN_C0 >> c) & 1:
                return i
    return -1


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* code point c's UTF-8 bytes at out (a surrogate as any other code point: "surrogatepass"); their number */
    static inline Py_ssize_t ct_put_utf8(char* out, uint32_t c) {
        if (c < 0x80) { out[0] = (char) c; return 1; }
        if (c < 0x800) { out[0] = (char) (0xC0 | (c >> 6)); out[1] = (char) (0x80 | (c & 0x3F)); return 2; }
        if (c < 0x10000) {
            out[0] = (char) (0xE0 | (c >> 12)); out[1] = (char) (0x80 | ((c >> 6) & 0x3F));
            out[2] = (char) (0x80 | (c & 0x3F)); return 3;
        }
        out[0] = (char) (0xF0 | (c >> 18)); out[1] = (char) (0x80 | ((c >> 12) & 0x3F));
        out[2] = (char) (0x80 | ((c >> 6) & 0x3F)); out[3] = (char) (0x80 | (c & 0x3F)); return 4;
    }
    /* the 2-byte units s[0:n] as UTF-8 at out, U+0000 left out; the bytes written. Runs of ASCII
       (most of a page's markup) go eight units at a time with SSE2, four with a 64-bit word */
    static Py_ssize_t ct_ucs2_utf8(const uint16_t* s, Py_ssize_t n, char* out) {
        Py_ssize_t i = 0, o = 0;
        uint64_t w;
        while (i < n) {
    #if defined(__SSE2__)
            while (i + 8 <= n) {
                __m128i v = _mm_loadu_si128((const __m128i*) (s + i));
                __m128i zero = _mm_setzero_si128();
                __m128i ascii = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short) 0xFF80)), zero);
                if (_mm_movemask_epi8(_mm_andnot_si128(_mm_cmpeq_epi16(v, zero), ascii)) != 0xFFFF)
                    break;
                _mm_storel_epi64((__m128i*) (out + o), _mm_packus_epi16(v, v));
                o += 8; i += 8;
            }
    #endif
            while (i + 4 <= n) {
                memcpy(&w, s + i, 8);
                if ((w & 0xFF80FF80FF80FF80ULL) || !(w & 0xFFFFULL) || !(w & 0xFFFF0000ULL)
                        || !(w & 0xFFFF00000000ULL) || !(w >> 48))
                    break;
                out[o] = (char) s[i]; out[o + 1] = (char) s[i + 1];
                out[o + 2] = (char) s[i + 2]; out[o + 3] = (char) s[i + 3];
                o += 4; i += 4;
            }
            if (i < n) {
                uint32_t c = s[i++];
                if (c)
                    o += ct_put_utf8(out + o, c);
            }
        }
        return o;
    }
    /* the same for 1-byte units (Latin-1): runs of ASCII without a zero byte go eight at a time */
    static Py_ssize_t ct_ucs1_utf8(const uint8_t* s, Py_ssize_t n, char* out) {
        Py_ssize_t i = 0, o = 0;
        uint64_t w;
        while (i < n) {
            while (i + 8 <= n) {
                memcpy(&w, s + i, 8);
                /* a byte >= 0x80, or a zero byte (the classic "has zero byte" test) */
                if ((w & 0x8080808080808080ULL)
                        || ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL))
                    break;
                memcpy(out + o, &w, 8);
                o += 8; i += 8;
            }
            if (i < n) {
                uint32_t c = s[i++];
                if (c)
                    o += ct_put_utf8(out + o, c);
            }
        }
        return o;
    }
    /* the same for 4-byte units: runs of ASCII without U+0000 go four at a time */
    static Py_ssize_t ct_ucs4_utf8(const uint32_t* s, Py_ssize_t n, char* out) {
        Py_ssize_t i = 0, o = 0;
        while (i < n) {
            while (i + 4 <= n) {
                uint32_t a = s[i], b = s[i + 1], c = s[i + 2], d = s[i + 3];
                if (((a | b | c | d) & 0xFFFFFF80u) || !a || !b || !c || !d)
                    break;
                out[o] = (char) a; out[o + 1] = (char) b; out[o + 2] = (char) c; out[o + 3] = (char) d;
                o += 4; i += 4;
            }
            if (i < n) {
                uint32_t c = s[i++];
                if (c)
                    o += ct_put_utf8(out + o, c);
            }
        }
        return o;
    }
    """
    Py_ssize_t put_utf8 "ct_put_utf8"(char* out, unsigned int c) noexcept nogil
    Py_ssize_t ucs1_utf8 "ct_ucs1_utf8"(const Py_UCS1* s, Py_ssize_t n, char* out) noexcept nogil
    Py_ssize_t ucs2_utf8 "ct_ucs2_utf8"(const Py_UCS2* s, Py_ssize_t n, char* out) noexcept nogil
    Py_ssize_t ucs4_utf8 "ct_ucs4_utf8"(const Py_UCS4* s, Py_ssize_t n, char* out) noexcept nogil


def utf8_bytes(str text):
    """``text.encode("utf-8", "surrogatepass")`` without U+0000 (the only character with a zero
    byte in UTF-8): the bytes ``html_bytes`` gives libxml2, which stops reading at a zero byte."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), o = 0
    cdef char* out
    if PyUnicode_IS_ASCII(text):
        encoded = text.encode("ascii")
        return encoded.replace(b"\x00", b"") if b"\x00" in encoded else encoded
    if n > PY_SSIZE_T_MAX // 4:
        raise MemoryError()
    # room for the longest encoding, then the bytes shrunk to what was written (as CPython's encoder)
    cdef PyObject* result = PyBytes_FromStringAndSize_raw(NULL, n * (2 if kind == PyUnicode_1BYTE_KIND else
                                                                     3 if kind == PyUnicode_2BYTE_KIND else 4))
    if result is NULL:
        raise MemoryError()
    out = PyBytes_AS_STRING_raw(result)
    if kind == PyUnicode_1BYTE_KIND:
        o = ucs1_utf8(<const Py_UCS1*>data, n, out)
    elif kind == PyUnicode_2BYTE_KIND:
        o = ucs2_utf8(<const Py_UCS2*>data, n, out)
    else:
        o = ucs4_utf8(<const Py_UCS4*>data, n, out)
    if _PyBytes_Resize(&result, o) < 0:
        raise MemoryError()
    encoded = <object>result     # (a new reference: the one made above is given up)
    Py_DECREF_raw(result)
    return encoded


# -- the words of a page's chunks (corpustool.language.identify.PageWords) -------------------------

cdef extern from "Python.h":
    bint Py_UNICODE_ISALPHA(Py_UCS4 ch)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch)
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch)
    int PyDict_Next(object d, Py_ssize_t* pos, PyObject** key, PyObject** value)
    Py_ssize_t PyLong_AsSsize_t(PyObject* o) except? -1
    object PyUnicode_Substring(object s, Py_ssize_t start, Py_ssize_t end)


cdef inline bint ascii_letter(Py_UCS4 c) noexcept:
    return ((<unsigned int>c | 0x20u) - 0x61u) < 26u     # A-Z, a-z (c < 128)


cdef inline bint is_alpha(Py_UCS4 c) noexcept:
    # str.isalpha's test of one character; ASCII (most of a page) without the Unicode tables
    return ascii_letter(c) if c < 128 else Py_UNICODE_ISALPHA(c)


cdef inline bint word_letter(Py_UCS4 c) noexcept:
    # [^\W\d_] as re matches it: \w is Py_UNICODE_ISALNUM or "_", \d Py_UNICODE_ISDECIMAL
    if c < 128:
        return ascii_letter(c)
    return Py_UNICODE_ISALNUM(c) and not Py_UNICODE_ISDECIMAL(c)


cdef inline bint word_mark(Py_UCS4 c, const unsigned char* marks) noexcept:
    return c < 0x10000 and marks[c]


def chunk_words(counts, const unsigned char[:] marks not None):
    """The words of the identification's word regex in the distinct chunks ``counts`` (chunk ->
    occurrences) of a text split at white space: ``(extra, letters, words)``.

    ``extra`` is the regex's number of words in the text less the number of chunks, ``letters``
    the characters in those words, ``words`` the words of the chunks that are not letters only,
    each such chunk's once (a chunk of letters only, ``str.isalpha``, is one word, whole).
    ``marks`` flags the combining marks of the Basic Multilingual Plane (the regex's class).
    The regex, ``L (L | M)* (['’] L (L | M)*)*`` with L a letter of ``[^\\W\\d_]`` and M a mark,
    matches greedily and never backtracks out of a run, so a match is the longest run of letters
    and marks from a letter, continued past an apostrophe only when a letter follows it: one
    loop, the same words (tests/native/test_backend_parity.py compares them on random texts).
    """
    if not isinstance(counts, dict):
        raise TypeError("counts must be a dict (a Counter)")
    if marks.shape[0] < 0x10000:
        raise ValueError("marks must flag every character of the Basic Multilingual Plane")
    cdef const unsigned char* mark = &marks[0]
    cdef Py_ssize_t pos = 0, n, i, start, found, occurs, chars
    cdef Py_ssize_t extra = 0, letters = 0
    cdef PyObject* key
    cdef PyObject* value
    cdef int kind
    cdef void* data
    cdef Py_UCS4 c
    cdef bint alpha
    words = []
    while PyDict_Next(counts, &pos, &key, &value):
        chunk = <object>key
        if type(chunk) is not str:
            raise TypeError("chunks must be str")
        occurs = PyLong_AsSsize_t(value)
        kind = PyUnicode_KIND(chunk)
        data = PyUnicode_DATA(chunk)
        n = len(chunk)
        alpha = n > 0
        for i in range(n):
            if not is_alpha(PyUnicode_READ(kind, data, i)):
                alpha = False
                break
        if alpha:
            letters += occurs * n
            continue
        found = 0
        chars = 0
        i = 0
        while i < n:
            if not word_letter(PyUnicode_READ(kind, data, i)):
                i += 1
                continue
            start = i
            i += 1
            while True:
                while i < n:
                    c = PyUnicode_READ(kind, data, i)
                    if not (word_letter(c) or word_mark(c, mark)):
                        break
                    i += 1
                if i + 1 < n:
                    c = PyUnicode_READ(kind, data, i)
                    if (c == 0x27 or c == 0x2019) and word_letter(PyUnicode_READ(kind, data, i + 1)):
                        i += 2
                        continue
                break
            words.append(PyUnicode_Substring(chunk, start, i))
            found += 1
            chars += i - start
        extra += occurs * (found - 1)
        letters += occurs * chars
    return extra, letters, words


def stop_occurrences(counts, stop):
    """``sum(n for chunk, n in counts.items() if chunk.lower() in stop)``: the occurrences of the
    chunks whose lower-case form is in the set ``stop``. An ASCII chunk without an upper-case
    letter (most of a page's) is its own lower-case form: looked up as it is, no new string."""
    if not isinstance(counts, dict):
        raise TypeError("counts must be a dict (a Counter)")
    if not isinstance(stop, (set, frozenset)):
        raise TypeError("stop must be a set")
    cdef Py_ssize_t pos = 0, i, n, total = 0
    cdef PyObject* key
    cdef PyObject* value
    cdef const Py_UCS1* s
    cdef bint lower
    while PyDict_Next(counts, &pos, &key, &value):
        chunk = <object>key
        if type(chunk) is not str:
            raise TypeError("chunks must be str")
        lower = PyUnicode_IS_ASCII(chunk)
        if lower:
            s = <const Py_UCS1*>PyUnicode_DATA(chunk)
            n = len(chunk)
            for i in range(n):
                if s[i] - 0x41u < 26u:      # A-Z
                    lower = False
                    break
        if (chunk if lower else chunk.lower()) in stop:
            total += PyLong_AsSsize_t(value)
    return total


def stop_word_scores(dict index, words, Py_ssize_t n_langs):
    """Per language listing any of ``words`` (keys of ``index``: word -> ((language, weight), ...)):
    ``({language: sum of weights}, {language: number of words})``, the languages with a word only.

    The weights are added in sorted word order, each language's in a C double from 0.0: the
    same additions in the same order as ``identify._scores`` (``np.bincount`` adds in order),
    so the same sums to the last bit."""
    if n_langs < 0:
        raise ValueError("n_langs must not be negative")
    cdef double* sums = <double*>PyMem_Malloc((n_langs + 1) * sizeof(double))
    cdef Py_ssize_t* counts = <Py_ssize_t*>PyMem_Malloc((n_langs + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t i, lang
    cdef tuple entries, entry
    if sums is NULL or counts is NULL:
        PyMem_Free(sums)
        PyMem_Free(counts)
        raise MemoryError()
    try:
        for i in range(n_langs):
            sums[i] = 0.0
            counts[i] = 0
        ordered = sorted(words)
        for word in ordered:
            entries = index[word]
            for entry in entries:
                lang = entry[0]
                if lang < 0 or lang >= n_langs:
                    raise IndexError("language index out of range")
                sums[lang] += <double>entry[1]
                counts[lang] += 1
        found_sums = {}
        found_counts = {}
        for i in range(n_langs):
            if counts[i]:
                found_sums[i] = sums[i]
                found_counts[i] = counts[i]
        return found_sums, found_counts
    finally:
        PyMem_Free(sums)
        PyMem_Free(counts)


# -- the word measures of the quality marks (corpustool.quality.word_counts) ------------------------

cdef extern from "Python.h":
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    int PySet_Contains(object anyset, object key) except -1

from libc.stdint cimport uint64_t
from libc.string cimport memcmp


cdef inline Py_ssize_t table_size(Py_ssize_t n) noexcept:
    # a power of two at least twice n (open addressing, half full at most)
    cdef Py_ssize_t size = 16
    while size < 2 * n:
        size *= 2
    return size


cdef inline uint64_t mix(uint64_t h) noexcept:
    # the finaliser of MurmurHash3: every input bit moves every output bit
    h ^= h >> 33
    h *= <uint64_t>0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= <uint64_t>0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef class _Buffers:
    """The C arrays of one call of :func:`word_measures`, freed together (also on an exception)."""
    cdef Py_ssize_t* at          # the positions of the k-grams looked at
    cdef Py_ssize_t* ids         # the distinct word at each position
    cdef Py_ssize_t* first       # per distinct word: its first position
    cdef Py_ssize_t* length      # per distinct word: its characters
    cdef Py_ssize_t* count       # per distinct word: its occurrences
    cdef uint64_t* hashes        # per distinct word
    cdef Py_ssize_t* table       # open addressing: 1 + the distinct word (or k-gram), 0 free
    cdef uint64_t* keys          # the k-grams' keys in the table
    cdef Py_ssize_t* gram        # per k-gram position: the (k-1)-gram, then the k-gram
    cdef Py_ssize_t* freq        # per distinct k-gram: its occurrences

    def __dealloc__(self):
        PyMem_Free(self.at)
        PyMem_Free(self.ids)
        PyMem_Free(self.first)
        PyMem_Free(self.length)
        PyMem_Free(self.count)
        PyMem_Free(self.hashes)
        PyMem_Free(self.table)
        PyMem_Free(self.keys)
        PyMem_Free(self.gram)
        PyMem_Free(self.freq)


cdef void* alloc(Py_ssize_t n, size_t size) except NULL:
    if n < 1:
        n = 1
    if <size_t>n > PY_SSIZE_T_MAX // size:
        raise MemoryError()
    cdef void* p = PyMem_Malloc(n * size)
    if p is NULL:
        raise MemoryError()
    return p


def word_measures(str lower not None, stop, bint ngrams):
    """The counts behind the quality marks' word measures of a lower-cased text (the Python twin:
    ``corpustool.quality._word_measures_python``, the same tuple), one pass over its characters:

    ``(words, runs, letters, stop, no_letter, chars, top2, chars2, top3, chars3, top4, chars4,
    dup5)``: the words of ``lower.split()``; the runs of letters of ``[^\\W\\d_]+`` in them and
    their characters; of the runs, those in the set ``stop`` (None: 0); the words without one;
    the characters of the words. With ``ngrams``, for k = 2, 3, 4 the occurrences of the most
    frequent k-gram of words (0 when none repeats) and its characters (of equals, the one seen
    first), and the characters of the words covered by a 5-gram occurring more than once (0 with
    fewer than ten words); else zeros.

    The words are found once, each numbered by an open-addressing table over its characters
    (compared in full, never by hash alone); the runs are looked for in each distinct word once;
    a k-gram is (its (k-1)-gram's number, its last word) and only the positions whose
    (k-1)-gram repeats are looked at for k (no other k-gram can repeat)."""
    if stop is not None and not isinstance(stop, (set, frozenset)):
        raise TypeError("stop must be a set or None")
    cdef int kind = PyUnicode_KIND(lower)
    cdef const char* data = <const char*>PyUnicode_DATA(lower)
    cdef Py_ssize_t size = len(lower)
    cdef Py_ssize_t n = 0, i, j, k, s, e, start, d = 0, mask, slot
    cdef Py_ssize_t runs = 0, letters = 0, stops = 0, no_letter = 0, total = 0, found
    cdef Py_UCS4 c
    cdef Py_ssize_t tops[3]
    cdef Py_ssize_t top_chars[3]
    cdef Py_ssize_t dup5 = 0
    cdef uint64_t h
    cdef bint in_word = False
    cdef _Buffers b = _Buffers()
    tops[0] = tops[1] = tops[2] = 0
    top_chars[0] = top_chars[1] = top_chars[2] = 0
    # the words: count, then their starts and lengths
    for i in range(size):
        if Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            in_word = False
        elif not in_word:
            in_word = True
            n += 1
    b.ids = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.first = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.length = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.count = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.hashes = <uint64_t*>alloc(n, sizeof(uint64_t))
    cdef Py_ssize_t slots = table_size(n)
    b.table = <Py_ssize_t*>alloc(slots, sizeof(Py_ssize_t))
    memset(b.table, 0, slots * sizeof(Py_ssize_t))
    mask = slots - 1
    i = 0
    j = 0
    while i < size and j < n:
        if Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            i += 1
            continue
        start = i
        h = 0x9e3779b97f4a7c15ULL
        while i < size:
            c = PyUnicode_READ(kind, data, i)
            if Py_UNICODE_ISSPACE(c):
                break
            h = (h ^ <uint64_t>c) * <uint64_t>0x100000001b3ULL
            i += 1
        h = mix(h ^ <uint64_t>(i - start))
        total += i - start
        slot = <Py_ssize_t>(h & <uint64_t>mask)
        while True:
            k = b.table[slot]
            if k == 0:
                # a new distinct word
                b.table[slot] = d + 1
                b.first[d] = start
                b.length[d] = i - start
                b.count[d] = 1
                b.hashes[d] = h
                b.ids[j] = d
                d += 1
                break
            k -= 1
            if (b.hashes[k] == h and b.length[k] == i - start
                    and memcmp(data + b.first[k] * kind, data + start * kind, (i - start) * kind) == 0):
                b.count[k] += 1
                b.ids[j] = k
                break
            slot = (slot + 1) & mask
        j += 1
    if j != n:
        raise RuntimeError("word_measures: the words changed between the two passes")
    # the runs of letters of each distinct word, counted as often as it occurs
    for k in range(d):
        s = b.first[k]
        e = s + b.length[k]
        found = 0
        i = s
        while i < e:
            if not word_letter(PyUnicode_READ(kind, data, i)):
                i += 1
                continue
            start = i
            i += 1
            while i < e and word_letter(PyUnicode_READ(kind, data, i)):
                i += 1
            found += 1
            letters += b.count[k] * (i - start)
            if stop is not None and PySet_Contains(stop, PyUnicode_Substring(lower, start, i)):
                stops += b.count[k]
        if found:
            runs += b.count[k] * found
        else:
            no_letter += b.count[k]
    if ngrams and d < n:
        dup5 = _ngrams(b, n, tops, top_chars)
    return (n, runs, letters, stops, no_letter, total, tops[0], top_chars[0], tops[1], top_chars[1],
            tops[2], top_chars[2], dup5)


cdef Py_ssize_t _ngrams(_Buffers b, Py_ssize_t n, Py_ssize_t* tops, Py_ssize_t* top_chars) except -1:
    """The k-gram counts of :func:`word_measures` (its words' ``ids``, ``count`` and ``length``
    filled); ``tops``/``top_chars`` for k = 2, 3, 4; returns the characters covered by repeated
    5-grams."""
    cdef Py_ssize_t i, j, k, m, kept, slots, mask, slot, g, top, chars, dup5 = 0, depth, w
    cdef uint64_t key
    b.at = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.gram = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    b.freq = <Py_ssize_t*>alloc(n, sizeof(Py_ssize_t))
    slots = table_size(n)
    PyMem_Free(b.table)
    b.table = NULL
    b.table = <Py_ssize_t*>alloc(slots, sizeof(Py_ssize_t))
    b.keys = <uint64_t*>alloc(slots, sizeof(uint64_t))
    # a bigram can repeat only where both its words do
    m = 0
    for i in range(n - 1):
        if b.count[b.ids[i]] > 1 and b.count[b.ids[i + 1]] > 1:
            b.at[m] = i
            b.gram[m] = b.ids[i]
            m += 1
    for k in range(2, 6):
        kept = 0
        for j in range(m):
            if b.at[j] + k <= n:
                b.at[kept] = b.at[j]
                b.gram[kept] = b.gram[j]
                kept += 1
        m = kept
        if m < 2:
            break
        # number the k-grams (the (k-1)-gram, the last word): at most m of them, table of 2m+ slots
        slots = table_size(m)
        mask = slots - 1
        memset(b.table, 0, slots * sizeof(Py_ssize_t))
        g = 0
        top = 0
        for j in range(m):
            w = b.ids[b.at[j] + k - 1]
            if b.gram[j] < 0 or b.gram[j] >= n or w < 0 or w >= n:
                raise IndexError("word_measures: a k-gram out of range")
            key = <uint64_t>b.gram[j] * <uint64_t>n + <uint64_t>w
            slot = <Py_ssize_t>(mix(key) & <uint64_t>mask)
            while True:
                i = b.table[slot]
                if i == 0:
                    b.table[slot] = g + 1
                    b.keys[slot] = key
                    b.freq[g] = 1
                    b.gram[j] = g
                    g += 1
                    break
                if b.keys[slot] == key:
                    b.freq[i - 1] += 1
                    b.gram[j] = i - 1
                    break
                slot = (slot + 1) & mask
        for i in range(g):
            if b.freq[i] > top:
                top = b.freq[i]
        if top < 2:
            break               # no repeated k-gram: no repeated longer one either
        if k < 5:
            # the most frequent k-gram, of equals the one at the first position
            for j in range(m):
                if b.freq[b.gram[j]] == top:
                    chars = 0
                    for i in range(b.at[j], b.at[j] + k):
                        chars += b.length[b.ids[i]]
                    tops[k - 2] = top
                    top_chars[k - 2] = chars
                    break
        elif n >= 2 * k:
            # the characters of the words covered by a 5-gram occurring more than once
            depth = -1          # the last position covered so far
            for j in range(m):
                if b.freq[b.gram[j]] > 1:
                    i = b.at[j] if b.at[j] > depth else depth + 1
                    while i < b.at[j] + k:
                        dup5 += b.length[b.ids[i]]
                        i += 1
                    depth = b.at[j] + k - 1
        kept = 0
        for j in range(m):
            if b.freq[b.gram[j]] > 1:
                b.at[kept] = b.at[j]
                b.gram[kept] = b.gram[j]
                kept += 1
        m = kept
    return dup5


# -- a str's str.find for an ASCII needle: SSE2 compares of three of its characters at once -------

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* the first i in [start, end - m] where the units s[i:i + m] equal the ASCII needle (m >= 1);
       -1 when none. With SSE2, 16 bytes of units a step are compared with the needle's first,
       middle and last characters (at their offsets); only where all three match is the needle
       compared in full. A load reads s[i + off .. i + off + lanes - 1], off <= m - 1, for
       i + lanes - 1 <= end - m: within s[0:end]. */
    #define CT_FIND(NAME, T, LANES, CMPEQ, SET1, BYTES)                                          \
    static Py_ssize_t NAME(const T* s, Py_ssize_t start, Py_ssize_t end,                         \
                           const unsigned char* needle, Py_ssize_t m) {                          \
        Py_ssize_t i = start, last = end - m, mid = m / 2, j;                                    \
        if (start < 0 || m < 1 || last < start) return -1;                                      \
        CT_FIND_SIMD(T, LANES, CMPEQ, SET1, BYTES)                                               \
        for (; i <= last; i++) {                                                                 \
            if (s[i] != needle[0] || s[i + m - 1] != needle[m - 1]) continue;                   \
            for (j = 1; j < m && s[i + j] == needle[j]; j++) ;                                   \
            if (j == m) return i;                                                                \
        }                                                                                        \
        return -1;                                                                               \
    }
    #if defined(__SSE2__)
    #define CT_FIND_SIMD(T, LANES, CMPEQ, SET1, BYTES)                                           \
        {                                                                                        \
            __m128i a = SET1(needle[0]), b = SET1(needle[mid]), c = SET1(needle[m - 1]);         \
            for (; i + LANES - 1 <= last; i += LANES) {                                          \
                __m128i x = CMPEQ(_mm_loadu_si128((const __m128i*) (s + i)), a);                 \
                __m128i y = CMPEQ(_mm_loadu_si128((const __m128i*) (s + i + mid)), b);           \
                __m128i z = CMPEQ(_mm_loadu_si128((const __m128i*) (s + i + m - 1)), c);         \
                unsigned int bits = (unsigned int) _mm_movemask_epi8(_mm_and_si128(_mm_and_si128(x, y), z)); \
                while (bits) {                                                                   \
                    Py_ssize_t k = i + __builtin_ctz(bits) / BYTES;                              \
                    for (j = 0; j < m && s[k + j] == needle[j]; j++) ;                           \
                    if (j == m) return k;                                                        \
                    bits &= ~((1u << (BYTES * (k - i + 1))) - 1u);                               \
                }                                                                                \
            }                                                                                    \
        }
    #else
    #define CT_FIND_SIMD(T, LANES, CMPEQ, SET1, BYTES)
    #endif
    #define CT_SET1_8(c) _mm_set1_epi8((char) (c))
    #define CT_SET1_16(c) _mm_set1_epi16((short) (c))
    #define CT_SET1_32(c) _mm_set1_epi32((int) (c))
    CT_FIND(ct_find1, uint8_t, 16, _mm_cmpeq_epi8, CT_SET1_8, 1)
    CT_FIND(ct_find2, uint16_t, 8, _mm_cmpeq_epi16, CT_SET1_16, 2)
    CT_FIND(ct_find4, uint32_t, 4, _mm_cmpeq_epi32, CT_SET1_32, 4)
    """
    Py_ssize_t ct_find1(const Py_UCS1* s, Py_ssize_t start, Py_ssize_t end, const unsigned char* needle, Py_ssize_t m) noexcept nogil
    Py_ssize_t ct_find2(const Py_UCS2* s, Py_ssize_t start, Py_ssize_t end, const unsigned char* needle, Py_ssize_t m) noexcept nogil
    Py_ssize_t ct_find4(const Py_UCS4* s, Py_ssize_t start, Py_ssize_t end, const unsigned char* needle, Py_ssize_t m) noexcept nogil


def find_ascii(str text not None, str needle not None, Py_ssize_t start=0, Py_ssize_t end=PY_SSIZE_T_MAX):
    """``text.find(needle, start, end)`` for an ASCII ``needle`` of 1 to 64 characters and ``start``,
    ``end`` not negative (the page declarations' searches, text_types.py). CPython's search of a
    page takes 0.2-0.45 ns a character for these needles (most pages are strings of 2-byte
    characters); SSE2 compares of the needle's first, middle and last characters, 16 bytes a
    step, leave few places to compare in full."""
    cdef Py_ssize_t m = len(needle), size = len(text), i
    cdef unsigned char raw[64]
    if m == 0 or m > 64 or not PyUnicode_IS_ASCII(needle):
        raise ValueError("the needle must be 1 to 64 ASCII characters")
    if start < 0 or end < 0:
        raise ValueError("start and end must not be negative")
    cdef const Py_UCS1* chars = <const Py_UCS1*>PyUnicode_DATA(needle)
    for i in range(m):
        raw[i] = chars[i]
    if end > size:
        end = size
    cdef int kind = PyUnicode_KIND(text)
    cdef const void* data = PyUnicode_DATA(text)
    if kind == PyUnicode_1BYTE_KIND:
        return ct_find1(<const Py_UCS1*>data, start, end, raw, m)
    if kind == PyUnicode_2BYTE_KIND:
        return ct_find2(<const Py_UCS2*>data, start, end, raw, m)
    return ct_find4(<const Py_UCS4*>data, start, end, raw, m)
