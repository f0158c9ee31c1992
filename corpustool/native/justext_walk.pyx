# cython: language_level=3, boundscheck=True, wraparound=False, initializedcheck=False, cdivision=True
"""The jusText engine's walk, features and classification, compiled (Cython over lxml's public C API).

``corpustool.extractors.justext_engine`` uses this module when it is built
(``COMPILED``) and its pure-Python code otherwise; both give the same
paragraphs, field for field (tests/native/test_backend_parity.py compares them):

* :func:`segment` is ``justext_engine.segment_py``: ``(path_node, chunks,
  link_chars)`` per paragraph, ``chunks`` being one string (the Python walk's
  chunks joined). The state machine is the same, event for event (the
  Python walk's comments say why each step is there); what changes is how
  the tree is read: nodes through the ``children``/``next``/``parent``
  pointers of libxml2's ``xmlNode`` structs, with no Python proxy per node;
  ``.text``/``.tail`` as lxml's ``_collectText`` over the UTF-8 ``content``
  of the text nodes, appended to byte buffers, so a paragraph's text becomes
  a ``str`` once; ``str.isspace`` and the whitespace-normalised length of a
  link chunk on the UTF-8 bytes with Python's whitespace set; tag kinds by
  comparing names; path nodes only for the elements a paragraph's path uses.
* :func:`features` is ``segment`` followed by ``justext_engine.paragraph_rows``:
  text normalisation, word and stop-word counts in one pass over the bytes
  (ASCII words looked up in a C hash set of the stoplist, others through
  ``str.lower``), DOM path and XPath kept as strings per open element.
* :func:`build` is ``JustextEngineExtractor.build_py`` with
  ``justext_engine.classify`` (Algorithms 2.2 and 2.3 of seed 003 with the
  headings rule) on C arrays of class codes.
* :func:`extract` is :func:`features` and :func:`build` with the rows kept in
  C arrays in between: what the engine runs.
* :func:`extract_evidence` is :func:`extract` plus justext-plus's structural
  evidence from the same walk (:class:`EvidenceRules` in, :class:`PageTree`
  out): what ``JustextPlusExtractor.regions`` and the XPath prefixes of its
  paragraphs give, without XPath queries or prefix strings.
* :func:`extract_evidence_html` is :func:`extract_evidence` of a page's bytes
  without lxml's tree: lxml's libxml2 parses them through SAX callbacks into
  an arena tree of the same structs (``sax_arena.pxi``, included at the end).

The tag sets of ``justext_engine`` (PARAGRAPH_TAGS, KILLED_TAGS,
UNWRAPPED_TAGS) are spelt out in :func:`tag_kind`; :func:`kind_of` lets the
tests check that both agree.
"""
from cpython.dict cimport PyDict_Copy
from cpython.object cimport PyObject_SetAttr, PyTypeObject
from cpython.ref cimport Py_DECREF, Py_INCREF, Py_XDECREF, PyObject
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, strcmp, strlen


cdef extern from "string.h" nogil:
    void* memchr(const void* s, int c, size_t n)

cimport lxml.includes.etreepublic as cetree
from lxml.includes.tree cimport (XML_CDATA_SECTION_NODE, XML_COMMENT_NODE, XML_ELEMENT_NODE,
                                 XML_ENTITY_REF_NODE, XML_PI_NODE, XML_TEXT_NODE, XML_XINCLUDE_END,
                                 XML_XINCLUDE_START, xmlAttr, xmlNode)

cetree.import_lxml__etree()

# What a tag means to the walk (the Python walk's _KIND).
cdef enum Kind:
    K_PLAIN, K_PARA, K_BR, K_A, K_IMAGE, K_KILL, K_UNWRAP, K_LINK


cdef Kind tag_kind(const char* n) noexcept nogil:
    """PARAGRAPH_TAGS, KILLED_TAGS, UNWRAPPED_TAGS of justext_engine, by name (names are lower case)."""
    cdef char c = n[0]
    if c == b'p':
        if n[1] == 0 or strcmp(n, b"pre") == 0:
            return K_PARA
        if strcmp(n, b"param") == 0:
            return K_UNWRAP
    elif c == b'd':
        if strcmp(n, b"div") == 0 or strcmp(n, b"dd") == 0 or strcmp(n, b"dl") == 0 or strcmp(n, b"dt") == 0:
            return K_PARA
    elif c == b'a':
        if n[1] == 0:
            return K_A
        if strcmp(n, b"applet") == 0:
            return K_KILL
    elif c == b'l':
        if strcmp(n, b"li") == 0 or strcmp(n, b"legend") == 0:
            return K_PARA
        if strcmp(n, b"link") == 0:
            return K_LINK
        if strcmp(n, b"layer") == 0:
            return K_UNWRAP
    elif c == b't':
        if (strcmp(n, b"td") == 0 or strcmp(n, b"tr") == 0 or strcmp(n, b"table") == 0
                or strcmp(n, b"th") == 0 or strcmp(n, b"thead") == 0 or strcmp(n, b"tfoot") == 0):
            return K_PARA
        if strcmp(n, b"textarea") == 0:
            return K_KILL   # in PARAGRAPH_TAGS too, but the Cleaner kills it first
    elif c == b'h':
        if b'1' <= n[1] <= b'6' and n[2] == 0:
            return K_PARA
        if strcmp(n, b"head") == 0:
            return K_KILL
    elif c == b'b':
        if strcmp(n, b"br") == 0:
            return K_BR
        if strcmp(n, b"body") == 0 or strcmp(n, b"blockquote") == 0:
            return K_PARA
        if strcmp(n, b"base") == 0 or strcmp(n, b"button") == 0:
            return K_KILL
    elif c == b'u':
        if strcmp(n, b"ul") == 0:
            return K_PARA
    elif c == b'c':
        if (strcmp(n, b"caption") == 0 or strcmp(n, b"center") == 0 or strcmp(n, b"col") == 0
                or strcmp(n, b"colgroup") == 0):
            return K_PARA
    elif c == b'f':
        if strcmp(n, b"fieldset") == 0:
            return K_PARA
        if strcmp(n, b"form") == 0:
            return K_UNWRAP   # in PARAGRAPH_TAGS too, but the Cleaner unwraps it first
    elif c == b'o':
        if strcmp(n, b"optgroup") == 0 or strcmp(n, b"option") == 0:
            return K_PARA
        if strcmp(n, b"object") == 0:
            return K_UNWRAP
    elif c == b's':
        if strcmp(n, b"script") == 0 or strcmp(n, b"style") == 0 or strcmp(n, b"select") == 0:
            return K_KILL
    elif c == b'i':
        if strcmp(n, b"input") == 0:
            return K_KILL
        if strcmp(n, b"iframe") == 0:
            return K_UNWRAP
        if strcmp(n, b"image") == 0:
            return K_IMAGE
    elif c == b'e':
        if strcmp(n, b"embed") == 0:
            return K_UNWRAP
    return K_PLAIN


_KIND_NAMES = ("plain", "paragraph", "br", "a", "image", "killed", "unwrapped", "link")


def kind_of(str tag):
    """What the walk makes of an element with this tag name (for the tests)."""
    data = tag.encode("utf-8")
    return _KIND_NAMES[tag_kind(data)]


cdef inline bint is_element_like(xmlNode* c) noexcept nogil:
    # lxml's _isElement: what iter() and len() see
    return (c.type == XML_ELEMENT_NODE or c.type == XML_COMMENT_NODE or c.type == XML_ENTITY_REF_NODE
            or c.type == XML_PI_NODE)


cdef inline xmlNode* next_element_like(xmlNode* c) noexcept nogil:
    while c is not NULL and not is_element_like(c):
        c = c.next
    return c


cdef Py_ssize_t text_chars(xmlNode* top) noexcept nogil:
    """justext_plus.text_chars: the characters (UTF-8 lead bytes) of the text nodes under top,
    ASCII whitespace left out, script and style elements skipped."""
    cdef Py_ssize_t n = 0
    cdef xmlNode* c = top.children
    cdef const unsigned char* t
    while c is not NULL:
        if c.type == XML_TEXT_NODE or c.type == XML_CDATA_SECTION_NODE:
            t = <const unsigned char*>c.content
            if t is not NULL:
                while t[0] != 0:
                    if (t[0] & 0xc0) != 0x80 and not (t[0] == 0x20 or 0x09 <= t[0] <= 0x0d):
                        n += 1
                    t += 1
        elif (c.type == XML_ELEMENT_NODE and c.children is not NULL and c.name is not NULL
              and strcmp(<const char*>c.name, b"script") != 0 and strcmp(<const char*>c.name, b"style") != 0):
            c = c.children
            continue
        # the next node: the sibling, else the nearest ancestor's sibling below top
        while c is not top and c.next is NULL:
            c = c.parent
        if c is top or c is NULL:
            break
        c = c.next
    return n


# -- UTF-8 text with Python's notion of whitespace --------------------------------

cdef inline bint is_space(unsigned int cp) noexcept nogil:
    """str.isspace() of one code point (the same set as str.split() and the regex \\s)."""
    if cp < 0x80:
        return cp == 0x20 or (0x09 <= cp <= 0x0d) or (0x1c <= cp <= 0x1f)
    return (cp == 0x85 or cp == 0xa0 or cp == 0x1680 or (0x2000 <= cp <= 0x200a) or cp == 0x2028
            or cp == 0x2029 or cp == 0x202f or cp == 0x205f or cp == 0x3000)


cdef inline unsigned int next_cp(const unsigned char* s, Py_ssize_t* i, Py_ssize_t n) noexcept nogil:
    """The code point at s[i[0]] (UTF-8, as libxml2 stores text), advancing i; never reads past s[n - 1]
    (a truncated sequence, which valid text does not have, reads as U+FFFD)."""
    cdef Py_ssize_t k = i[0]
    cdef unsigned int c = s[k]
    cdef int size = 1 if c < 0x80 else 2 if c < 0xe0 else 3 if c < 0xf0 else 4
    if k + size > n:
        i[0] = n
        return 0xfffd
    i[0] = k + size
    if size == 1:
        return c
    if size == 2:
        return ((c & 0x1f) << 6) | (s[k + 1] & 0x3f)
    if size == 3:
        return ((c & 0x0f) << 12) | ((s[k + 1] & 0x3f) << 6) | (s[k + 2] & 0x3f)
    return ((c & 0x07) << 18) | ((s[k + 1] & 0x3f) << 12) | ((s[k + 2] & 0x3f) << 6) | (s[k + 3] & 0x3f)


cdef bint is_blank(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """str.isspace() of a non-empty text."""
    cdef Py_ssize_t i = 0
    while i < n:
        if s[i] < 0x80:
            if not is_space(s[i]):
                return False
            i += 1
        elif not is_space(next_cp(s, &i, n)):
            return False
    return True


cdef bint ends_in_space(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """str.isspace() of the last character of a non-empty UTF-8 text."""
    cdef Py_ssize_t k = n - 1
    if s[k] < 0x80:
        return is_space(s[k])
    while k > 0 and (s[k] & 0xc0) == 0x80:   # back to the lead byte
        k -= 1
    return is_space(next_cp(s, &k, n))


cdef Py_ssize_t normalized_length(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """len(normalize_whitespace(chunk)): code points, each whitespace run counted once."""
    cdef Py_ssize_t i = 0, length = 0
    cdef bint space, in_run = False
    while i < n:
        if s[i] < 0x80:
            space = is_space(s[i])
            i += 1
        else:
            space = is_space(next_cp(s, &i, n))
        if not (space and in_run):
            length += 1
        in_run = space
    return length


cdef bint has_bytes(const char* s, Py_ssize_t n, const char* needle, Py_ssize_t k) noexcept nogil:
    """needle in s[:n] (k >= 1; short haystacks: memchr for the first byte, then compare)."""
    cdef const char* p = s
    cdef const char* end
    if n < k:
        return False
    end = s + n - k + 1
    while p < end:
        p = <const char*>memchr(p, needle[0], end - p)
        if p is NULL:
            return False
        if memcmp(p, needle, k) == 0:
            return True
        p += 1
    return False


cdef struct Buf:
    char* data
    Py_ssize_t len
    Py_ssize_t cap


cdef int buf_grow(Buf* b, Py_ssize_t n) except -1:
    """Room for n more bytes."""
    cdef Py_ssize_t cap = max(2 * b.cap, b.len + n, 4096)
    cdef char* data = <char*>realloc(b.data, cap)
    if data is NULL:
        raise MemoryError()
    b.data = data
    b.cap = cap
    return 0


cdef inline int buf_add(Buf* b, const char* s, Py_ssize_t n) except -1:
    if b.len + n > b.cap:
        buf_grow(b, n)
    memcpy(b.data + b.len, s, n)
    b.len += n
    return 0


cdef int collect_text(Buf* b, xmlNode* c) except -1:
    """Append lxml's ``_collectText(c)``: the run of text/CDATA nodes from c (XInclude markers skipped)."""
    cdef const char* content
    while c is not NULL:
        if c.type == XML_TEXT_NODE or c.type == XML_CDATA_SECTION_NODE:
            content = <const char*>c.content
            if content is not NULL and content[0] != 0:
                buf_add(b, content, len(content))
        elif c.type != XML_XINCLUDE_START and c.type != XML_XINCLUDE_END:
            break
        c = c.next
    return 0


# -- stop words ----------------------------------------------------------------------

cdef inline size_t fnv1a(const unsigned char* s, Py_ssize_t n) noexcept nogil:
    cdef size_t h = 1469598103934665603ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ s[i]) * 1099511628211ULL
    return h


cdef struct Entry:
    size_t hash
    char* word          # UTF-8, owned; NULL = empty slot
    Py_ssize_t len


cdef class StopSet:
    """A stoplist as a C hash set of UTF-8 strings, so ASCII words are looked up without a str.

    ``word.lower() in stoplist`` is, for an ASCII word, "its ASCII-lower-cased
    bytes equal the UTF-8 bytes of an entry": both sides compare exact strings.
    Other words need Unicode lower-casing (``str.lower``); the answer for each
    is kept by its UTF-8 bytes in a second table (``others``), so a word that
    comes again costs one lookup.
    """
    cdef Entry* table
    cdef size_t mask
    cdef object words
    cdef Entry* others          # non-ASCII words seen: is each a stop word (other_word)
    cdef size_t others_size, others_count
    # bit n - 1 of lengths[b]: an entry of n bytes (n <= 64) starts with byte b; long_entries: one
    # is longer (most words of a text are no stop word, and are found out so without hashing)
    cdef unsigned long long lengths[256]
    cdef bint long_entries

    def __cinit__(self, stoplist):
        cdef size_t size = 16
        cdef bytes data
        cdef Entry* e
        cdef size_t h
        self.words = stoplist
        entries = [w.encode("utf-8", "surrogatepass") for w in stoplist if isinstance(w, str)]
        while size < 2 * len(entries) + 2:
            size *= 2
        self.table = <Entry*>malloc(size * sizeof(Entry))
        if self.table is NULL:
            raise MemoryError()
        self.mask = size - 1
        for h in range(size):
            self.table[h].word = NULL
        for h in range(256):
            self.lengths[h] = 0
        self.long_entries = False
        for data in entries:
            if len(data) > 64:
                self.long_entries = True
            elif len(data):
                self.lengths[<unsigned char>data[0]] |= 1ULL << (len(data) - 1)
            h = fnv1a(<const unsigned char*>data, len(data))
            e = &self.table[h & self.mask]
            while e.word is not NULL:
                if e.hash == h and e.len == len(data) and memcmp(e.word, <const char*>data, e.len) == 0:
                    break
                h_next = (<size_t>(e - self.table) + 1) & self.mask
                e = &self.table[h_next]
            if e.word is NULL:
                e.word = <char*>malloc(len(data) + 1)
                if e.word is NULL:
                    raise MemoryError()
                memcpy(e.word, <const char*>data, len(data))
                e.hash = h
                e.len = len(data)

    def __dealloc__(self):
        cdef size_t i
        if self.table is not NULL:
            for i in range(self.mask + 1):
                free(self.table[i].word)
            free(self.table)
        self.drop_others()

    cdef void drop_others(self) noexcept:
        cdef size_t i
        if self.others is not NULL:
            for i in range(self.others_size):
                free(self.others[i].word)
            free(self.others)
        self.others = NULL
        self.others_size = self.others_count = 0

    cdef int other_word(self, const char* s, Py_ssize_t n) except -1:
        """``word.lower() in stoplist`` for the non-ASCII word s[:n] (UTF-8), remembered per word.

        The answer is stored in the entry's ``len`` sign: len for a stop word, -1 - len for another.
        """
        cdef size_t h = fnv1a(<const unsigned char*>s, n), i, size, j
        cdef Entry* e
        cdef Entry* old
        cdef Py_ssize_t k
        if self.others is not NULL:
            i = h & (self.others_size - 1)
            e = &self.others[i]
            while e.word is not NULL:
                k = e.len if e.len >= 0 else -1 - e.len
                if e.hash == h and k == n and memcmp(e.word, s, n) == 0:
                    return e.len >= 0
                i = (i + 1) & (self.others_size - 1)
                e = &self.others[i]
        word = PyUnicode_DecodeUTF8(s, n, NULL)
        found = word.lower() in self.words
        if self.others is NULL or 2 * (self.others_count + 1) > self.others_size:
            # start at 1024 entries, double up to 65536, then start again
            old = self.others
            size = self.others_size
            if size >= 65536:
                self.drop_others()
                old = NULL
                size = 0
            self.others_size = 2 * size if size else 1024
            self.others = <Entry*>malloc(self.others_size * sizeof(Entry))
            if self.others is NULL:
                self.others = old
                self.others_size = size
                raise MemoryError()
            for i in range(self.others_size):
                self.others[i].word = NULL
            if old is not NULL:
                for j in range(size):
                    if old[j].word is not NULL:
                        i = old[j].hash & (self.others_size - 1)
                        while self.others[i].word is not NULL:
                            i = (i + 1) & (self.others_size - 1)
                        self.others[i] = old[j]
                free(old)
            i = h & (self.others_size - 1)
            while self.others[i].word is not NULL:
                i = (i + 1) & (self.others_size - 1)
            e = &self.others[i]
        e.word = <char*>malloc(n + 1)
        if e.word is NULL:
            raise MemoryError()
        memcpy(e.word, s, n)
        e.hash = h
        e.len = n if found else -1 - n
        self.others_count += 1
        return found

    cdef inline bint may_have(self, unsigned char first, Py_ssize_t n) noexcept nogil:
        """Could an entry of n >= 1 bytes starting with byte first be in the set?"""
        if n > 64:
            return self.long_entries
        return (self.lengths[first] >> (n - 1)) & 1

    cdef bint has(self, const unsigned char* s, Py_ssize_t n) noexcept nogil:
        cdef size_t h = fnv1a(s, n)
        cdef size_t i = h & self.mask
        cdef Entry* e = &self.table[i]
        while e.word is not NULL:
            if e.hash == h and e.len == n and memcmp(e.word, s, n) == 0:
                return True
            i = (i + 1) & self.mask
            e = &self.table[i]
        return False


cdef dict _STOPSETS = {}


cdef StopSet stopset_of(stoplist):
    """The StopSet of a stoplist, cached for frozensets (immutable, hashed once)."""
    cdef StopSet s
    if type(stoplist) is not frozenset:
        return StopSet(stoplist)
    s = _STOPSETS.get(stoplist)
    if s is None or s.words is not stoplist:
        if len(_STOPSETS) >= 256:   # stoplists come from a small set of languages; stay bounded
            _STOPSETS.clear()
        s = _STOPSETS[stoplist] = StopSet(stoplist)
    return s


# -- paragraph rows --------------------------------------------------------------------

cdef struct Numbers:
    Py_ssize_t chars, words, stop, link_chars
    bint heading
    Py_ssize_t node     # extract_evidence(): the paragraph element's node in the PageTree
    int marks           # MARK_* bits found on the bytes by the walk, or -1: look at the strings


# What Algorithm 2.2 looks for in a paragraph's strings, found by the walk on their
# UTF-8 bytes (a character is in a str exactly when its UTF-8 bytes are in the bytes).
cdef enum:
    MARK_COPYRIGHT = 1  # "\xa9" or "&copy" in the text
    MARK_SELECT = 2     # "select" in the DOM path


cdef class Rows:
    """The rows of ``justext_engine.paragraph_rows`` as columns: strings in lists, numbers in C."""
    cdef list texts, dom_paths, xpaths, tags
    cdef Numbers* numbers
    cdef Py_ssize_t n, cap

    def __cinit__(self):
        self.texts = []
        self.dom_paths = []
        self.xpaths = []
        self.tags = []

    def __dealloc__(self):
        free(self.numbers)

    cdef int add(self, text, dom_path, xpath, bint heading, Py_ssize_t chars, Py_ssize_t words,
                 Py_ssize_t stop, Py_ssize_t link_chars, Py_ssize_t node=-1, tag=None, int marks=-1) except -1:
        """One row; ``tag`` (the last name of the DOM path) and ``marks`` when the walk has them,
        else None and -1 (make_paragraphs reads them from the strings)."""
        cdef Numbers* numbers
        if self.n == self.cap:
            self.cap = max(256, 2 * self.cap)
            numbers = <Numbers*>realloc(self.numbers, self.cap * sizeof(Numbers))
            if numbers is NULL:
                raise MemoryError()
            self.numbers = numbers
        self.texts.append(text)
        self.dom_paths.append(dom_path)
        self.xpaths.append(xpath)
        self.tags.append(tag)
        numbers = &self.numbers[self.n]
        numbers.chars = chars
        numbers.words = words
        numbers.stop = stop
        numbers.link_chars = link_chars
        numbers.heading = heading
        numbers.node = node
        numbers.marks = marks
        self.n += 1
        return 0


# -- the walk ------------------------------------------------------------------------

cdef struct Level:
    # an element of the cleaned tree that is open (has children): its path
    # and where its children's same-tag counters start
    xmlNode* node
    bint image          # <image>, renamed <img>
    Py_ssize_t position
    PyObject* path      # owned reference, NULL until a paragraph needs it (segment())
    Py_ssize_t counters
    Py_ssize_t dom_len  # the path strings up to and including this level (features())
    Py_ssize_t xpath_len
    bint heading
    Py_ssize_t node_id  # extract_evidence(): its node in the PageTree


cdef struct Counter:
    const char* name
    const char* href
    Py_ssize_t count


cdef struct OpenNode:
    xmlNode* node
    Kind kind


cdef const char* IMG = b"img"


cdef inline bint same_str(const char* a, const char* b) noexcept nogil:
    if a == b:
        return True
    if a is NULL or b is NULL:
        return False
    return strcmp(a, b) == 0


cdef object tag_of(xmlNode* c, bint image):
    """el.tag (with the Cleaner's <image> -> <img>)."""
    if image:
        return "img"
    name = PyUnicode_DecodeUTF8(<const char*>c.name, len(<const char*>c.name), NULL)
    if c.ns is not NULL and c.ns.href is not NULL:
        href = PyUnicode_DecodeUTF8(<const char*>c.ns.href, len(<const char*>c.ns.href), NULL)
        return "{%s}%s" % (href, name)
    return name


cdef int add_tag(Buf* b, xmlNode* c, bint image) except -1:
    """Append el.tag as UTF-8."""
    if image:
        return buf_add(b, IMG, 3)
    if c.ns is not NULL and c.ns.href is not NULL:
        buf_add(b, b"{", 1)
        buf_add(b, <const char*>c.ns.href, len(<const char*>c.ns.href))
        buf_add(b, b"}", 1)
    return buf_add(b, <const char*>c.name, len(<const char*>c.name))


_HEADING_TAG = None
cdef dict _HEADING_CACHE = {}


cdef bint tag_is_heading(const unsigned char* t, Py_ssize_t n) except -1:
    """justext's HEADINGS_PATTERN (\\bh\\d\\b) on one tag name (dots are word boundaries)."""
    global _HEADING_TAG
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(n):
        c = t[i]
        if not ((b'a' <= c <= b'z') or (b'0' <= c <= b'9') or (b'A' <= c <= b'Z') or c == b'_'):
            break
    else:
        # only word characters: the boundaries are the ends
        return n == 2 and t[0] == b'h' and b'0' <= t[1] <= b'9'
    tag = PyUnicode_DecodeUTF8(<const char*>t, n, NULL)
    found = _HEADING_CACHE.get(tag)
    if found is None:
        if _HEADING_TAG is None:
            import re
            _HEADING_TAG = re.compile(r"\bh\d\b")
        found = _HEADING_TAG.search(tag) is not None
        if len(_HEADING_CACHE) < 4096:
            _HEADING_CACHE[tag] = found
    return found


cdef int add_position(Buf* b, Py_ssize_t position) except -1:
    """Append "[position]"."""
    cdef char digits[24]
    cdef int k = 23
    digits[k] = b']'
    while True:
        k -= 1
        digits[k] = <char>(48 + position % 10)   # '0' + digit
        position //= 10
        if position == 0:
            break
    k -= 1
    digits[k] = b'['
    return buf_add(b, digits + k, 24 - k)


# -- justext-plus's structural evidence --------------------------------------------------

cdef struct NodeRec:
    # an element of the cleaned tree (or the path "/"): parent node, XPath in the arena
    Py_ssize_t parent
    Py_ssize_t start, length
    bint evidence       # a key of the kinds or a main-content hint


cdef struct MaskEntry:
    size_t hash
    char* value         # UTF-8, owned; NULL = empty slot
    Py_ssize_t len
    long mask


cdef size_t table_size(Py_ssize_t keys) noexcept:
    """Slots for an open-addressing table of ``keys`` keys: a power of two, at most a quarter full."""
    cdef size_t size = 16
    while size < <size_t>(4 * keys + 4):
        size *= 2
    return size


cdef MaskEntry* new_table(size_t size) except NULL:
    """An open-addressing table of ``size`` empty slots."""
    cdef MaskEntry* table = <MaskEntry*>malloc(size * sizeof(MaskEntry))
    cdef size_t i
    if table is NULL:
        raise MemoryError()
    for i in range(size):
        table[i].value = NULL
    return table


cdef int put_entry(MaskEntry* table, size_t size, bytes data, long mask) except -1:
    """Store a copy of ``data`` with its mask in an open-addressing table of ``size`` (a power of two) slots."""
    cdef size_t h = fnv1a(<const unsigned char*>data, len(data))
    cdef MaskEntry* e = &table[h & (size - 1)]
    while e.value is not NULL:
        e = &table[((<size_t>(e - table)) + 1) & (size - 1)]
    e.value = <char*>malloc(len(data) + 1)
    if e.value is NULL:
        raise MemoryError()
    memcpy(e.value, <const char*>data, len(data) + 1)
    e.hash = h
    e.len = len(data)
    e.mask = mask
    return 0


cdef enum:
    NAME_SEMANTIC = 1
    NAME_PYTHON = 2


cdef inline char lower_ascii(char c) noexcept nogil:
    return c + 32 if b'A' <= c <= b'Z' else c


cdef bint is_ascii(const char* s) noexcept nogil:
    cdef Py_ssize_t i = 0
    while s[i] != 0:
        if <unsigned char>s[i] >= 0x80:
            return False
        i += 1
    return True


cdef bint has_word_ci(const char* s, const char* word) noexcept nogil:
    """Does s contain word (lower-case ASCII), ignoring ASCII case?"""
    cdef Py_ssize_t i = 0, k
    while s[i] != 0:
        k = 0
        while word[k] != 0 and lower_ascii(s[i + k]) == word[k]:
            k += 1
        if word[k] == 0:
            return True
        i += 1
    return False


cdef class EvidenceRules:
    """justext-plus's element rules in the form the walk reads fast (built once by ``justext_plus``).

    ``evidence(el) -> (kind, hint)`` is the full rule (``element_kind`` and
    ``is_main_hint``); the walk asks it for every candidate element except the
    common one it decides itself: an element named only by its class and id
    tokens (no semantic tag, no tag in ``python_tags``, no role, hidden or
    itemprop attribute, no style that hides it), whose kind is
    ``mask_kinds[value_mask(class) | value_mask(id)]``. Candidates are the
    elements of justext-plus's queries: ``semantic`` tags, class/id values
    that name a kind, role, hidden and itemprop attributes, hiding styles.
    """
    cdef object evidence, value_mask, hidden_style, describe, candidate
    cdef tuple mask_kinds
    cdef MaskEntry* names      # tag name -> NAME_SEMANTIC | NAME_PYTHON (semantic, python_tags)
    cdef size_t names_size
    cdef MaskEntry* table
    cdef size_t size, count
    cdef MaskEntry* tokens     # token -> bit of its kind (TOKENS)
    cdef size_t tokens_size
    cdef unsigned long long token_lengths[256]   # bit n - 1: a token of n bytes starts with this byte
    cdef unsigned char first[256]   # first letters of the semantic and python_tags names
    cdef dict decided               # evidence() and describe() of elements, by tag and attributes

    def __cinit__(self, evidence, value_mask, tuple mask_kinds, hidden_style, describe, candidate, semantic,
                  python_tags, dict token_bits):
        cdef bytes data
        self.tokens_size = table_size(len(token_bits))
        self.tokens = new_table(self.tokens_size)
        for i in range(256):
            self.token_lengths[i] = 0
        for token, bit in token_bits.items():
            data = token.encode("utf-8")
            put_entry(self.tokens, self.tokens_size, data, bit)
            if 1 <= len(data) <= 64:
                self.token_lengths[<unsigned char>data[0]] |= 1ULL << (len(data) - 1)
        self.evidence = evidence
        self.candidate = candidate
        self.value_mask = value_mask
        self.mask_kinds = mask_kinds
        self.hidden_style = hidden_style
        self.describe = describe
        # the tag names as a C hash set, looked up once per element the walk examines
        name_flags = {}
        for t in semantic:
            name_flags[t.encode("utf-8")] = NAME_SEMANTIC
        for t in python_tags:
            name_flags[t.encode("utf-8")] = name_flags.get(t.encode("utf-8"), 0) | NAME_PYTHON
        self.names_size = table_size(len(name_flags))
        self.names = new_table(self.names_size)
        for i in range(256):
            self.first[i] = False
        for data, flags in name_flags.items():
            if not data or b"\0" in data:
                continue   # no element has an empty name or a NUL in it
            self.first[<unsigned char>data[0]] = True
            put_entry(self.names, self.names_size, data, flags)
        self.decided = {}
        self.size = 1 << 12   # non-ASCII values only: a few per page
        self.table = new_table(self.size)

    def __dealloc__(self):
        if self.table is not NULL:
            self.clear()
            free(self.table)
        if self.tokens is not NULL:
            for i in range(self.tokens_size):
                free(self.tokens[i].value)
            free(self.tokens)
        if self.names is not NULL:
            for i in range(self.names_size):
                free(self.names[i].value)
            free(self.names)

    def mask_of_value(self, str value):
        """The bit set the walk gives a class or id value (for the tests: value_mask's)."""
        data = value.encode("utf-8", "surrogatepass")
        return self.mask_of(<const char*>data)

    cdef long token_bit(self, const char* t, Py_ssize_t n) noexcept:
        cdef size_t h, i
        cdef MaskEntry* e
        if not (self.token_lengths[<unsigned char>t[0]] >> (n - 1)) & 1:
            return 0   # no token of this length starts so (most words of class values): no hashing
        h = fnv1a(<const unsigned char*>t, n)
        i = h & (self.tokens_size - 1)
        e = &self.tokens[i]
        while e.value is not NULL:
            if e.hash == h and e.len == n and memcmp(e.value, t, n) == 0:
                return e.mask
            i = (i + 1) & (self.tokens_size - 1)
            e = &self.tokens[i]
        return 0

    cdef long name_flags(self, const char* name) noexcept:
        """NAME_SEMANTIC | NAME_PYTHON: is the tag name in ``semantic``, in ``python_tags``?"""
        cdef Py_ssize_t n
        cdef size_t h, i
        cdef MaskEntry* e
        if not self.first[<unsigned char>name[0]]:
            return 0
        n = strlen(name)
        h = fnv1a(<const unsigned char*>name, n)
        i = h & (self.names_size - 1)
        e = &self.names[i]
        while e.value is not NULL:
            if e.hash == h and e.len == n and memcmp(e.value, name, n) == 0:
                return e.mask
            i = (i + 1) & (self.names_size - 1)
            e = &self.names[i]
        return 0

    def tag_flags(self, str tag):
        """(in semantic, in python_tags) as the walk sees a tag name (for the tests)."""
        data = tag.encode("utf-8")
        cdef long flags = self.name_flags(<const char*>data)
        return bool(flags & NAME_SEMANTIC), bool(flags & NAME_PYTHON)

    cdef long ascii_mask(self, const char* value) noexcept:
        """value_mask of an ASCII value: its tokens are the runs of letters and digits, split
        where a lower-case letter meets an upper-case one (class_tokens), lower-cased; -1 for
        a value that is not ASCII (met on the way)."""
        cdef char token[64]
        cdef Py_ssize_t i = 0, n = 0
        cdef bint long_token = False
        cdef long mask = 0
        cdef char c, prev = 0
        while True:
            c = value[i]
            if (b'a' <= c <= b'z') or (b'0' <= c <= b'9') or (b'A' <= c <= b'Z'):
                if b'A' <= c <= b'Z':
                    if b'a' <= prev <= b'z' and n:
                        # camel case: a token ends
                        if not long_token:
                            mask |= self.token_bit(token, n)
                        n = 0
                        long_token = False
                    c += 32
                if n < 64:
                    token[n] = c
                    n += 1
                else:
                    long_token = True   # longer than any token of TOKENS
            elif <unsigned char>c >= 0x80:
                return -1
            else:
                if n and not long_token:
                    mask |= self.token_bit(token, n)
                n = 0
                long_token = False
                if c == 0:
                    break
            prev = value[i]
            i += 1
        return mask

    cdef void clear(self) noexcept:
        cdef size_t i
        for i in range(self.size):
            free(self.table[i].value)
            self.table[i].value = NULL
        self.count = 0

    cdef long mask_of(self, const char* value) except -1:
        """value_mask of a class or id value: ASCII ones here, from their tokens (cheaper than a
        lookup in a cache big enough to hit: that one's misses went to memory), others by
        value_mask (Unicode lower-casing), cached by their UTF-8 bytes."""
        cdef Py_ssize_t n
        cdef size_t h, i
        cdef MaskEntry* e
        cdef long mask = self.ascii_mask(value)
        if mask >= 0:
            return mask
        n = len(value)
        h = fnv1a(<const unsigned char*>value, n)
        i = h & (self.size - 1)
        e = &self.table[i]
        while e.value is not NULL:
            if e.hash == h and e.len == n and memcmp(e.value, value, n) == 0:
                return e.mask
            i = (i + 1) & (self.size - 1)
            e = &self.table[i]
        mask = self.value_mask(PyUnicode_DecodeUTF8(value, n, NULL))
        if self.count >= self.size // 2:
            self.clear()
            return mask
        e.value = <char*>malloc(n + 1)
        if e.value is NULL:
            raise MemoryError()
        memcpy(e.value, value, n + 1)
        e.hash = h
        e.len = n
        e.mask = mask
        self.count += 1
        return mask


cdef int add_part(Buf* b, const char* part) except -1:
    """One attribute of a cache key: "\x01value", or "\x02" when there is none."""
    if part is NULL:
        return buf_add(b, b"\x02", 1)
    buf_add(b, b"\x01", 1)
    return buf_add(b, part, len(part))


cdef inline const char* attr_text(xmlAttr* a, bint* plain) noexcept:
    """An attribute's value as el.get() reads it when it is one text node (as libxml2's HTML parser
    makes them) or none; otherwise plain[0] becomes False (the caller asks lxml)."""
    cdef xmlNode* t = a.children
    if t is NULL:
        return b""
    if t.next is NULL and t.type == XML_TEXT_NODE and t.content is not NULL:
        return <const char*>t.content
    plain[0] = False
    return b""


cdef struct FamilyRec:
    # a record (a node) of a list of sibling records: its family is (parent, tag)
    Py_ssize_t parent
    const char* tag
    Py_ssize_t tag_len
    Py_ssize_t node
    Py_ssize_t stamp        # the first paragraph that meets it
    Py_ssize_t depth


cdef int compare_family(const void* a, const void* b) noexcept nogil:
    cdef const FamilyRec* x = <const FamilyRec*>a
    cdef const FamilyRec* y = <const FamilyRec*>b
    cdef Py_ssize_t n
    cdef int c
    if x.parent != y.parent:
        return -1 if x.parent < y.parent else 1
    n = x.tag_len if x.tag_len < y.tag_len else y.tag_len
    c = memcmp(x.tag, y.tag, n)
    if c != 0:
        return c
    if x.tag_len != y.tag_len:
        return -1 if x.tag_len < y.tag_len else 1
    return -1 if x.node < y.node else (1 if x.node > y.node else 0)


cdef int compare_u64(const void* a, const void* b) noexcept nogil:
    cdef unsigned long long x = (<const unsigned long long*>a)[0], y = (<const unsigned long long*>b)[0]
    return -1 if x < y else (1 if x > y else 0)


cdef inline bint same_family(const FamilyRec* x, const FamilyRec* y) noexcept nogil:
    return x.parent == y.parent and x.tag_len == y.tag_len and memcmp(x.tag, y.tag, x.tag_len) == 0


cdef class PageTree:
    """Where each paragraph sits among justext-plus's evidence, by engine XPath (from the compiled walk).

    ``kinds`` (XPath -> boilerplate kind), ``hints`` (XPaths of main-content
    hints) and ``why`` (XPath -> element description) are what
    ``JustextPlusExtractor.regions`` finds, in the same order; ``chains[i]``
    are the XPaths of paragraph i's ancestors-or-self that are keys of
    ``kinds`` or in ``hints``, outermost first; :meth:`masses` is the sum of
    a per-paragraph weight over every ancestor-or-self. ``justext_plus.XPathTree``
    is the same from the XPath strings.
    """
    cdef NodeRec* nodes
    cdef Py_ssize_t n_nodes
    cdef char* arena
    cdef Py_ssize_t* para_nodes
    cdef Py_ssize_t n_paras
    cdef list keys
    cdef public dict kinds, why
    cdef public list hints, chains

    def __dealloc__(self):
        free(self.nodes)
        free(self.arena)
        free(self.para_nodes)

    cdef object key(self, Py_ssize_t i):
        """The XPath string of node i (made once)."""
        k = self.keys[i]
        if k is None:
            k = PyUnicode_DecodeUTF8(self.arena + self.nodes[i].start, self.nodes[i].length, NULL)
            self.keys[i] = k
        return k

    cdef int make_chains(self) except -1:
        cdef Py_ssize_t i, j, k, node
        cdef list memo = [None] * self.n_nodes
        cdef Py_ssize_t* todo = <Py_ssize_t*>malloc((self.n_nodes + 1) * sizeof(Py_ssize_t))
        if todo is NULL:
            raise MemoryError()
        empty = ()
        chains = []
        try:
            for i in range(self.n_paras):
                node = self.para_nodes[i]
                if node < 0:
                    chains.append(empty)
                    continue
                chain = memo[node]
                if chain is None:
                    # the nearest ancestor whose chain is known, then down again
                    k = 0
                    j = node
                    while j >= 0 and memo[j] is None:
                        todo[k] = j
                        k += 1
                        j = self.nodes[j].parent
                    chain = empty if j < 0 else memo[j]
                    while k > 0:
                        k -= 1
                        j = todo[k]
                        if self.nodes[j].evidence:
                            chain = chain + (self.key(j),)
                        memo[j] = chain
                chains.append(chain)
        finally:
            free(todo)
        self.chains = chains
        return 0

    def masses(self, weight):
        """{XPath: sum of weight[i] over the paragraphs at or below it} for the paragraphs with a
        weight, keys in the order a loop over the paragraphs and their ancestors, outermost
        first, meets them."""
        cdef Py_ssize_t i, j, k, n = self.n_paras
        cdef long long w
        cdef long long* mass
        cdef unsigned char* met
        cdef Py_ssize_t* fresh
        cdef Py_ssize_t* order
        cdef Py_ssize_t n_order = 0, n_fresh
        cdef list ws = list(weight)
        if len(ws) != n:
            raise ValueError("one weight per paragraph")
        for x in ws:
            if type(x) is not int or not (-(1 << 62) < x < (1 << 62)):
                return self.masses_py(ws)
        mass = <long long*>malloc((self.n_nodes + 1) * sizeof(long long))
        met = <unsigned char*>malloc(self.n_nodes + 1)
        fresh = <Py_ssize_t*>malloc((2 * self.n_nodes + 1) * sizeof(Py_ssize_t))
        if mass is NULL or fresh is NULL or met is NULL:
            free(mass)
            free(met)
            free(fresh)
            raise MemoryError()
        order = fresh + self.n_nodes
        try:
            for j in range(self.n_nodes):
                mass[j] = 0
                met[j] = False
            for i in range(n):
                w = ws[i]
                if w == 0 or self.para_nodes[i] < 0:
                    continue
                j = self.para_nodes[i]
                n_fresh = 0
                while j >= 0:
                    if not met[j]:
                        met[j] = True
                        fresh[n_fresh] = j
                        n_fresh += 1
                    mass[j] += w
                    j = self.nodes[j].parent
                for k in range(n_fresh - 1, -1, -1):
                    order[n_order] = fresh[k]
                    n_order += 1
            out = {}
            for k in range(n_order):
                out[self.key(order[k])] = mass[order[k]]
            return out
        finally:
            free(mass)
            free(met)
            free(fresh)

    cdef dict masses_py(self, list ws):
        cdef Py_ssize_t i, j
        out = {}
        for i in range(self.n_paras):
            w = ws[i]
            if not w or self.para_nodes[i] < 0:
                continue
            chain = []
            j = self.para_nodes[i]
            while j >= 0:
                chain.append(self.key(j))
                j = self.nodes[j].parent
            for x in reversed(chain):
                out[x] = out.get(x, 0) + w
        return out

    def record_families(self, list words, list eligible, frozenset self_tags, Py_ssize_t min_records,
                        double min_record_words, double max_words, double min_total, double shape_share=0):
        """``justext_plus_structure.record_families``' lists of sibling records before the shape
        test, over the nodes instead of the XPath strings: [(total words, {"[k]": paragraph
        indices}, the records' depth), ...] in the order the Python code makes them (a record in
        the order its first paragraph meets it, outer before inner), or None for input it does not
        cover (then the caller runs the Python code). A record is an element below ``html/x``
        above an eligible paragraph with words (or the paragraph's own element when its tag is in
        ``self_tags``); a family is the records of one tag under one parent. With ``shape_share``,
        only the families passing the shape test too (the records whose paragraphs have the
        commonest set of tag paths below the record are at least that share of them), the tag
        paths compared by 64-bit hashes of their tags (a collision, ~1e-15 on a page, would make
        two shapes one)."""
        cdef Py_ssize_t n = self.n_paras, n_nodes = self.n_nodes, i, j, k, node, n_touched = 0, start, f
        cdef long long w
        cdef long long* total = NULL
        cdef Py_ssize_t* depth = NULL
        cdef Py_ssize_t* stamp = NULL
        cdef Py_ssize_t* slot = NULL
        cdef FamilyRec* touched = NULL
        cdef long long* ws = NULL
        cdef long long fam_total
        cdef const char* key
        cdef Py_ssize_t key_len, cut
        if len(words) != n or len(eligible) != n:
            return None
        ws = <long long*>malloc((n + 1) * sizeof(long long))
        total = <long long*>malloc((n_nodes + 1) * sizeof(long long))
        depth = <Py_ssize_t*>malloc((n_nodes + 1) * sizeof(Py_ssize_t))
        stamp = <Py_ssize_t*>malloc((n_nodes + 1) * sizeof(Py_ssize_t))
        slot = <Py_ssize_t*>malloc((n_nodes + 1) * sizeof(Py_ssize_t))
        touched = <FamilyRec*>malloc((n_nodes + 1) * sizeof(FamilyRec))
        try:
            if ws is NULL or total is NULL or depth is NULL or stamp is NULL or slot is NULL or touched is NULL:
                raise MemoryError()
            for i in range(n):
                x = words[i]
                if not eligible[i] or not x:
                    ws[i] = 0
                    continue
                if type(x) is not int or not (0 < x < (1 << 40)):
                    return None
                ws[i] = x
                if self.para_nodes[i] < 0 or self.para_nodes[i] >= n_nodes:
                    return None
            # a node's depth is its XPath's number of steps (its parent's plus one: a node's XPath
            # is its parent's plus "/tag[k]"); each node's record: its tag and "[k]" in the arena
            for j in range(n_nodes):
                total[j] = 0
                stamp[j] = -1
                slot[j] = -1
                k = self.nodes[j].parent
                if k >= j:
                    return None          # (a parent is made before its children)
                if k >= 0:
                    depth[j] = depth[k] + 1
                else:
                    key = self.arena + self.nodes[j].start
                    depth[j] = 0
                    for i in range(self.nodes[j].length):
                        depth[j] += key[i] == 47            # '/'
                    if self.nodes[j].length == 1:
                        depth[j] = 0                          # the path "/"
            # what each record holds: the words of its paragraphs, and the first paragraph met
            for i in range(n):
                w = ws[i]
                if not w:
                    continue
                node = self.para_nodes[i]
                if depth[node] < 2:
                    continue
                if depth[node] >= 3 and self.tag_in(node, self_tags):
                    total[node] += w
                    if stamp[node] < 0:
                        stamp[node] = i
                j = self.nodes[node].parent
                while j >= 0 and depth[j] >= 3:
                    total[j] += w
                    if stamp[j] < 0:
                        stamp[j] = i
                    j = self.nodes[j].parent
            # the records grouped by family (parent, tag), families in the order they were met
            for j in range(n_nodes):
                if stamp[j] < 0:
                    continue
                key = self.arena + self.nodes[j].start
                key_len = self.nodes[j].length
                k = key_len - 1
                while k >= 0 and key[k] != 47:
                    k -= 1
                cut = k + 1
                while cut < key_len and key[cut] != 91:     # '['
                    cut += 1
                if k < 0 or cut >= key_len:
                    return None          # (a step without "[k]": the Python code decides)
                touched[n_touched].parent = self.nodes[j].parent
                touched[n_touched].tag = key + k + 1
                touched[n_touched].tag_len = cut - k - 1
                touched[n_touched].node = j
                touched[n_touched].stamp = stamp[j]
                touched[n_touched].depth = depth[j]
                n_touched += 1
            qsort(touched, n_touched, sizeof(FamilyRec), compare_family)
            found = []
            start = 0
            while start < n_touched:
                f = start + 1
                while f < n_touched and same_family(&touched[start], &touched[f]):
                    f += 1
                fam_total = 0
                for k in range(start, f):
                    fam_total += total[touched[k].node]
                if (f - start >= min_records and fam_total >= min_total
                        and min_record_words * (f - start) <= fam_total <= max_words * (f - start)):
                    first = min(touched[k].stamp for k in range(start, f))
                    # (families met by the same paragraph first: the outer one first)
                    found.append((first, touched[start].depth, start, f, fam_total))
                start = f
            if not found:
                return []
            # each kept family's records in the order met, and their paragraphs
            found.sort()
            out = []
            members = []
            record_nodes = []          # per family, its records' nodes
            for first, k, start, f, fam_total in found:
                records = {}
                nodes_of = []
                for k in sorted(range(start, f), key=lambda r: touched[r].stamp):
                    node = touched[k].node
                    key = self.arena + self.nodes[node].start
                    cut = touched[k].tag - key + touched[k].tag_len
                    m = []
                    slot[node] = len(members)
                    members.append(m)
                    nodes_of.append(node)
                    records[PyUnicode_DecodeUTF8(key + cut, self.nodes[node].length - cut, NULL)] = m
                out.append((fam_total, records, touched[start].depth))
                record_nodes.append(nodes_of)
            for i in range(n):
                if not ws[i]:
                    continue
                node = self.para_nodes[i]
                if depth[node] < 2:
                    continue
                if slot[node] >= 0 and depth[node] >= 3 and self.tag_in(node, self_tags):
                    members[slot[node]].append(i)
                j = self.nodes[node].parent
                while j >= 0 and depth[j] >= 3:
                    if slot[j] >= 0:
                        members[slot[j]].append(i)
                    j = self.nodes[j].parent
            if shape_share > 0:
                out = [family for family, nodes_of in zip(out, record_nodes)
                       if self.shapes_agree(family[1], nodes_of, shape_share)]
            return out
        finally:
            free(ws)
            free(total)
            free(depth)
            free(stamp)
            free(slot)
            free(touched)

    cdef unsigned long long tag_hash(self, Py_ssize_t node) noexcept:
        """FNV-1a of the tag of node's last step."""
        cdef const char* key = self.arena + self.nodes[node].start
        cdef Py_ssize_t n = self.nodes[node].length, k = n - 1, cut
        cdef unsigned long long h = 14695981039346656037ULL
        while k >= 0 and key[k] != 47:
            k -= 1
        cut = k + 1
        while cut < n and key[cut] != 91:
            h = (h ^ <unsigned char>key[cut]) * 1099511628211ULL
            cut += 1
        return h

    cdef bint shapes_agree(self, dict records, list nodes_of, double share) except -1:
        """record_families' shape test of one family: {"[k]": members} of the records ``nodes_of``
        (each an ancestor-or-self of its members' nodes)."""
        cdef Py_ssize_t n = len(records), r = 0, m, k, run, best = 0, x, top
        cdef unsigned long long h
        cdef unsigned long long* shape = <unsigned long long*>malloc((n + 1) * sizeof(unsigned long long))
        cdef unsigned long long* paths = NULL
        cdef Py_ssize_t cap = 0
        if shape is NULL:
            raise MemoryError()
        try:
            for members, top_value in zip(records.values(), nodes_of):
                top = top_value
                m = len(members)
                if m > cap:
                    free(paths)
                    cap = m
                    paths = <unsigned long long*>malloc(cap * sizeof(unsigned long long))
                    if paths is NULL:
                        raise MemoryError()
                for k in range(m):
                    # the tags below the record down to the paragraph's element
                    h = 1469598103934665603ULL
                    x = self.para_nodes[<Py_ssize_t>members[k]]
                    while x != top and x >= 0:
                        h = (h ^ self.tag_hash(x)) * 1099511628211ULL + 0x9E3779B97F4A7C15ULL
                        x = self.nodes[x].parent
                    paths[k] = h
                qsort(paths, m, sizeof(unsigned long long), compare_u64)
                # the record's set of paths, as one hash
                h = 7809847782465536322ULL
                for k in range(m):
                    if k == 0 or paths[k] != paths[k - 1]:
                        h = (h ^ paths[k]) * 1099511628211ULL
                shape[r] = h
                r += 1
            qsort(shape, n, sizeof(unsigned long long), compare_u64)
            run = 0
            for k in range(n):
                run = run + 1 if k > 0 and shape[k] == shape[k - 1] else 1
                if run > best:
                    best = run
            return not (best < share * n)
        finally:
            free(shape)
            free(paths)

    cdef bint tag_in(self, Py_ssize_t node, frozenset tags) except -1:
        """Whether the tag of node's last step is in ``tags``."""
        cdef const char* key = self.arena + self.nodes[node].start
        cdef Py_ssize_t n = self.nodes[node].length, k = n - 1, cut
        while k >= 0 and key[k] != 47:
            k -= 1
        cut = k + 1
        while cut < n and key[cut] != 91:
            cut += 1
        return PyUnicode_DecodeUTF8(key + k + 1, cut - k - 1, NULL) in tags

    def structure(self):
        """``(parents, para_nodes, evidence)`` for the compiled decide()
        (``corpustool.native.justext_plus_decide``): each node's parent and each paragraph's node
        (-1: none) as bytes of C ``Py_ssize_t`` (a parent comes before its children), and
        {XPath: node} of the keys of ``kinds`` and of the hints."""
        cdef Py_ssize_t i
        parents = bytearray(self.n_nodes * sizeof(Py_ssize_t))
        cdef Py_ssize_t* par = <Py_ssize_t*><char*>parents
        evidence = {}
        for i in range(self.n_nodes):
            par[i] = self.nodes[i].parent
            if self.nodes[i].evidence:
                evidence[self.key(i)] = i
        para_nodes = (<char*>self.para_nodes)[:self.n_paras * sizeof(Py_ssize_t)]
        return bytes(parents), para_nodes, evidence

    def node_key(self, Py_ssize_t i):
        """The XPath of node i."""
        if not 0 <= i < self.n_nodes:
            raise IndexError(i)
        return self.key(i)


cdef class _Walk:
    cdef Buf pending, chunk
    cdef Level* levels
    cdef Py_ssize_t n_levels, cap_levels
    cdef Counter* counters
    cdef Py_ssize_t n_counters, cap_counters
    cdef OpenNode* open
    cdef Py_ssize_t n_open, cap_open
    cdef Py_ssize_t link_chars
    cdef bint in_link, after_br
    cdef bint keep_blanks   # keep_blank_separators: a blank chunk after text is one space
    cdef list blocks
    cdef cetree._Document doc
    # segment(): the open paragraph's path node
    cdef object para_node
    # features(): path strings of the open levels and of the open paragraph
    cdef bint features
    cdef Buf dom, xpath, para_dom, para_xpath, text, lower
    cdef bint para_heading, para_none
    # the last paragraph's DOM path (its bytes in last_dom), tag and "select" mark: the next
    # paragraph often has the same path (text around a child paragraph, runs split by <br>s)
    cdef Buf last_dom
    cdef object last_dom_path, last_tag
    cdef int last_select
    cdef StopSet stopset
    cdef object stoplist
    cdef Rows rows          # extract(): the paragraphs' rows go here instead of into tuples
    # extract_evidence(): the elements as nodes with parent links (node 0 is the
    # path "/" of text before the root), each with its XPath in `arena`, and the
    # candidate elements of justext-plus's evidence, in document order
    cdef EvidenceRules rules
    cdef NodeRec* nodes
    cdef Py_ssize_t n_nodes, cap_nodes
    cdef Buf arena
    cdef Py_ssize_t para_id
    cdef list semantic_candidates, other_candidates
    cdef bint unusual       # a tree the compiled evidence does not cover (namespaced elements)
    # the last parent holds_parent counted, and its characters (sibling forms share a parent:
    # each counted once, not once a form)
    cdef xmlNode* counted_parent
    cdef Py_ssize_t counted_chars

    def __cinit__(self):
        self.para_node = None
        self.para_none = True
        self.blocks = []

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self.n_levels):
            Py_XDECREF(self.levels[i].path)
        free(self.levels)
        free(self.counters)
        free(self.open)
        free(self.pending.data)
        free(self.chunk.data)
        free(self.dom.data)
        free(self.xpath.data)
        free(self.para_dom.data)
        free(self.para_xpath.data)
        free(self.last_dom.data)
        free(self.text.data)
        free(self.lower.data)
        free(self.nodes)
        free(self.arena.data)

    # -- paths -----------------------------------------------------------------------

    cdef object path(self, Py_ssize_t depth):
        """The path node of open level ``depth`` (None above the root), created on first use."""
        cdef Level* lv
        if depth < 0:
            return None
        lv = &self.levels[depth]
        if lv.path is NULL:
            node = [self.path(depth - 1), tag_of(lv.node, lv.image), lv.position, None]
            Py_INCREF(node)
            lv.path = <PyObject*>node
        return <object>lv.path

    cdef int para_at_level(self) except -1:
        """The open paragraph's path is the innermost open level's (para_node = node)."""
        cdef Level* lv
        if not self.features:
            self.para_node = self.path(self.n_levels - 1)
            return 0
        if self.n_levels == 0:
            self.para_none = True
            self.para_id = 0
            return 0
        lv = &self.levels[self.n_levels - 1]
        self.para_id = lv.node_id
        self.para_none = False
        self.para_heading = lv.heading
        self.para_dom.len = 0
        buf_add(&self.para_dom, self.dom.data, lv.dom_len)
        self.para_xpath.len = 0
        buf_add(&self.para_xpath, self.xpath.data, lv.xpath_len)
        return 0

    cdef int para_at_leaf(self, xmlNode* c, bint image, Py_ssize_t position, Py_ssize_t leaf_id) except -1:
        """The open paragraph's path is a leaf's below the innermost level (para_node = [node, tag, position])."""
        cdef Py_ssize_t start
        self.para_id = leaf_id
        if not self.features:
            self.para_node = [self.path(self.n_levels - 1), tag_of(c, image), position, None]
            return 0
        self.para_none = False
        self.para_dom.len = 0
        self.para_xpath.len = 0
        if self.n_levels:
            buf_add(&self.para_dom, self.dom.data, self.levels[self.n_levels - 1].dom_len)
            buf_add(&self.para_xpath, self.xpath.data, self.levels[self.n_levels - 1].xpath_len)
            self.para_heading = self.levels[self.n_levels - 1].heading
        else:
            self.para_heading = False
        if self.para_dom.len:
            buf_add(&self.para_dom, b".", 1)
        start = self.para_dom.len
        add_tag(&self.para_dom, c, image)
        buf_add(&self.para_xpath, b"/", 1)
        add_tag(&self.para_xpath, c, image)
        add_position(&self.para_xpath, position)
        if not self.para_heading:
            self.para_heading = tag_is_heading(<unsigned char*>self.para_dom.data + start,
                                               self.para_dom.len - start)
        return 0

    cdef Py_ssize_t count(self, xmlNode* c, bint image) except -1:
        """Position of c among the same-tag siblings counted so far at the innermost level."""
        cdef const char* name = <const char*>c.name
        cdef const char* href = NULL
        cdef Py_ssize_t i, start = self.levels[self.n_levels - 1].counters if self.n_levels else 0
        cdef Counter* counter
        if image:
            name = IMG
        elif c.ns is not NULL:
            href = <const char*>c.ns.href
        for i in range(start, self.n_counters):
            counter = &self.counters[i]
            if same_str(counter.name, name) and same_str(counter.href, href):
                counter.count += 1
                return counter.count
        if self.n_counters == self.cap_counters:
            self.cap_counters = max(64, 2 * self.cap_counters)
            counter = <Counter*>realloc(self.counters, self.cap_counters * sizeof(Counter))
            if counter is NULL:
                raise MemoryError()
            self.counters = counter
        counter = &self.counters[self.n_counters]
        self.n_counters += 1
        counter.name = name
        counter.href = href
        counter.count = 1
        return 1

    cdef int push_level(self, xmlNode* c, bint image, Py_ssize_t position) except -1:
        cdef Level* lv
        cdef Py_ssize_t start
        cdef bint heading = False
        if self.n_levels == self.cap_levels:
            self.cap_levels = max(32, 2 * self.cap_levels)
            lv = <Level*>realloc(self.levels, self.cap_levels * sizeof(Level))
            if lv is NULL:
                raise MemoryError()
            self.levels = lv
        if self.features:
            if self.n_levels:
                lv = &self.levels[self.n_levels - 1]
                self.dom.len = lv.dom_len
                self.xpath.len = lv.xpath_len
                heading = lv.heading
            else:
                self.dom.len = self.xpath.len = 0
            if self.dom.len:
                buf_add(&self.dom, b".", 1)
            start = self.dom.len
            add_tag(&self.dom, c, image)
            buf_add(&self.xpath, b"/", 1)
            add_tag(&self.xpath, c, image)
            add_position(&self.xpath, position)
            if not heading:
                heading = tag_is_heading(<unsigned char*>self.dom.data + start, self.dom.len - start)
        lv = &self.levels[self.n_levels]
        self.n_levels += 1
        lv.node = c
        lv.image = image
        lv.position = position
        lv.path = NULL
        lv.counters = self.n_counters
        lv.dom_len = self.dom.len
        lv.xpath_len = self.xpath.len
        lv.heading = heading
        lv.node_id = -1
        if self.rules is not None:
            lv.node_id = self.add_node(self.levels[self.n_levels - 2].node_id if self.n_levels > 1 else -1,
                                       self.xpath.data, self.xpath.len, NULL, False, 0)
        return 0

    cdef void pop_level(self) noexcept:
        cdef Level* lv
        self.n_levels -= 1
        lv = &self.levels[self.n_levels]
        self.n_counters = lv.counters
        Py_XDECREF(lv.path)
        lv.path = NULL

    cdef int push_open(self, xmlNode* c, Kind kind) except -1:
        cdef OpenNode* o
        if self.n_open == self.cap_open:
            self.cap_open = max(32, 2 * self.cap_open)
            o = <OpenNode*>realloc(self.open, self.cap_open * sizeof(OpenNode))
            if o is NULL:
                raise MemoryError()
            self.open = o
        self.open[self.n_open].node = c
        self.open[self.n_open].kind = kind
        self.n_open += 1
        return 0


    # -- justext-plus's evidence (extract_evidence) --------------------------------------

    cdef Py_ssize_t add_node(self, Py_ssize_t parent, const char* prefix, Py_ssize_t prefix_len,
                             xmlNode* leaf, bint image, Py_ssize_t position) except -1:
        """A new node whose XPath is prefix (+ "/tag[position]" of a leaf)."""
        cdef NodeRec* rec
        if self.n_nodes == self.cap_nodes:
            self.cap_nodes = max(256, 2 * self.cap_nodes)
            rec = <NodeRec*>realloc(self.nodes, self.cap_nodes * sizeof(NodeRec))
            if rec is NULL:
                raise MemoryError()
            self.nodes = rec
        rec = &self.nodes[self.n_nodes]
        rec.parent = parent
        rec.start = self.arena.len
        rec.evidence = False
        buf_add(&self.arena, prefix, prefix_len)
        if leaf is not NULL:
            buf_add(&self.arena, b"/", 1)
            add_tag(&self.arena, leaf, image)
            add_position(&self.arena, position)
        rec.length = self.arena.len - rec.start
        self.n_nodes += 1
        return self.n_nodes - 1

    cdef Py_ssize_t leaf_node(self, xmlNode* c, bint image, Py_ssize_t position) except -1:
        """The node of a leaf (an element without children) below the innermost level."""
        if self.n_levels:
            return self.add_node(self.levels[self.n_levels - 1].node_id, self.xpath.data,
                                 self.levels[self.n_levels - 1].xpath_len, c, image, position)
        return self.add_node(-1, b"", 0, c, image, position)

    cdef object examine(self, xmlNode* c):
        """``(semantic, kind, hint, why)`` of a candidate element of justext-plus's evidence, else None."""
        cdef EvidenceRules rules = self.rules
        cdef xmlAttr* a = c.properties
        cdef const char* name = <const char*>c.name
        cdef const char* an
        cdef const char* cls = NULL
        cdef const char* idv = NULL
        cdef const char* style = NULL
        cdef bint plain = True, other = False, semantic, special
        cdef long mask = 0
        cdef Buf b
        if c.ns is not NULL:
            return None   # the page is left to the XPath evidence (self.unusual)
        cdef const char* role = NULL
        cdef const char* itemprop = NULL
        cdef bint hidden = False, hiding = False
        cdef long flags = rules.name_flags(name)
        semantic = (flags & NAME_SEMANTIC) != 0
        special = flags != 0
        while a is not NULL:
            if a.ns is NULL:
                an = <const char*>a.name
                if an[0] == b'c' and cls is NULL and strcmp(an, b"class") == 0:
                    cls = attr_text(a, &plain)
                elif an[0] == b'i' and idv is NULL and strcmp(an, b"id") == 0:
                    idv = attr_text(a, &plain)
                elif an[0] == b'r' and role is NULL and strcmp(an, b"role") == 0:
                    role = attr_text(a, &plain)
                    other = True
                elif an[0] == b'h' and strcmp(an, b"hidden") == 0:
                    hidden = other = True
                elif an[0] == b'i' and itemprop is NULL and strcmp(an, b"itemprop") == 0:
                    itemprop = attr_text(a, &plain)
                    other = True
                elif an[0] == b's' and style is NULL and strcmp(an, b"style") == 0:
                    style = attr_text(a, &plain)
            a = a.next
        if not plain:
            # an attribute value of several nodes: lxml reads it, the rules decide
            if self.doc is None:
                raise NeedsTree("an attribute value of several nodes")   # never made by the SAX build
            el = cetree.elementFactory(self.doc, c)
            if not rules.candidate(el):
                return None
            kind, hint = rules.evidence(el)
            return (semantic, kind, hint, rules.describe(el) if kind else None)
        if True:
            if cls is not NULL and cls[0] != 0:
                mask |= rules.mask_of(cls)
            if idv is not NULL and idv[0] != 0:
                mask |= rules.mask_of(idv)
            if style is not NULL and style[0] != 0:
                # only a style that says display:none or visibility:hidden (any case) counts
                if not is_ascii(style) or has_word_ci(style, b"display") or has_word_ci(style, b"visibility"):
                    if rules.hidden_style(PyUnicode_DecodeUTF8(style, len(style), NULL)):
                        hiding = other = True
            if not (semantic or other or mask):
                return None
            if special or other:
                # the rules decide; elements alike in what they read decide alike: the tag, role
                # and itemprop, the hidden flag, whether the style hides, and the class and id
                # values only through their kinds (element_kind's value_kinds: the mask)
                b.data = NULL
                b.len = b.cap = 0
                try:
                    add_part(&b, name)
                    add_part(&b, role)
                    add_part(&b, itemprop)
                    buf_add(&b, b"\x04" if hidden else b"\x05", 1)
                    buf_add(&b, b"\x04" if hiding else b"\x05", 1)
                    buf_add(&b, <const char*>&mask, sizeof(long))
                    key = b.data[:b.len]
                finally:
                    free(b.data)
                decided = rules.decided.get(key)
                if decided is None:
                    if self.doc is None:
                        # a tree of the SAX build (no lxml document): a detached element with the
                        # tag and the attributes the rules read
                        el = detached_element(c)
                    else:
                        el = cetree.elementFactory(self.doc, c)
                    decided = rules.evidence(el)
                    if len(rules.decided) >= 65536:
                        rules.decided.clear()
                    rules.decided[key] = decided
                kind, hint = decided
                return (semantic, kind, hint, self.description(name, cls, idv) if kind else None)
            kind = rules.mask_kinds[mask]
            if not kind:
                return None
            return (False, kind, False, self.description(name, cls, idv))

    cdef object description(self, const char* name, const char* cls, const char* idv):
        """justext_plus.describe(el): f"{el.tag}.{el.get('class') or ''}#{el.get('id') or ''}"[:DESCRIPTION_CHARS]."""
        cdef Buf b
        if True:
            b.data = NULL
            b.len = b.cap = 0
            try:
                buf_add(&b, name, len(name))
                buf_add(&b, b".", 1)
                if cls is not NULL:
                    buf_add(&b, cls, len(cls))
                buf_add(&b, b"#", 1)
                if idv is not NULL:
                    buf_add(&b, idv, len(idv))
                why = PyUnicode_DecodeUTF8(b.data, b.len, NULL)
            finally:
                free(b.data)
            if len(why) > 200:
                why = why[:200]
            return why

    cdef int add_candidate(self, tuple found, Py_ssize_t node) except -1:
        if found[0]:
            self.semantic_candidates.append((node, found[1], found[2], found[3]))
        else:
            self.other_candidates.append((node, found[1], found[2], found[3]))
        return 0

    cdef PageTree page_tree(self):
        """The PageTree of the walk: regions() in the order of its queries (semantic elements
        first, then the elements named by attributes, each in document order), the first
        kind found for an XPath winning."""
        cdef PageTree tree = PageTree()
        cdef Py_ssize_t i, node
        tree.nodes = self.nodes
        tree.n_nodes = self.n_nodes
        tree.arena = self.arena.data
        self.nodes = NULL
        self.n_nodes = self.cap_nodes = 0
        self.arena.data = NULL
        self.arena.len = self.arena.cap = 0
        tree.keys = [None] * tree.n_nodes
        tree.n_paras = self.rows.n
        tree.para_nodes = <Py_ssize_t*>malloc((tree.n_paras + 1) * sizeof(Py_ssize_t))
        if tree.para_nodes is NULL:
            raise MemoryError()
        for i in range(tree.n_paras):
            tree.para_nodes[i] = self.rows.numbers[i].node
        kinds = {}
        why = {}
        hints = []
        for candidates in (self.semantic_candidates, self.other_candidates):
            for node, kind, hint, description in candidates:
                if not (kind or hint):
                    continue
                key = tree.key(node)
                if kind and key not in kinds:
                    kinds[key] = kind
                    why[key] = description
                    tree.nodes[node].evidence = True
                if hint:
                    hints.append(key)
                    tree.nodes[node].evidence = True
        tree.kinds = kinds
        tree.why = why
        tree.hints = hints
        tree.make_chains()
        return tree

    # -- ParagraphMaker --------------------------------------------------------------

    cdef int deliver(self) except -1:
        """characters() with the pending chunk: blank chunks are ignored (with keep_blanks: one space
        after text that does not end in whitespace), others end a <br> run."""
        if self.pending.len:
            if not is_blank(<unsigned char*>self.pending.data, self.pending.len):
                buf_add(&self.chunk, self.pending.data, self.pending.len)
                if self.in_link:
                    self.link_chars += normalized_length(<unsigned char*>self.pending.data, self.pending.len)
                self.after_br = False
            elif (self.keep_blanks and self.chunk.len
                    and not ends_in_space(<unsigned char*>self.chunk.data, self.chunk.len)):
                buf_add(&self.chunk, b" ", 1)
                if self.in_link:
                    self.link_chars += 1
            self.pending.len = 0
        return 0

    cdef int emit(self) except -1:
        """Close the open paragraph (if it received text)."""
        if self.chunk.len:
            if self.features:
                self.emit_features()
            else:
                raw = PyUnicode_DecodeUTF8(self.chunk.data, self.chunk.len, NULL)
                self.blocks.append((self.para_node, [raw], self.link_chars))
            self.chunk.len = 0
        self.link_chars = 0
        return 0

    cdef int emit_features(self) except -1:
        """The paragraph's row: text normalised as justext's ``normalize_whitespace(text.strip())``
        (whitespace runs with a line break -> "\\n", others -> " "), its words (``text.split()``)
        and stop words (``word.lower() in stoplist``), counted in one pass over the UTF-8 bytes."""
        cdef const unsigned char* s = <const unsigned char*>self.chunk.data
        cdef Py_ssize_t n = self.chunk.len, i = 0, k, start, n_chars = 0, n_words = 0, stop = 0
        cdef Py_ssize_t word_start = 0, j
        cdef unsigned int cp = 0
        cdef bint in_space = False, newline = False, ascii = True, space
        cdef Buf* out = &self.text
        cdef unsigned char* w
        cdef int marks = 0
        cdef unsigned char c
        out.len = 0
        if out.cap < n:
            buf_grow(out, n)   # the normalised text is never longer than the raw text
        while True:
            if i < n:
                start = i
                if s[i] < 0x80:
                    cp = s[i]
                    i += 1
                else:
                    cp = next_cp(s, &i, n)
                space = is_space(cp)
            else:
                space = True
            if space:
                if not in_space and out.len > word_start:
                    # a word ends: out[word_start:] ; is it a stop word?
                    n_words += 1
                    k = out.len - word_start
                    c = <unsigned char>out.data[word_start]
                    if ascii and not self.stopset.may_have(c + 32 if b'A' <= c <= b'Z' else c, k):
                        pass   # no entry of this length starts with this letter
                    elif ascii:
                        # ASCII: str.lower() is A-Z -> a-z; look the bytes up in the C set
                        self.lower.len = 0
                        buf_add(&self.lower, out.data + word_start, k)
                        w = <unsigned char*>self.lower.data
                        for j in range(k):
                            if b'A' <= w[j] <= b'Z':
                                w[j] += 32
                        stop += self.stopset.has(w, k)
                    else:
                        stop += self.stopset.other_word(out.data + word_start, out.len - word_start)
                if i >= n:
                    break
                if cp == 0x0a or cp == 0x0d:
                    newline = True
                in_space = True
                continue
            if in_space:
                if out.len:
                    out.data[out.len] = 10 if newline else 32   # "\n" or " "
                    out.len += 1
                    n_chars += 1
                in_space = False
                newline = False
                word_start = out.len
                ascii = True
            elif out.len == 0:
                word_start = 0
                ascii = True
            if cp >= 0x80:
                ascii = False
                if cp == 0xa9:
                    marks |= MARK_COPYRIGHT   # "\xa9" in text
            elif cp == b'y' and out.len >= 4 and memcmp(out.data + out.len - 4, b"&cop", 4) == 0:
                marks |= MARK_COPYRIGHT       # "&copy" in text
            if i - start == 1:
                out.data[out.len] = <char>cp
                out.len += 1
            else:
                memcpy(out.data + out.len, s + start, i - start)
                out.len += i - start
            n_chars += 1
            # the ASCII characters that continue the word, at once: what the steps
            # above do for each (not a space, not the first of a word)
            while i < n:
                c = s[i]
                if c >= 0x80 or (c <= 0x20 and is_space(c)):
                    break
                if c == b'y' and out.len >= 4 and memcmp(out.data + out.len - 4, b"&cop", 4) == 0:
                    marks |= MARK_COPYRIGHT
                out.data[out.len] = <char>c
                out.len += 1
                i += 1
                n_chars += 1
        if n_chars == 0:
            # ParagraphMaker keeps a block only when its normalised text is not empty
            return 0
        text = PyUnicode_DecodeUTF8(out.data, out.len, NULL)
        if self.para_none:
            dom_path, xpath, heading = "", "/", False
        elif (self.last_dom_path is not None and self.last_dom.len == self.para_dom.len
                and memcmp(self.last_dom.data, self.para_dom.data, self.para_dom.len) == 0):
            dom_path = self.last_dom_path
            xpath = PyUnicode_DecodeUTF8(self.para_xpath.data, self.para_xpath.len, NULL)
            heading = self.para_heading
        else:
            dom_path = PyUnicode_DecodeUTF8(self.para_dom.data, self.para_dom.len, NULL)
            xpath = PyUnicode_DecodeUTF8(self.para_xpath.data, self.para_xpath.len, NULL)
            heading = self.para_heading
            self.last_dom.len = 0
            buf_add(&self.last_dom, self.para_dom.data, self.para_dom.len)
            self.last_dom_path = dom_path
            self.last_tag = None
        if self.rows is not None:
            if self.para_none:
                tag = ""
            elif self.last_tag is not None and dom_path is self.last_dom_path:
                tag = self.last_tag
                marks |= self.last_select
            else:
                self.last_select = MARK_SELECT if has_bytes(self.para_dom.data, self.para_dom.len, b"select", 6) else 0
                marks |= self.last_select
                # dom_path.rpartition(".")[2]: a "." byte is the character "." in UTF-8
                j = self.para_dom.len
                while j > 0 and self.para_dom.data[j - 1] != b'.':
                    j -= 1
                tag = dom_path if j == 0 else PyUnicode_DecodeUTF8(self.para_dom.data + j, self.para_dom.len - j,
                                                                     NULL)
                if dom_path is self.last_dom_path:
                    self.last_tag = tag
            self.rows.add(text, dom_path, xpath, heading, n_chars, n_words, stop, self.link_chars, self.para_id,
                          tag, marks)
        else:
            self.blocks.append((text, dom_path, xpath, heading, n_chars, n_words, stop, self.link_chars))
        return 0

    cdef int start_kept(self, xmlNode* c, Kind kind) except -1:
        """Start of an element the cleaned tree keeps; it is a leaf when it has no element-like child."""
        cdef bint image = kind == K_IMAGE
        cdef Py_ssize_t position, leaf_id = -1
        self.deliver()
        position = self.count(c, image)
        if next_element_like(c.children) is NULL:
            # a leaf: start and end at once
            if self.rules is not None:
                found = self.examine(c)
                if found is not None or kind == K_PARA or (kind == K_BR and self.after_br):
                    leaf_id = self.leaf_node(c, image, position)
                if found is not None:
                    self.add_candidate(found, leaf_id)
            if kind == K_PARA or (kind == K_BR and self.after_br):
                self.emit()
                self.para_at_leaf(c, image, position, leaf_id)
            elif kind == K_BR:
                self.after_br = True
                buf_add(&self.chunk, b" ", 1)
            else:
                self.after_br = False
                if kind == K_A:
                    self.in_link = True
            collect_text(&self.pending, c.children)
            self.deliver()
            if kind == K_PARA:
                self.emit()
                self.para_at_level()
            elif kind == K_A:
                self.in_link = False
            collect_text(&self.pending, c.next)
            return 0
        self.push_level(c, image, position)
        if self.rules is not None:
            found = self.examine(c)
            if found is not None:
                self.add_candidate(found, self.levels[self.n_levels - 1].node_id)
        if kind == K_PARA or (kind == K_BR and self.after_br):
            self.emit()
            self.para_at_level()
        elif kind == K_BR:
            self.after_br = True
            buf_add(&self.chunk, b" ", 1)
        else:
            self.after_br = False
            if kind == K_A:
                self.in_link = True
        collect_text(&self.pending, c.children)
        self.push_open(c, kind)
        return 1

    cdef bint holds_parent(self, xmlNode* c) noexcept nogil:
        """justext_plus.holds_parent: c holds at least half of its parent element's text. An
        unwrapped element's evidence marks its parent only then."""
        cdef xmlNode* parent = c.parent
        if parent is NULL or parent.type != XML_ELEMENT_NODE:
            return True
        if parent is not self.counted_parent:
            self.counted_parent = parent
            self.counted_chars = text_chars(parent)
        return 2 * text_chars(c) >= self.counted_chars

    cdef int end_open(self) except -1:
        """End of the innermost open (descended) element."""
        self.n_open -= 1
        cdef xmlNode* c = self.open[self.n_open].node
        cdef Kind kind = self.open[self.n_open].kind
        if kind == K_UNWRAP:
            collect_text(&self.pending, c.next)   # the tail joins the text before
            return 0
        self.deliver()
        self.pop_level()
        if kind == K_PARA:
            self.emit()
            self.para_at_level()
        elif kind == K_A:
            self.in_link = False
        collect_text(&self.pending, c.next)
        return 0

    cdef int visit(self, xmlNode* c) except -1:
        """Start of node c; returns 1 when its children are to be walked (it stays open)."""
        cdef Kind kind
        if c.type == XML_COMMENT_NODE or c.type == XML_ENTITY_REF_NODE:
            collect_text(&self.pending, c.next)   # removed: the tail joins the text before
            return 0
        if c.type == XML_PI_NODE:
            # processing instructions stay in the cleaned tree: a chunk boundary
            self.deliver()
            collect_text(&self.pending, c.next)
            return 0
        if c.ns is not NULL and c.ns.href is not NULL:
            kind = K_PLAIN   # "{uri}name" is none of the known tags
            self.unusual = True
        else:
            kind = tag_kind(<const char*>c.name)
        if kind == K_LINK:
            if self.doc is None:
                rel = attr_value(c, b"rel")
            else:
                rel = cetree.elementFactory(self.doc, c).get("rel") or ""
            kind = K_KILL if "stylesheet" in rel.lower() else K_PLAIN
        if kind == K_KILL:
            collect_text(&self.pending, c.next)   # subtree gone, its tail glued to the text before
            return 0
        if kind == K_UNWRAP:
            if self.rules is not None:
                # the engine numbers an unwrapped element with its parent: its evidence marks the
                # parent, when the element holds most of the parent's text (holds_parent)
                found = self.examine(c)
                if found is not None and self.holds_parent(c):
                    if self.n_levels == 0:
                        self.unusual = True
                    else:
                        self.add_candidate(found, self.levels[self.n_levels - 1].node_id)
            collect_text(&self.pending, c.children)
            if next_element_like(c.children) is NULL:
                collect_text(&self.pending, c.next)
                return 0
            self.push_open(c, kind)
            return 1
        return self.start_kept(c, kind)

    cdef list run(self, cetree._Element root):
        self.doc = root._doc
        return self.run_node(root._c_node)

    cdef list run_node(self, xmlNode* top):
        """The walk below top (an element of lxml's tree, or of the SAX build with ``doc`` None)."""
        cdef xmlNode* c = top
        cdef xmlNode* nxt
        while True:
            if self.visit(c):
                c = next_element_like(c.children)   # not NULL: visit() opened c because of it
                continue
            # c is done: go to its next sibling, closing the parents that have no more children
            while True:
                if c is top:
                    nxt = NULL
                    break
                nxt = next_element_like(c.next)
                if nxt is not NULL:
                    break
                c = c.parent
                self.end_open()
            if nxt is NULL:
                break
            c = nxt
        self.deliver()
        self.emit()
        return self.blocks


cdef cetree._Element as_element(root):
    if not isinstance(root, cetree._Element):
        raise TypeError(f"expected an lxml element, got {type(root).__name__}")
    return <cetree._Element>root


def segment(root, bint keep_blank_separators=False):
    """The paragraphs of ``justext.core.ParagraphMaker`` over the cleaned tree (see the module doc).

    ``(path_node, [raw text], link_chars)`` per paragraph, as the Python walk
    (``keep_blank_separators`` as in ``justext_engine.segment_py``).
    """
    cdef _Walk walk = _Walk()
    walk.keep_blanks = keep_blank_separators
    return walk.run(as_element(root))


def features(root, stoplist, bint keep_blank_separators=False):
    """segment() and the per-paragraph features of the engine's ``paragraph_rows`` in one pass.

    ``(text, dom_path, xpath, heading, chars, words, stop words, link chars)``
    per paragraph whose normalised text is not empty, in document order.
    """
    cdef _Walk walk = _Walk()
    walk.keep_blanks = keep_blank_separators
    walk.features = True
    walk.stoplist = stoplist
    walk.stopset = stopset_of(stoplist)
    return walk.run(as_element(root))


# -- paragraphs ----------------------------------------------------------------------

cdef extern from *:
    ctypedef unsigned long long u128 "unsigned __int128"

from libc.math cimport frexp


cdef object round4(double x):
    """round(x, 4), exactly as Python computes it (Python's own round outside 0 <= x < 2**32).

    Python rounds the exact binary value of x to 4 decimals (ties to even) and
    returns the double nearest to that decimal. Here x = m * 2**(e - 53)
    exactly, so x * 10000 = m * 10000 / 2**s with an integer numerator below
    2**67: its floor and remainder in 128-bit integers decide the rounding,
    and k / 10000.0 (one correctly rounded IEEE division of two exact doubles:
    k < 2**46) is the nearest double to the decimal k / 10000.
    """
    cdef int e, s
    cdef double f
    cdef unsigned long long m
    cdef u128 p, k, r, half
    if not (0.0 <= x < 4294967296.0):
        return round(x, 4)
    if x == 0.0:
        return 0.0
    f = frexp(x, &e)
    m = <unsigned long long>(f * 9007199254740992.0)   # f * 2**53: an integer below 2**53
    s = 53 - e
    p = <u128>m * 10000
    if s >= 127:
        return 0.0   # x * 10000 < 2**67 / 2**126: far below one half
    k = p >> s
    r = p & ((<u128>1 << s) - 1)
    half = <u128>1 << (s - 1)
    if r > half or (r == half and (k & 1)):
        k += 1
    return <double>k / 10000.0

# The keys of a paragraph's fields and features in build_py's order, with the
# values that do not vary (lang ... glue; reason of a good paragraph).
cdef dict FIELDS_TEMPLATE = {
    "text": None, "cls": None, "cf_class": None, "heading": None, "tag": None, "dom_path": None, "xpath": None,
    "reason": None, "features": None, "lang": None, "lang_score": None, "tokens": None, "glue": None,
}
cdef dict FEATURES_TEMPLATE = {"chars": None, "words": None, "link_density": None, "stopwords": None,
                               "stopword_density": None}
cdef tuple EMPTY_TUPLE = ()

cdef extern from "Python.h":
    PyTypeObject PyBaseObject_Type
    PyObject* PyType_GenericAlloc(PyTypeObject* t, Py_ssize_t n) except NULL


# A paragraph class with __slots__ gets its fields stored in its slots directly (SLOT_FIELDS'
# offsets, per class), shared with learned_features.pyx
include "paragraph_slots.pxi"


# jusText's revision (Algorithm 2.3) over integer classes, shared with learned_features.pyx
include "revision.pxi"

# context-free and final classes as small integers during classification (revision.pxi's codes)
cdef enum Cls:
    C_BAD = R_BAD
    C_GOOD = R_GOOD
    C_NEARGOOD = R_NEARGOOD
    C_SHORT = R_SHORT

_CLASS_NAMES = ("bad", "good", "neargood", "short")


cdef inline Py_ssize_t clamp(value):
    # validated non-negative integers; nothing is longer than 2**62
    return min(value, 1 << 62)


def build(list rows, params, paragraph_type, bint fast_init, good, bad):
    """``JustextEngineExtractor.build_py`` with ``classify`` compiled: paragraphs from the rows of
    ``justext_engine.paragraph_rows`` (or :func:`features`) with their features, context-free
    classes (Algorithm 2.2 of seed 003) and final classes (Algorithm 2.3 with the headings rule),
    step for step as ``classify``.
    """
    cdef Rows columns = Rows()
    for text, dom_path, xpath, heading, chars, words, stop, link_chars in rows:
        columns.add(text, dom_path, xpath, heading, chars, words, stop, link_chars)
    return make_paragraphs(columns, params, paragraph_type, fast_init, good, bad)


def extract(root, stoplist, params, paragraph_type, bint fast_init, good, bad, bint keep_blank_separators=False):
    """:func:`features` and :func:`build` without the rows in between: the engine's paragraphs."""
    cdef _Walk walk = _Walk()
    walk.keep_blanks = keep_blank_separators
    walk.features = True
    walk.stoplist = stoplist
    walk.stopset = stopset_of(stoplist)
    walk.rows = Rows()
    walk.run(as_element(root))
    return make_paragraphs(walk.rows, params, paragraph_type, fast_init, good, bad)


def extract_evidence(root, stoplist, params, paragraph_type, bint fast_init, good, bad, EvidenceRules rules,
                     bint keep_blank_separators=False):
    """:func:`extract` and, in the same walk, justext-plus's structural evidence: ``(paragraphs,
    PageTree)``, the PageTree None when the tree has namespaced elements (justext-plus then
    reads the evidence with its XPath queries)."""
    return evidence_walk(as_element(root), NULL, stoplist, params, paragraph_type, fast_init, good, bad, rules,
                         keep_blank_separators)


cdef tuple evidence_walk(cetree._Element root, xmlNode* top, stoplist, params, paragraph_type, bint fast_init,
                         good, bad, EvidenceRules rules, bint keep_blank_separators):
    """extract_evidence() below an lxml element (root), or below top, an element of the SAX build."""
    cdef _Walk walk = _Walk()
    walk.keep_blanks = keep_blank_separators
    walk.features = True
    walk.stoplist = stoplist
    walk.stopset = stopset_of(stoplist)
    walk.rows = Rows()
    walk.rules = rules
    walk.semantic_candidates = []
    walk.other_candidates = []
    walk.add_node(-1, b"/", 1, NULL, False, 0)   # node 0: the path "/" of text before the root element
    if root is not None:
        walk.run(root)
    else:
        walk.run_node(top)
    paragraphs = make_paragraphs(walk.rows, params, paragraph_type, fast_init, good, bad)
    if walk.unusual:
        return paragraphs, None
    return paragraphs, walk.page_tree()


cdef list make_paragraphs(Rows rows, params, paragraph_type, bint fast_init, good, bad):
    cdef Py_ssize_t n = rows.n, i, n_chars, n_words, stop, link_chars, length
    cdef Numbers* row
    cdef list texts = rows.texts, dom_paths = rows.dom_paths, xpaths = rows.xpaths, tags = rows.tags
    cdef Py_ssize_t length_low = clamp(params.length_low), length_high = clamp(params.length_high)
    cdef Py_ssize_t max_distance = clamp(params.max_heading_distance)
    cdef double stopwords_low = params.stopwords_low, stopwords_high = params.stopwords_high
    cdef double max_link_density = params.max_link_density
    cdef bint tokens = params.length_unit == "tokens", headings = not params.no_headings
    cdef double link_density, stop_density
    cdef int c, marks
    cdef list out = []
    if n == 0:
        return out
    cdef int* cf = <int*>malloc(5 * n * sizeof(int))
    if cf is NULL:
        raise MemoryError()
    cdef int* cls = cf + n
    cdef int* left_gb = cf + 2 * n
    cdef int* left_any = cf + 3 * n
    cdef int* heading = cf + 4 * n
    cdef Py_ssize_t* chars = <Py_ssize_t*>malloc(n * sizeof(Py_ssize_t))
    if chars is NULL:
        free(cf)
        raise MemoryError()
    names = _CLASS_NAMES
    offsets_bytes = slot_offsets(paragraph_type) if fast_init else None
    cdef const Py_ssize_t* offsets = NULL
    cdef PyObject* obj
    if offsets_bytes is not None:
        offsets = <const Py_ssize_t*><const char*>offsets_bytes
    # (a class with slots but other fields than these: its constructor)
    cdef bint dict_init = fast_init and "__slots__" not in paragraph_type.__dict__
    try:
        # -- Algorithm 2.2: context-free classes --------------------------------
        for i in range(n):
            row = &rows.numbers[i]
            n_chars = row.chars
            n_words = row.words
            stop = row.stop
            link_chars = row.link_chars
            heading[i] = row.heading and headings
            chars[i] = n_chars
            link_density = <double>link_chars / n_chars
            stop_density = <double>stop / n_words
            length = n_words if tokens else n_chars
            marks = row.marks
            if marks < 0:
                text = texts[i]
                dom_path = dom_paths[i]
                marks = ((MARK_COPYRIGHT if "\xa9" in text or "&copy" in text else 0)
                         | (MARK_SELECT if "select" in dom_path else 0))
            if link_density > max_link_density:
                c = C_BAD
            elif marks & MARK_COPYRIGHT:
                c = C_BAD
            elif marks & MARK_SELECT:
                c = C_BAD
            elif length < length_low:
                c = C_BAD if link_chars > 0 else C_SHORT
            elif stop_density >= stopwords_high:
                c = C_GOOD if length > length_high else C_NEARGOOD
            elif stop_density >= stopwords_low:
                c = C_NEARGOOD
            else:
                c = C_BAD
            cf[i] = cls[i] = c
        # -- Algorithm 2.3 (see classify for the why of each step) ---------------
        revise_classes(cf, cls, left_gb, left_any, heading, chars, n, max_distance)
        # -- the paragraphs ------------------------------------------------------
        for i in range(n):
            row = &rows.numbers[i]
            n_chars = row.chars
            n_words = row.words
            stop = row.stop
            link_chars = row.link_chars
            dom_path = dom_paths[i]
            tag = tags[i]
            if tag is None:
                tag = dom_path.rpartition(".")[2]
            link_density = <double>link_chars / n_chars
            stop_density = <double>stop / n_words
            is_good = cls[i] == C_GOOD
            # the dict literals of build_py, as copies of their key order filled in
            # (a copy of a dict is one block copy; filling a key is no insertion)
            features = PyDict_Copy(FEATURES_TEMPLATE)
            features["chars"] = n_chars
            features["words"] = n_words
            features["link_density"] = round4(link_density) if link_chars else 0.0
            features["stopwords"] = stop
            features["stopword_density"] = round4(stop_density) if stop else 0.0
            if offsets is not NULL:
                # a slotted class: the fields stored in the new object's slots, as its __init__ would
                obj = PyType_GenericAlloc(<PyTypeObject*>paragraph_type, 0)
                par = <object>obj
                Py_DECREF(par)        # (par holds the one reference)
                set_slot(obj, offsets[0], texts[i])
                set_slot(obj, offsets[1], good if is_good else bad)
                set_slot(obj, offsets[2], names[cf[i]])
                set_slot(obj, offsets[3], heading[i] != 0)
                set_slot(obj, offsets[4], tag)
                set_slot(obj, offsets[5], dom_path)
                set_slot(obj, offsets[6], xpaths[i])
                set_slot(obj, offsets[7], None if is_good else "boilerplate")
                set_slot(obj, offsets[8], features)
                set_slot(obj, offsets[9], None)
                set_slot(obj, offsets[10], None)
                set_slot(obj, offsets[11], None)
                set_slot(obj, offsets[12], None)
                set_slot(obj, offsets[13], None)
            elif dict_init:
                # object.__new__(paragraph_type), then each field set in the class's order (build_py's
                # dict literal), without the calls through Python or a dict in between; attributes set
                # one by one (not a whole __dict__) keep CPython's compact key-sharing instances:
                # ~50 MB less at the pipeline's peak
                par = PyBaseObject_Type.tp_new(paragraph_type, <PyObject*>EMPTY_TUPLE, NULL)
                PyObject_SetAttr(par, "text", texts[i])
                PyObject_SetAttr(par, "cls", good if is_good else bad)
                PyObject_SetAttr(par, "cf_class", names[cf[i]])
                PyObject_SetAttr(par, "heading", heading[i] != 0)
                PyObject_SetAttr(par, "tag", tag)
                PyObject_SetAttr(par, "dom_path", dom_path)
                PyObject_SetAttr(par, "xpath", xpaths[i])
                PyObject_SetAttr(par, "reason", None if is_good else "boilerplate")
                PyObject_SetAttr(par, "features", features)
                PyObject_SetAttr(par, "lang", None)
                PyObject_SetAttr(par, "lang_score", None)
                PyObject_SetAttr(par, "tokens", None)
                PyObject_SetAttr(par, "glue", None)
            else:
                fields = PyDict_Copy(FIELDS_TEMPLATE)
                fields["text"] = texts[i]
                fields["cls"] = good if is_good else bad
                fields["cf_class"] = names[cf[i]]
                fields["heading"] = heading[i] != 0
                fields["tag"] = tag
                fields["dom_path"] = dom_path
                fields["xpath"] = xpaths[i]
                if not is_good:
                    fields["reason"] = "boilerplate"
                fields["features"] = features
                par = paragraph_type(**fields)
            out.append(par)
    finally:
        free(cf)
        free(chars)
    return out


def round_4(double x):
    """round(x, 4) as :func:`build` computes it (for the tests)."""
    return round4(x)


# -- the page text for the language guess --------------------------------------------------

cdef inline bint is_script_or_style(xmlNode* c) noexcept nogil:
    """el.tag in ("script", "style"): the name without a namespace (lxml's tag is "{href}name" with one)."""
    if c.ns is not NULL and c.ns.href is not NULL:
        return False
    return strcmp(<const char*>c.name, b"script") == 0 or strcmp(<const char*>c.name, b"style") == 0


cdef inline int add_text_part(Buf* b, xmlNode* c, bint* first) except -1:
    """Append _collectText(c) when not empty, after a space unless it is the first part."""
    cdef Py_ssize_t before = b.len
    if not first[0]:
        buf_add(b, b" ", 1)
    collect_text(b, c)
    if b.len == before + (0 if first[0] else 1):
        b.len = before          # nothing: no part, no separator
    else:
        first[0] = False
    return 0


cdef int page_text_bytes(Buf* b, xmlNode* top) except -1:
    """page_text's parts below top (lxml's element or one of the SAX build) joined with spaces, UTF-8, into b."""
    cdef xmlNode* c = top
    cdef xmlNode* nxt
    cdef bint first = True
    while c is not NULL:
        if c.type == XML_ELEMENT_NODE and not is_script_or_style(c):
            add_text_part(b, c.children, &first)
        if c is not top:
            add_text_part(b, c.next, &first)
        # the next node of iter(): first element-like child (not below entity references),
        # else the next element-like sibling of the node or of an ancestor below top
        nxt = NULL
        if c.type != XML_ENTITY_REF_NODE and c.children is not NULL:
            nxt = next_element_like(c.children)
        while nxt is NULL and c is not top and c is not NULL:
            nxt = next_element_like(c.next)
            if nxt is NULL:
                c = c.parent
        c = nxt
    return 0


def page_text(root):
    """``corpustool.language.identify.page_text``'s walk below ``root``, string for string.

    The old Python walk, ``" ".join`` of the non-empty ``el.text`` (elements
    other than script and style) and ``el.tail`` (every node but ``root``) of
    the nodes ``root.iter()`` yields, in its order: libxml2's nodes by their
    pointers, the texts appended to one UTF-8 buffer and decoded once, no
    Python object per node.
    """
    cdef Buf b
    b.data = NULL
    b.len = b.cap = 0
    try:
        page_text_bytes(&b, as_element(root)._c_node)
        return PyUnicode_DecodeUTF8(b.data, b.len, NULL) if b.len else ""
    finally:
        free(b.data)


include "sax_arena.pxi"
