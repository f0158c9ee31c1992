# -- justext-plus's fast path: the page parsed without libxml2's tree ---------------------------
#
# (included by justext_walk.pyx.) ``parse_html`` has lxml's libxml2 build a
# tree of malloc'ed xmlNode/xmlAttr structs, which the walk reads once and
# lxml then frees node by node: about half the parse's time. Here the same
# libxml2 (the one linked into lxml.etree, found with dlopen(RTLD_NOLOAD) +
# dlsym: never another libxml2, whose parser makes other trees) parses the
# same bytes with the same options, and SAX callbacks build the tree the
# walk needs in an arena (a few big blocks, freed at once): xmlNode/xmlAttr
# structs of the same layout (lxml's bundled headers of the same version),
# element and attribute names from the parser's dict, linked as libxml2's
# SAX2 tree builder (SAX2.c) links them:
#
# * an element is appended to the open element (xmlSAX2StartHtmlElement),
#   at the top level to the document (the first one is the root); its
#   attributes are the ones the parser reports (it drops duplicates), each
#   value one text node, a value-less boolean attribute (htmlIsBooleanAttr)
#   its own name (xmlSAX2HtmlAttribute);
# * characters append to the open element's last text node (xmlSAX2Text
#   merges a run into one node); with no open element they are dropped;
# * comments are not reported (lxml's remove_comments), CDATA blocks (script
#   and style) arrive as characters (lxml's HTMLParser sets cdataBlock NULL),
#   ignorable whitespace is not reported with keepBlanks (lxml's default).
#
# What the fast path does not reproduce makes it give the page back (None):
# the caller then parses with lxml, so results never differ. That is a tree
# deeper than libxml2's node stack allows (256: SAX2 stops the parser there),
# a text run near the 10 MB limit of a text node, a catastrophic parser
# error, an allocation failure, an element the walk would hand to lxml
# (a detached lxml element stands in for one whose evidence rules must
# decide; a tag or attribute lxml refuses gives the page back), and the
# trees the compiled evidence leaves to XPath queries (``unusual``).

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from libc.string cimport memset
from lxml.includes.tree cimport XML_ATTRIBUTE_NODE, const_xmlChar, xmlChar, xmlDict, xmlDoc
from lxml.includes.xmlerror cimport xmlError


cdef extern from *:
    """
    /* lxml.etree's already loaded image (never a new one): NULL where dlopen or RTLD_NOLOAD is missing */
    #if defined(_WIN32) || !defined(__has_include)
    static void* corpustool_loaded_library(const char* path) { (void) path; return NULL; }
    static void* corpustool_symbol(void* handle, const char* name) { (void) handle; (void) name; return NULL; }
    #elif __has_include(<dlfcn.h>)
    #include <dlfcn.h>
    #ifdef RTLD_NOLOAD
    static void* corpustool_loaded_library(const char* path) { return dlopen(path, RTLD_NOW | RTLD_NOLOAD); }
    #else
    static void* corpustool_loaded_library(const char* path) { (void) path; return NULL; }
    #endif
    static void* corpustool_symbol(void* handle, const char* name) { return dlsym(handle, name); }
    #else
    static void* corpustool_loaded_library(const char* path) { (void) path; return NULL; }
    static void* corpustool_symbol(void* handle, const char* name) { (void) handle; (void) name; return NULL; }
    #endif
    """
    void* loaded_library "corpustool_loaded_library"(const char* path) nogil
    void* library_symbol "corpustool_symbol"(void* handle, const char* name) nogil

cdef extern from "libxml/xmlversion.h":
    int HEADERS_LIBXML_VERSION "LIBXML_VERSION"

ctypedef void (*StartElementFn)(void* ctx, const_xmlChar* name, const_xmlChar** atts) noexcept nogil
ctypedef void (*EndElementFn)(void* ctx, const_xmlChar* name) noexcept nogil
ctypedef void (*CharactersFn)(void* ctx, const_xmlChar* ch, int length) noexcept nogil
ctypedef void (*StructuredErrorFn)(void* data, const xmlError* error) noexcept nogil

cdef extern from "libxml/parser.h" nogil:
    # the fields of libxml2's xmlSAXHandler the fast path sets (memset clears the others)
    ctypedef struct SaxHandler "xmlSAXHandler":
        StartElementFn startElement
        EndElementFn endElement
        CharactersFn characters
        int initialized
        StructuredErrorFn serror
    ctypedef struct ParserCtxt "xmlParserCtxt":
        xmlDict* dict
        void* userData
    int SAX2_MAGIC "XML_SAX2_MAGIC"
    int STATUS_CATASTROPHIC_ERROR "XML_STATUS_CATASTROPHIC_ERROR"

cdef extern from "libxml/HTMLparser.h" nogil:
    int PARSE_RECOVER "HTML_PARSE_RECOVER"
    int PARSE_NONET "HTML_PARSE_NONET"
    int PARSE_COMPACT "HTML_PARSE_COMPACT"

# libxml2's functions, from lxml.etree's own copy (resolved at import)
ctypedef ParserCtxt* (*NewSaxCtxtFn)(const SaxHandler* sax, void* user_data) noexcept nogil
ctypedef xmlDoc* (*ReadMemoryFn)(ParserCtxt* ctxt, const char* buffer, int size, const char* url,
                                 const char* encoding, int options) noexcept nogil
ctypedef void (*FreeCtxtFn)(ParserCtxt* ctxt) noexcept nogil
ctypedef int (*BooleanAttrFn)(const_xmlChar* name) noexcept nogil
ctypedef int (*StatusFn)(ParserCtxt* ctxt) noexcept nogil
ctypedef void (*StopFn)(ParserCtxt* ctxt) noexcept nogil
ctypedef size_t (*DictSizeFn)(xmlDict* d) noexcept nogil
ctypedef void (*FreeDocFn)(xmlDoc* doc) noexcept nogil
ctypedef int (*DictReferenceFn)(xmlDict* d) noexcept nogil
ctypedef void (*DictFreeFn)(xmlDict* d) noexcept nogil

cdef NewSaxCtxtFn lx_new_ctxt = NULL
cdef ReadMemoryFn lx_read_memory = NULL
cdef FreeCtxtFn lx_free_ctxt = NULL
cdef BooleanAttrFn lx_is_boolean_attr = NULL
cdef StatusFn lx_status = NULL
cdef StopFn lx_stop = NULL
cdef DictSizeFn lx_dict_size = NULL
cdef FreeDocFn lx_free_doc = NULL
cdef DictReferenceFn lx_dict_reference = NULL
cdef DictFreeFn lx_dict_free = NULL

# lxml's etree.HTMLParser(remove_comments=True, encoding="utf-8", collect_ids=False) (parse_html's):
# its default options; comments, ids and CDATA nodes are the SAX handler's business
cdef int SAX_OPTIONS = PARSE_RECOVER | PARSE_NONET | PARSE_COMPACT
cdef int MAX_DEPTH = 250            # below libxml2's 256 open nodes (nodePush), where SAX2 stops the parser
cdef Py_ssize_t MAX_TEXT_RUN = 9999999   # below XML_MAX_TEXT_LENGTH (10 MB), where SAX2 drops text
cdef size_t MAX_DICT_NAMES = 200000      # a new parser context (and dict) past this many distinct names

cdef ParserCtxt* sax_ctxt = NULL
cdef long sax_pages = 0, sax_fallbacks = 0


class NeedsTree(Exception):
    """The compiled walk needs lxml's tree for this page (the fast path gives the page back)."""


def _resolve_libxml2():
    """Find libxml2's functions in lxml.etree's own copy; the reason when the fast path is off."""
    global lx_new_ctxt, lx_read_memory, lx_free_ctxt, lx_is_boolean_attr, lx_status, lx_stop
    global lx_dict_size, lx_free_doc, lx_dict_reference, lx_dict_free
    from lxml import etree as lxml_etree
    major, minor, patch = (HEADERS_LIBXML_VERSION // 10000, HEADERS_LIBXML_VERSION // 100 % 100,
                           HEADERS_LIBXML_VERSION % 100)
    if tuple(lxml_etree.LIBXML_VERSION) != (major, minor, patch):
        return (f"lxml runs libxml2 {lxml_etree.LIBXML_VERSION}, the extension was built with the headers "
                f"of {(major, minor, patch)}")
    path = lxml_etree.__file__.encode()
    cdef void* handle = loaded_library(path)
    if handle is NULL:
        return "lxml.etree's libxml2 symbols are not reachable (dlopen)"
    symbols = {}
    for name in (b"htmlNewSAXParserCtxt", b"htmlCtxtReadMemory", b"htmlFreeParserCtxt", b"htmlIsBooleanAttr",
                 b"xmlCtxtGetStatus", b"xmlStopParser", b"xmlDictSize", b"xmlFreeDoc", b"xmlDictReference",
                 b"xmlDictFree"):
        address = <size_t>library_symbol(handle, name)
        if address == 0:
            return f"lxml.etree does not export {name.decode()}"
        symbols[name] = address
    lx_new_ctxt = <NewSaxCtxtFn><size_t>symbols[b"htmlNewSAXParserCtxt"]
    lx_read_memory = <ReadMemoryFn><size_t>symbols[b"htmlCtxtReadMemory"]
    lx_free_ctxt = <FreeCtxtFn><size_t>symbols[b"htmlFreeParserCtxt"]
    lx_is_boolean_attr = <BooleanAttrFn><size_t>symbols[b"htmlIsBooleanAttr"]
    lx_status = <StatusFn><size_t>symbols[b"xmlCtxtGetStatus"]
    lx_stop = <StopFn><size_t>symbols[b"xmlStopParser"]
    lx_dict_size = <DictSizeFn><size_t>symbols[b"xmlDictSize"]
    lx_free_doc = <FreeDocFn><size_t>symbols[b"xmlFreeDoc"]
    lx_dict_reference = <DictReferenceFn><size_t>symbols[b"xmlDictReference"]
    lx_dict_free = <DictFreeFn><size_t>symbols[b"xmlDictFree"]
    return None


try:
    SAX_ERROR = _resolve_libxml2()
except Exception as exc:   # noqa: BLE001 - any problem leaves the fast path off, never the module
    SAX_ERROR = f"{type(exc).__name__}: {exc}"
SAX_AVAILABLE = SAX_ERROR is None


# -- the arena ------------------------------------------------------------------------------------

cdef struct Block:
    Block* prev
    size_t size, used       # the block's bytes follow the struct


cdef struct SaxTree:
    Block* blocks
    xmlNode* root           # the first top-level element
    xmlNode* top_last       # the last top-level element
    xmlNode** stack         # the open elements (SAX2's node stack)
    int depth, cap
    Buf text                # the open element's text run, not yet a node
    bint failed
    bint strip_ruby
    bint rt_in_root         # an <rt> element at or below the root (root.iter("rt") finds one)
    bint keep_all_text      # keep the text of script and style too (sax_outline)
    xmlNode* textless       # the last script or style element opened whose text nobody reads
    Py_ssize_t skipped      # the length of its text run, left out (the limit of a run still holds)
    Py_ssize_t n_elements
    ParserCtxt* ctxt
    xmlDict* dict           # the parser's dict, referenced while the tree's names point into it


# One tree per call (the walk runs Python code, where another thread may parse a page); the
# parser context is shared: a parse runs in C from start to end, under the GIL.
cdef Block* spare_block = NULL   # one block kept between pages


cdef void* arena_alloc(SaxTree* t, size_t n, size_t zeroed=<size_t>-1) noexcept nogil:
    """n bytes, 8-aligned, the first ``zeroed`` of them zero (all by default); NULL (and the build
    failed) when memory runs out."""
    global spare_block
    cdef Block* b = t.blocks
    cdef size_t size
    n = (n + 7) & ~(<size_t>7)
    if b is NULL or b.used + n > b.size:
        if spare_block is not NULL and n <= spare_block.size:
            b = spare_block
            spare_block = NULL
        else:
            size = 65536 if n <= 65536 else n
            b = <Block*>malloc(sizeof(Block) + size)
            if b is NULL:
                t.failed = True
                return NULL
            b.size = size
        b.used = 0
        b.prev = t.blocks
        t.blocks = b
    cdef char* p = <char*>b + sizeof(Block) + b.used
    b.used += n
    memset(p, 0, n if zeroed > n else zeroed)
    return p


cdef void tree_free(SaxTree* t) noexcept:
    """Free the tree: every block but one (kept for the next page), the buffers, the dict reference."""
    global spare_block
    cdef Block* b = t.blocks
    cdef Block* prev
    while b is not NULL:
        prev = b.prev
        if spare_block is NULL and b.size == 65536:
            spare_block = b
        else:
            free(b)
        b = prev
    t.blocks = NULL
    t.root = t.top_last = NULL
    free(t.stack)
    free(t.text.data)
    t.stack = NULL
    t.text.data = NULL
    t.depth = t.cap = 0
    t.text.len = t.text.cap = 0
    if t.dict is not NULL:
        lx_dict_free(t.dict)
        t.dict = NULL


cdef xmlNode* new_text(SaxTree* t, const char* s, Py_ssize_t n) noexcept nogil:
    """A text node with a copy of s[:n] (NUL-terminated, as libxml2's)."""
    # (the text is copied over right away: only the struct is zeroed)
    cdef xmlNode* node = <xmlNode*>arena_alloc(t, sizeof(xmlNode) + <size_t>n + 1, sizeof(xmlNode))
    if node is NULL:
        return NULL
    node.type = XML_TEXT_NODE
    node.content = <xmlChar*>(<char*>node + sizeof(xmlNode))
    memcpy(node.content, s, n)
    node.content[n] = 0
    return node


cdef inline void append_child(xmlNode* parent, xmlNode* node) noexcept nogil:
    node.parent = parent
    if parent.last is NULL:
        parent.children = node
    else:
        parent.last.next = node
        node.prev = parent.last
    parent.last = node


cdef void flush_text(SaxTree* t) noexcept nogil:
    """The open element's text run becomes its last child (xmlSAX2Text's merged node)."""
    cdef xmlNode* node
    if t.text.len and t.depth:
        node = new_text(t, t.text.data, t.text.len)
        if node is not NULL:
            append_child(t.stack[t.depth - 1], node)
    t.text.len = 0


cdef void fail(SaxTree* t) noexcept nogil:
    t.failed = True
    if t.ctxt is not NULL:
        lx_stop(t.ctxt)


cdef void sax_start_element(void* ctx, const_xmlChar* name, const_xmlChar** atts) noexcept nogil:
    cdef SaxTree* t = <SaxTree*>ctx
    cdef xmlNode* node
    cdef xmlNode* value_node
    cdef xmlAttr* attr
    cdef xmlAttr* last = NULL
    cdef const_xmlChar* value
    cdef xmlNode** stack
    cdef int i = 0
    if t.failed:
        return
    if t.text.len:
        flush_text(t)
    t.skipped = 0
    if t.depth >= MAX_DEPTH:
        fail(t)
        return
    node = <xmlNode*>arena_alloc(t, sizeof(xmlNode))
    if node is NULL:
        fail(t)
        return
    node.type = XML_ELEMENT_NODE
    node.name = name
    t.n_elements += 1
    if t.depth:
        append_child(t.stack[t.depth - 1], node)
    else:
        # a top-level element: the document's child (the first is the root)
        if t.root is NULL:
            t.root = node
        else:
            t.top_last.next = node
            node.prev = t.top_last
        t.top_last = node
    if t.depth == t.cap:
        t.cap = 64 if t.cap == 0 else 2 * t.cap
        stack = <xmlNode**>realloc(t.stack, t.cap * sizeof(xmlNode*))
        if stack is NULL:
            fail(t)
            return
        t.stack = stack
    t.stack[t.depth] = node
    t.depth += 1
    if (t.strip_ruby and name[0] == b'r' and name[1] == b't' and name[2] == 0
            and (t.stack[0] is t.root)):
        t.rt_in_root = True
    if (name[0] == b's' and not t.keep_all_text
            and (strcmp(<const char*>name, b"script") == 0 or strcmp(<const char*>name, b"style") == 0)
            and not in_title(t)):
        t.textless = node
    if atts is NULL:
        return
    while atts[i] is not NULL:
        value = atts[i + 1]
        attr = <xmlAttr*>arena_alloc(t, sizeof(xmlAttr))
        if attr is NULL:
            fail(t)
            return
        attr.type = XML_ATTRIBUTE_NODE
        attr.name = atts[i]
        attr.parent = node
        if value is NULL and lx_is_boolean_attr(atts[i]):
            value = atts[i]          # <option selected>: selected="selected"
        if value is not NULL:
            value_node = new_text(t, <const char*>value, strlen(<const char*>value))
            if value_node is NULL:
                fail(t)
                return
            value_node.parent = <xmlNode*>attr
            attr.children = attr.last = value_node
        if last is NULL:
            node.properties = attr
        else:
            last.next = attr
            attr.prev = last
        last = attr
        i += 2


cdef bint in_title(SaxTree* t) noexcept nogil:
    """Is a <title> element open (its text, Extractor.title's, takes in a script's or style's)?"""
    cdef int i
    for i in range(t.depth - 1):
        if strcmp(<const char*>t.stack[i].name, b"title") == 0:
            return True
    return False


cdef void sax_end_element(void* ctx, const_xmlChar* name) noexcept nogil:
    cdef SaxTree* t = <SaxTree*>ctx
    if t.failed:
        return
    if t.text.len:
        flush_text(t)
    t.skipped = 0
    if t.depth:
        t.depth -= 1


cdef void sax_characters(void* ctx, const_xmlChar* ch, int length) noexcept nogil:
    cdef SaxTree* t = <SaxTree*>ctx
    cdef Py_ssize_t cap
    cdef char* data
    if t.failed or t.depth == 0:
        return   # text outside the elements is dropped, as SAX2 drops it
    if t.stack[t.depth - 1] is t.textless:
        # a script's or style's own text (40% of the bytes of pages): the walk kills the element
        # without reading it, and it is in no title's text; left out, not copied twice
        if t.skipped + length > MAX_TEXT_RUN:
            fail(t)
            return
        t.skipped += length
        return
    if t.text.len + length > MAX_TEXT_RUN:
        fail(t)
        return
    if t.text.len + length > t.text.cap:
        cap = max(2 * t.text.cap, t.text.len + length, 4096)
        data = <char*>realloc(t.text.data, cap)
        if data is NULL:
            fail(t)
            return
        t.text.data = data
        t.text.cap = cap
    memcpy(t.text.data + t.text.len, ch, length)
    t.text.len += length


cdef void sax_error(void* data, const xmlError* error) noexcept nogil:
    pass   # errors of a recovering parse are not reported (lxml keeps them in a log nobody reads here)


cdef ParserCtxt* parser_ctxt() noexcept:
    """The parser context, made once (a new one when its dict of names has grown large)."""
    global sax_ctxt
    cdef SaxHandler handler
    if sax_ctxt is not NULL and lx_dict_size(sax_ctxt.dict) > MAX_DICT_NAMES:
        lx_free_ctxt(sax_ctxt)
        sax_ctxt = NULL
    if sax_ctxt is NULL:
        memset(&handler, 0, sizeof(SaxHandler))
        handler.startElement = sax_start_element
        handler.endElement = sax_end_element
        handler.characters = sax_characters
        handler.serror = sax_error
        handler.initialized = SAX2_MAGIC     # as lxml's HTML parser contexts (structured errors)
        sax_ctxt = lx_new_ctxt(&handler, NULL)
    return sax_ctxt


cdef void unlink_node(xmlNode* c) noexcept nogil:
    if c.prev is not NULL:
        c.prev.next = c.next
    else:
        c.parent.children = c.next
    if c.next is not NULL:
        c.next.prev = c.prev
    else:
        c.parent.last = c.prev
    c.parent = c.next = c.prev = NULL


cdef inline bint named(xmlNode* c, const char* name) noexcept nogil:
    return c.type == XML_ELEMENT_NODE and c.ns is NULL and strcmp(<const char*>c.name, name) == 0


cdef void strip_ruby_annotations(xmlNode* root) noexcept nogil:
    """justext_plus._strip_ruby: etree.strip_elements(root, "rt", "rp", with_tail=False) (the root stays)."""
    cdef xmlNode* c = root.children
    cdef xmlNode* nxt
    cdef xmlNode* parent
    while c is not NULL:
        if named(c, b"rt") or named(c, b"rp"):
            nxt = c.next
            parent = c.parent
            unlink_node(c)
        elif c.type == XML_ELEMENT_NODE and c.children is not NULL:
            c = c.children
            continue
        else:
            nxt = c.next
            parent = c.parent
        # the next node in document order below root
        while nxt is NULL and parent is not root:
            nxt = parent.next
            parent = parent.parent
        c = nxt


cdef xmlNode* find_title(xmlNode* root) noexcept nogil:
    """Extractor.title's element: root.find("head/title"), else root.find(".//title")."""
    cdef xmlNode* h = root.children
    cdef xmlNode* c
    while h is not NULL:
        if named(h, b"head"):
            c = h.children
            while c is not NULL:
                if named(c, b"title"):
                    return c
                c = c.next
        h = h.next
    c = root.children
    while c is not NULL:
        if named(c, b"title"):
            return c
        if c.type == XML_ELEMENT_NODE and c.children is not NULL:
            c = c.children
            continue
        while c.next is NULL and c.parent is not root:
            c = c.parent
        c = c.next
    return NULL


cdef int iter_text(Buf* b, xmlNode* el) except -1:
    """"".join(el.itertext()): its text, then each child element's text and tail, in order."""
    cdef xmlNode* c = el.children
    collect_text(b, c)
    while c is not NULL:
        if c.type == XML_ELEMENT_NODE:
            iter_text(b, c)
            collect_text(b, c.next)
        c = c.next
    return 0


cdef object attr_value(xmlNode* c, const char* name):
    """el.get(name) or "" on an element of the SAX build (each value one text node or none)."""
    cdef xmlAttr* a = c.properties
    while a is not NULL:
        if a.ns is NULL and strcmp(<const char*>a.name, name) == 0:
            if a.children is NULL or a.children.content is NULL:
                return ""
            return PyUnicode_DecodeUTF8(<const char*>a.children.content, len(<const char*>a.children.content),
                                        NULL)
        a = a.next
    return ""


_EVIDENCE_ATTRIBUTES = (b"class", b"id", b"role", b"itemprop", b"style", b"hidden")
_lxml_element = None


cdef object detached_element(xmlNode* c):
    """A detached lxml element with c's tag and the attributes EvidenceRules reads (those of the
    walk's cache key: evidence() and describe() read nothing else); NeedsTree when lxml refuses
    the tag or a value."""
    global _lxml_element
    if _lxml_element is None:
        from lxml.etree import Element
        _lxml_element = Element
    tag = PyUnicode_DecodeUTF8(<const char*>c.name, len(<const char*>c.name), NULL)
    try:
        el = _lxml_element(tag)
        for name in _EVIDENCE_ATTRIBUTES:
            a = c.properties
            while a is not NULL:
                if a.ns is NULL and strcmp(<const char*>a.name, <const char*>name) == 0:
                    el.set(name.decode(), attr_value(c, name))
                    break
                a = a.next
    except ValueError as exc:
        raise NeedsTree(str(exc)) from None
    return el


cdef bint sax_parse(SaxTree* t, bytes data, bint strip_ruby, bint keep_all_text=False,
                    bint strip_later=False) except -1:
    """Parse data into t (zeroed; the caller frees it with tree_free); False when the page is given back.
    ``keep_all_text``: script and style elements keep their text (otherwise left out: see
    sax_characters). ``strip_later``: the ruby annotations are found but left for the caller to
    strip (SaxPage)."""
    cdef ParserCtxt* ctxt
    cdef xmlDoc* doc
    if PyBytes_GET_SIZE(data) > 2147483647:
        return False
    t.strip_ruby = strip_ruby
    t.keep_all_text = keep_all_text
    # libxml2's own HTML parser (lxml's copy) makes the SAX calls: it survives any byte string
    ctxt = parser_ctxt()
    if ctxt is NULL:
        return False
    t.ctxt = ctxt
    t.dict = ctxt.dict
    lx_dict_reference(t.dict)
    ctxt.userData = t
    doc = lx_read_memory(ctxt, PyBytes_AS_STRING(data), <int>PyBytes_GET_SIZE(data), NULL, b"utf-8",
                         SAX_OPTIONS)
    if doc is not NULL:
        lx_free_doc(doc)     # (none: there is no startDocument callback to make one)
    ctxt.userData = NULL
    t.ctxt = NULL
    if t.failed or (lx_status(ctxt) & STATUS_CATASTROPHIC_ERROR):
        return False
    flush_text(t)
    if t.rt_in_root and not strip_later:
        strip_ruby_annotations(t.root)
        t.rt_in_root = False
    return True


def sax_stats():
    """(pages the fast path extracted, pages it gave back to lxml's tree) in this process."""
    return sax_pages, sax_fallbacks


cdef object title_text(xmlNode* root):
    """``"".join(t.itertext())`` of Extractor.title's element below root; None without one."""
    cdef Buf b
    cdef xmlNode* node = find_title(root)
    if node is NULL:
        return None
    b.data = NULL
    b.len = b.cap = 0
    try:
        iter_text(&b, node)
        return PyUnicode_DecodeUTF8(b.data, b.len, NULL) if b.len else ""
    finally:
        free(b.data)


cdef object walk_sax_tree(SaxTree* t, stoplist, params, paragraph_type, bint fast_init, good, bad,
                          EvidenceRules rules, bint keep_blank_separators):
    """(paragraphs, PageTree, title) of a parsed SAX tree with a root, counted; None (a fallback,
    counted) when the walk needs lxml's tree."""
    global sax_pages, sax_fallbacks
    title = title_text(t.root)
    try:
        paragraphs, tree = evidence_walk(None, t.root, stoplist, params, paragraph_type, fast_init,
                                         good, bad, rules, keep_blank_separators)
    except NeedsTree:
        sax_fallbacks += 1
        return None
    if tree is None:
        sax_fallbacks += 1
        return None
    sax_pages += 1
    return paragraphs, tree, title


cdef class SaxPage:
    """A page parsed once by the SAX build and kept for two questions (justext-plus in a clean
    stage that guesses the language): the text for the guess, then the walk. The guess reads
    the page as lxml's tree has it, ruby annotations included; the walk strips them first, as
    justext_plus._strip_ruby strips lxml's tree between the two. Made by :func:`sax_page`."""
    cdef SaxTree t

    def __dealloc__(self):
        tree_free(&self.t)

    @property
    def has_root(self):
        """lxml makes a tree of the page (the clean stage's "empty" otherwise)."""
        return self.t.root is not NULL

    def page_text(self):
        """``identify.page_text`` of lxml's tree of the page: the text below <body> when it has
        element children, else below the root, without scripts and style sheets."""
        cdef Buf b
        cdef xmlNode* top = self.t.root
        cdef xmlNode* c
        if top is NULL:
            return ""
        c = top.children     # root.find("body"), then len(body)
        while c is not NULL and not named(c, b"body"):
            c = c.next
        if c is not NULL and next_element_like(c.children) is not NULL:
            top = c
        b.data = NULL
        b.len = b.cap = 0
        try:
            page_text_bytes(&b, top)
            return PyUnicode_DecodeUTF8(b.data, b.len, NULL) if b.len else ""
        finally:
            free(b.data)

    def extract_evidence(self, stoplist, params, paragraph_type, bint fast_init, good, bad, EvidenceRules rules,
                         bint keep_blank_separators=False):
        """:func:`extract_evidence_html` of the page (its ruby annotations stripped first)."""
        if self.t.root is NULL:
            return [], None, None
        if self.t.rt_in_root:
            strip_ruby_annotations(self.t.root)
            self.t.rt_in_root = False
        return walk_sax_tree(&self.t, stoplist, params, paragraph_type, fast_init, good, bad, rules,
                             keep_blank_separators)


    def extract(self, stoplist, params, paragraph_type, bint fast_init, good, bad,
                bint keep_blank_separators=False):
        """:func:`extract_html` of the page (the classic engine: its ruby annotations kept)."""
        if self.t.root is NULL:
            return [], False, None
        return walk_engine(&self.t, stoplist, params, paragraph_type, fast_init, good, bad,
                           keep_blank_separators)


def sax_page(bytes data):
    """The page ``data`` (the bytes ``parse_html`` parses) parsed into a :class:`SaxPage`, or None
    when it needs lxml's tree (counted as a fallback)."""
    global sax_fallbacks
    if not SAX_AVAILABLE:
        return None
    cdef SaxPage page = SaxPage.__new__(SaxPage)
    memset(&page.t, 0, sizeof(SaxTree))
    if not sax_parse(&page.t, data, True, False, True):
        sax_fallbacks += 1
        return None
    return page


def extract_evidence_html(bytes data, bint strip_ruby, stoplist, params, paragraph_type, bint fast_init, good,
                          bad, EvidenceRules rules, bint keep_blank_separators=False):
    """:func:`extract_evidence` of the page ``data`` (the bytes ``parse_html`` parses), without lxml's tree.

    ``strip_ruby``: remove rt and rp elements first (justext_plus._strip_ruby).
    Returns ``(paragraphs, PageTree, title)``, title being ``"".join(t.itertext())``
    of ``Extractor.title``'s element (None without one), ``([], None, None)`` for a
    page ``parse_html`` makes no tree of, or None when the page needs lxml's tree.
    """
    global sax_pages, sax_fallbacks
    cdef SaxTree t
    if not SAX_AVAILABLE:
        return None
    memset(&t, 0, sizeof(SaxTree))
    try:
        if not sax_parse(&t, data, strip_ruby):
            sax_fallbacks += 1
            return None
        if t.root is NULL:
            sax_pages += 1
            return [], None, None
        return walk_sax_tree(&t, stoplist, params, paragraph_type, fast_init, good, bad, rules,
                             keep_blank_separators)
    finally:
        tree_free(&t)


# -- the classic engine's fast path (justext_engine.JustextEngineExtractor) ------------------------
#
# The same parse into the arena, walked by the engine's own walk (extract(): no evidence, no
# ruby stripping, the package's blank chunks unless keep_blank_separators). That walk reads
# nothing lxml's tree has and the SAX build has not (the evidence walk's detached elements and
# XPath-query fallbacks are justext-plus's), so a page the parse keeps is never given back.

cdef object walk_engine(SaxTree* t, stoplist, params, paragraph_type, bint fast_init, good, bad,
                        bint keep_blank_separators):
    """(paragraphs, True, title) of the engine's walk over a SAX tree with a root, counted."""
    global sax_pages
    cdef _Walk walk = _Walk()
    title = title_text(t.root)
    walk.keep_blanks = keep_blank_separators
    walk.features = True
    walk.stoplist = stoplist
    walk.stopset = stopset_of(stoplist)
    walk.rows = Rows()
    walk.run_node(t.root)      # (walk.doc None: attributes read from the SAX build)
    paragraphs = make_paragraphs(walk.rows, params, paragraph_type, fast_init, good, bad)
    sax_pages += 1
    return paragraphs, True, title


def extract_html(bytes data, stoplist, params, paragraph_type, bint fast_init, good, bad,
                 bint keep_blank_separators=False):
    """:func:`extract` of the page ``data`` (the bytes ``parse_html`` parses), without lxml's tree.

    Returns ``(paragraphs, has_root, title)``: title is ``"".join(t.itertext())`` of
    ``Extractor.title``'s element (None without one); ``([], False, None)`` for a page
    ``parse_html`` makes no tree of; None (counted as a fallback) when the page needs lxml's
    tree. Ruby annotations stay, as in lxml's tree that :func:`extract` walks.
    """
    global sax_pages, sax_fallbacks
    cdef SaxTree t
    if not SAX_AVAILABLE:
        return None
    memset(&t, 0, sizeof(SaxTree))
    try:
        if not sax_parse(&t, data, False):
            sax_fallbacks += 1
            return None
        if t.root is NULL:
            sax_pages += 1
            return [], False, None
        return walk_engine(&t, stoplist, params, paragraph_type, fast_init, good, bad, keep_blank_separators)
    finally:
        tree_free(&t)


cdef object outline_of(xmlNode* el):
    """(tag, attributes, text, children) of an element of the SAX build, children with their tails."""
    cdef Buf b
    cdef xmlNode* c
    cdef xmlAttr* a = el.properties
    attributes = []
    while a is not NULL:
        value = b""
        if a.children is not NULL and a.children.content is not NULL:
            value = <bytes>a.children.content
        attributes.append(((<bytes>a.name).decode("utf-8"), value.decode("utf-8")))
        a = a.next
    children = []
    b.data = NULL
    b.len = b.cap = 0
    try:
        collect_text(&b, el.children)
        text = b.data[:b.len].decode("utf-8")
        c = el.children
        while c is not NULL:
            if c.type == XML_ELEMENT_NODE:
                b.len = 0
                collect_text(&b, c.next)
                children.append((outline_of(c), b.data[:b.len].decode("utf-8")))
            c = c.next
    finally:
        free(b.data)
    return ((<bytes>el.name).decode("utf-8"), attributes, text, children)


def sax_outline(bytes data, bint strip_ruby=False):
    """The root element of the SAX build of data as ``(tag, [(name, value)], text, [(child, tail)])``
    (for the tests: lxml's tree gives the same); None without a root or when the page is given back."""
    cdef SaxTree t
    if not SAX_AVAILABLE:
        return None
    memset(&t, 0, sizeof(SaxTree))
    try:
        if not sax_parse(&t, data, strip_ruby, True) or t.root is NULL:
            return None
        return outline_of(t.root)
    finally:
        tree_free(&t)


def sax_build(bytes data):
    """Parse data into the arena and free it (the benchmark's measure of the SAX build): the number
    of elements made, None when the page is given back."""
    cdef SaxTree t
    if not SAX_AVAILABLE:
        return None
    memset(&t, 0, sizeof(SaxTree))
    try:
        if not sax_parse(&t, data, False):
            return None
        return t.n_elements
    finally:
        tree_free(&t)
