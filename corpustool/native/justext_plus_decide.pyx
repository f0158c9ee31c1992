# cython: language_level=3, boundscheck=True, wraparound=False, cdivision=True
"""justext-plus's decide() on the compiled walk's PageTree, in C arrays over integer node ids.

:func:`corpustool.extractors.justext_plus_decide.decide` (its phases named there) is
the reference: this module gives every paragraph the same class, reason and
features (tests/native/test_backend_parity.py). Python's decide() asks the same
questions of XPath strings (a region is an ancestor when its XPath is a prefix
of the paragraph's, region names are dict keys); here each element is its node
in the PageTree (``PageTree.structure()``: parent links, each paragraph's
node) and the per-paragraph and per-region work runs over typed arrays. Why
the two are the same:

* the PageTree's XPaths are unique and a node's XPath is its parent's plus
  ``/tag[n]``, so "``x`` starts with ``h + "/"``" is "h is a proper ancestor of
  x", and the number of slashes of an XPath is the node's depth;
* main_region()'s elements with ``main_share`` (> 1/2) of a non-negative
  weight are nested (two disjoint ones would hold more than the whole), so
  "the longest XPath" among them is the deepest node, the one with the highest
  id (a parent is numbered before its children). A weight can be negative (a
  link density above 1: whitespace inside a link counts in its link
  characters, not in the text); then the elements are visited in the order of
  the masses' dict, the first longest XPath winning, as in Python.

Inputs it does not cover (a paragraph without a node, evidence keys that are
no node of the tree, features or ``why`` that are not dicts) go to the Python
decide() before anything is changed.

The rules that read strings stay Python calls on the few paragraphs or
regions they concern: ``line_verdict`` (cached), the sentence and letter-line
tests of the span's edges, the title test, the names of regions
(``name_key``, ``ARTICLE_HEADER``) and ``container``, from the leaf
:mod:`corpustool.extractors.justext_plus_rules` (this module imports nothing above it).
"""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memset

import corpustool.extractors.justext_plus_rules as rules
from corpustool.document import BAD, GOOD

# kind codes: 0 = none; the kinds decide() names get fixed codes, others one on first sight
cdef enum:
    K_NONE = 0
    K_COOKIE = 1
    K_HEADER = 2
    K_META = 3
    K_COMMENT = 4
    K_BARE_FORM = 5

# context-free classes
cdef enum:
    CF_OTHER = 0
    CF_GOOD = 1
    CF_NEARGOOD = 2
    CF_BAD = 3

cdef list _KIND_NAMES = [None, "cookie", "header", "meta", "comment", rules.BARE_FORM]
cdef dict _KIND_CODES = {k: i for i, k in enumerate(_KIND_NAMES) if k is not None}
# the reason of a paragraph in a region of each kind
cdef list _KIND_REASONS = [None] + [f"boilerplate:{'form' if k == rules.BARE_FORM else k}" for k in _KIND_NAMES[1:]]
cdef dict _CF_CODES = {"good": CF_GOOD, "neargood": CF_NEARGOOD, "bad": CF_BAD}

# what decide() returns for an input it leaves to the Python decide() (before it changed anything)
DECLINED = NotImplemented

R_LINKS = "boilerplate:links"
R_META = "boilerplate:meta"
R_PLAIN = "boilerplate"
_MISSING = object()


cdef int kind_code(object kind) except -1:
    code = _KIND_CODES.get(kind)
    if code is None:
        code = len(_KIND_NAMES)
        _KIND_NAMES.append(kind)
        _KIND_CODES[kind] = code
        _KIND_REASONS.append(f"boilerplate:{'form' if kind == rules.BARE_FORM else kind}")
    return code


# what the rules on region names make of an element's description (pages of a site repeat them)
cdef dict _ARTICLE_HEADERS = {}   # description -> names an article's header (_ARTICLE_HEADER)
cdef dict _NAMES = {}             # description -> its name for the crowded-names rule, None for a semantic element
cdef Py_ssize_t MAX_CACHED = 65536


cdef bint article_header(object description) except -1:
    found = _ARTICLE_HEADERS.get(description)
    if found is None:
        found = rules.ARTICLE_HEADER.search(description) is not None
        if len(_ARTICLE_HEADERS) < MAX_CACHED:
            _ARTICLE_HEADERS[description] = found
    return found


cdef object region_name(object description):
    name = _NAMES.get(description, _MISSING)
    if name is _MISSING:
        name = None if description.partition(".")[0] in rules.SEMANTIC_TAGS else rules.name_key(description)
        if len(_NAMES) < MAX_CACHED:
            _NAMES[description] = name
    return name


cdef inline int cf_code(object cf) except -1:
    code = _CF_CODES.get(cf)
    return CF_OTHER if code is None else code


cdef struct Arrays:
    # per paragraph
    Py_ssize_t* node
    long long* chars
    long long* content
    long long* weight
    double* ld
    long long* words
    int* kind_of
    Py_ssize_t* region_of
    unsigned char* good
    unsigned char* cf
    unsigned char* head
    unsigned char* inside
    unsigned char* keep
    unsigned char* headed_before
    # per node
    Py_ssize_t* parent
    Py_ssize_t* ev_up          # nearest proper ancestor that is evidence (-1: none)
    unsigned char* evidence    # a key of kinds (when the tree was made) or a hint
    unsigned char* hint
    int* kinds                 # kinds (after the header rule) as codes
    int* active
    long long* region_mass
    long long* mass
    unsigned char* met
    Py_ssize_t* name_id        # index of the region's name in the crowded-names rule (-1: none)
    Py_ssize_t* key_index      # index of the region's XPath in kind_keys (-1: none)


cdef inline Py_ssize_t chain_start(Arrays* a, Py_ssize_t node):
    """The innermost evidence node at or above ``node`` (-1: none)."""
    if node < 0:
        return -1
    if a.evidence[node]:
        return node
    return a.ev_up[node]


cdef inline void innermost_kind(Arrays* a, Py_ssize_t i):
    """kind_of[i], region_of[i]: the innermost active region of paragraph i (unchanged when none)."""
    cdef Py_ssize_t x = chain_start(a, a.node[i])
    while x >= 0:
        if a.active[x]:
            a.kind_of[i] = a.active[x]
            a.region_of[i] = x
            return
        x = a.ev_up[x]


cdef inline bint is_below(Arrays* a, Py_ssize_t node, Py_ssize_t top):
    """node is top or a descendant of it."""
    while node > top:   # (a parent is numbered before its children)
        node = a.parent[node]
    return node == top


cdef inline bint proper_ancestor(Arrays* a, Py_ssize_t top, Py_ssize_t node):
    return node != top and is_below(a, node, top)


cdef Py_ssize_t depth(Arrays* a, Py_ssize_t node):
    """The number of slashes of the node's XPath."""
    cdef Py_ssize_t d = 0
    while node >= 0:
        d += 1
        node = a.parent[node]
    return d


cdef Py_ssize_t main_region(Arrays* a, Py_ssize_t n, Py_ssize_t n_nodes, long long* weight, double main_share,
                            tree, container, Py_ssize_t* fresh) except -2:
    """``justext_plus_decide.main_region`` on node ids (-1: None). ``fresh``: room for n_nodes ids."""
    cdef Py_ssize_t i, j, k, n_fresh, best = -1, best_len = -1, length
    cdef long long total = 0
    cdef double need
    cdef bint negative = False
    for i in range(n):
        total += weight[i]
        negative = negative or weight[i] < 0
    if total == 0:
        return -1
    for j in range(n_nodes):
        a.mass[j] = 0
        a.met[j] = False
    for i in range(n):
        if weight[i]:
            j = a.node[i]
            while j >= 0:
                a.mass[j] += weight[i]
                j = a.parent[j]
    need = main_share * total
    if not negative:
        # the elements with the share of a weight >= 0 are nested: the longest XPath
        # among them is the deepest container, the one with the highest id
        for j in range(n_nodes - 1, -1, -1):
            if a.mass[j] and a.mass[j] >= need and container(tree.node_key(j)):
                best = j
                break
    else:
        # (a link density above 1 gives a negative weight: the elements in the order the
        # masses' dict has them, the first longest XPath)
        for i in range(n):
            if not weight[i]:
                continue
            n_fresh = 0
            j = a.node[i]
            while j >= 0:
                if not a.met[j]:
                    a.met[j] = True
                    fresh[n_fresh] = j
                    n_fresh += 1
                j = a.parent[j]
            for k in range(n_fresh - 1, -1, -1):
                j = fresh[k]
                if a.mass[j] >= need:
                    key = tree.node_key(j)
                    length = len(key)
                    if (best < 0 or length > best_len) and container(key):
                        best, best_len = j, length
    if best < 0:
        return -1
    # widen to the enclosing article (the innermost hint above it, below the page's top two levels)
    cdef Py_ssize_t d = depth(a, best)
    j = a.parent[best]
    d -= 1
    while j >= 0:
        if a.hint[j] and d > 2:
            return j
        j = a.parent[j]
        d -= 1
    return best


def decide(settings, list paras, dict kinds, list hints, title, why, tree):
    """``justext_plus_decide.decide(settings, paras, kinds, hints, title, why, tree)`` for a PageTree ``tree``
    whose ``kinds`` and ``hints`` these are: the same classes, reasons and features, the same
    header regions deleted from ``kinds``, in the same phases. ``settings``: a
    :class:`corpustool.extractors.justext_plus_rules.DecideSettings`. Returns the word totals
    of the structure rules, or :data:`DECLINED` (nothing changed) for an input it does not
    cover: then the Python decide() decides."""
    cdef _Decision d = _Decision()
    if not d.load(paras, kinds, hints, why, tree):
        return DECLINED
    d.region_kinds(kinds)
    d.innermost_kinds()
    d.main_text(settings.main_share, tree)
    d.main_span()
    d.verdicts(title, settings)
    d.remove_link_lists()
    d.remove_list_headings()
    if d.main >= 0:
        d.keep_lead()
    d.remove_trailing_headings()
    return d.record(tree)


cdef class _Decision:
    """One decide() call: its arrays (freed with it), the paragraphs' fields and the phases of
    ``justext_plus_decide.decide`` over them, each a method of the same name."""
    cdef Arrays a
    cdef void* blocks[48]
    cdef int n_blocks
    cdef Py_ssize_t n, n_nodes, n_kinds, main, first_c, last_c
    cdef long long total
    cdef Py_ssize_t* kind_nodes
    cdef list paras, kind_keys, hint_nodes, texts, headings, classes, feature_dicts, reason
    cdef dict why_d
    cdef object parents_b       # the bytes a.parent points into: alive as long as the arrays

    cdef void* alloc(self, size_t size) except NULL:
        cdef void* p
        if self.n_blocks == 48:
            raise MemoryError("too many blocks")
        p = PyMem_Malloc(size if size else 1)
        if p is NULL:
            raise MemoryError()
        memset(p, 0, size if size else 1)
        self.blocks[self.n_blocks] = p
        self.n_blocks += 1
        return p

    def __dealloc__(self):
        cdef int i
        for i in range(self.n_blocks):
            PyMem_Free(self.blocks[i])

    cdef bint load(self, list paras, dict kinds, list hints, why, tree) except -1:
        """The arrays, from the paragraphs and the tree; False (nothing changed) for an input this
        module does not cover. Every node id read later is checked here: the arrays are then
        indexed without checks."""
        cdef Py_ssize_t n = len(paras), n_nodes, i, j, x, k_i
        cdef Arrays* a = &self.a
        if why is not None and type(why) is not dict:
            return False
        self.why_d = why
        self.paras = paras
        self.n = n
        self.main = -1
        parents_b, para_nodes_b, evidence_value = tree.structure()
        self.parents_b = parents_b
        cdef dict evidence = evidence_value
        cdef const Py_ssize_t* parents = <const Py_ssize_t*><const char*>parents_b
        cdef const Py_ssize_t* pnodes = <const Py_ssize_t*><const char*>para_nodes_b
        n_nodes = self.n_nodes = len(parents_b) // sizeof(Py_ssize_t)
        if len(para_nodes_b) // <Py_ssize_t>sizeof(Py_ssize_t) != n:
            raise ValueError("the tree is not the paragraphs' tree")
        for i in range(n):
            if pnodes[i] < 0 or pnodes[i] >= n_nodes:
                # (a paragraph outside the tree: the string rules decide)
                return False
        for x in range(n_nodes):
            if parents[x] >= x or parents[x] < -1:
                return False
        for node in evidence.values():
            if type(node) is not int or not 0 <= node < n_nodes:
                return False
        self.hint_nodes = []
        for key in hints:
            node = evidence.get(key)
            if node is None:
                return False
            self.hint_nodes.append(node)

        a.node = <Py_ssize_t*>self.alloc(n * sizeof(Py_ssize_t))
        a.chars = <long long*>self.alloc(n * sizeof(long long))
        a.content = <long long*>self.alloc(n * sizeof(long long))
        a.weight = <long long*>self.alloc(n * sizeof(long long))
        a.ld = <double*>self.alloc(n * sizeof(double))
        a.words = <long long*>self.alloc(n * sizeof(long long))
        a.kind_of = <int*>self.alloc(n * sizeof(int))
        a.region_of = <Py_ssize_t*>self.alloc(n * sizeof(Py_ssize_t))
        a.good = <unsigned char*>self.alloc(n)
        a.cf = <unsigned char*>self.alloc(n)
        a.head = <unsigned char*>self.alloc(n)
        a.inside = <unsigned char*>self.alloc(n)
        a.keep = <unsigned char*>self.alloc(n)
        a.headed_before = <unsigned char*>self.alloc(n)
        a.parent = <Py_ssize_t*>parents
        a.ev_up = <Py_ssize_t*>self.alloc(n_nodes * sizeof(Py_ssize_t))
        a.evidence = <unsigned char*>self.alloc(n_nodes)
        a.hint = <unsigned char*>self.alloc(n_nodes)
        a.kinds = <int*>self.alloc(n_nodes * sizeof(int))
        a.active = <int*>self.alloc(n_nodes * sizeof(int))
        a.region_mass = <long long*>self.alloc(n_nodes * sizeof(long long))
        a.mass = <long long*>self.alloc(n_nodes * sizeof(long long))
        a.met = <unsigned char*>self.alloc(n_nodes)
        a.name_id = <Py_ssize_t*>self.alloc(n_nodes * sizeof(Py_ssize_t))
        a.key_index = <Py_ssize_t*>self.alloc(n_nodes * sizeof(Py_ssize_t))
        self.n_kinds = len(kinds)
        self.kind_nodes = <Py_ssize_t*>self.alloc(self.n_kinds * sizeof(Py_ssize_t))
        self.kind_keys = [None] * self.n_kinds

        for x in range(n_nodes):
            a.key_index[x] = -1
        k_i = 0
        for key, kind_name in kinds.items():
            node = evidence.get(key)
            if node is None:
                return False
            x = node
            self.kind_keys[k_i] = key
            self.kind_nodes[k_i] = x
            a.key_index[x] = k_i
            k_i += 1
            a.kinds[x] = kind_code(kind_name)
        for x in evidence.values():
            a.evidence[<Py_ssize_t>x] = True
        for x in range(n_nodes):
            j = parents[x]
            a.ev_up[x] = -1 if j < 0 else (j if a.evidence[j] else a.ev_up[j])
            a.name_id[x] = -1
        for x in self.hint_nodes:
            a.hint[x] = True

        # (the paragraphs' fields, read once)
        self.texts, self.headings, self.classes, self.feature_dicts = [None] * n, [None] * n, [None] * n, [None] * n
        cdef dict features
        for i in range(n):
            p = paras[i]
            text = p.text
            heading_value = p.heading
            cls = p.cls
            features_value = p.features
            if type(features_value) is not dict:
                return False
            features = features_value
            self.texts[i] = text
            self.headings[i] = heading_value
            self.classes[i] = cls
            self.feature_dicts[i] = features
            a.node[i] = pnodes[i]
            a.chars[i] = len(text)
            a.good[i] = cls == GOOD
            a.cf[i] = cf_code(p.cf_class)
            a.head[i] = bool(heading_value)
            a.ld[i] = features.get("link_density", 0.0)
            a.words[i] = features.get("words", 0)
            a.region_of[i] = -1
            # text that reads like content: what jusText keeps or finds near-good, outside links
            if (a.good[i] or a.cf[i] == CF_GOOD or a.cf[i] == CF_NEARGOOD) and a.ld[i] <= 0.5:
                a.content[i] = a.chars[i]
        return True

    # -- 1. which names stand
    cdef int region_kinds(self, dict kinds) except -1:
        """``active``: the kinds less the overruled regions; deletes from ``kinds`` the headers
        that are an article's title block."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, n_nodes = self.n_nodes, i, j, x, k_i, h
        cdef long long c, hm, total = 0
        cdef bint cookies = False, found_cookie
        for k_i in range(self.n_kinds):
            cookies = cookies or a.kinds[self.kind_nodes[k_i]] == K_COOKIE
        # (a cookie notice's text does not count in the shares)
        for i in range(n):
            c = a.content[i]
            if not c:
                continue
            found_cookie = False
            if cookies:
                x = chain_start(a, a.node[i])
                while x >= 0:
                    if a.kinds[x] == K_COOKIE:
                        found_cookie = True
                        break
                    x = a.ev_up[x]
            if not found_cookie:
                total += c
        self.total = total

        # a header inside an article, or named as the article's, is its title block
        for k_i in range(self.n_kinds):
            x = self.kind_nodes[k_i]
            if a.kinds[x] != K_HEADER:
                continue
            j = a.parent[x]
            while j >= 0 and not a.hint[j]:
                j = a.parent[j]
            if j < 0 and self.why_d:
                key = self.kind_keys[k_i]
                if key in self.why_d and article_header(self.why_d[key]):
                    j = x
            if j >= 0:
                del kinds[self.kind_keys[k_i]]
                a.kinds[x] = K_NONE

        # text per region (regions and hints)
        for i in range(n):
            c = a.content[i]
            if c:
                x = chain_start(a, a.node[i])
                while x >= 0:
                    if a.kinds[x] or a.hint[x]:
                        a.region_mass[x] += c
                    x = a.ev_up[x]
        for x in range(n_nodes):
            a.active[x] = a.kinds[x]
        if total >= rules.MIN_OVERRULE_CHARS:
            for x in range(n_nodes):
                if a.region_mass[x] and a.region_mass[x] * 2 > total and a.active[x] and a.active[x] != K_COOKIE:
                    a.active[x] = K_NONE
        # the same inside a hint (<main>, <article>)
        for h in self.hint_nodes:
            hm = a.region_mass[h]
            if hm >= rules.MIN_OVERRULE_CHARS:
                for x in range(h + 1, n_nodes):
                    if (a.region_mass[x] and a.active[x] and a.active[x] != K_COOKIE and a.region_mass[x] * 2 > hm
                            and is_below(a, x, h)):
                        a.active[x] = K_NONE
        if self.why_d and total >= rules.MIN_OVERRULE_CHARS:
            self.without_crowded_names()
        return 0

    cdef int without_crowded_names(self) except -1:
        """No region of a class name whose regions together hold most of the content (page
        builders' blocks) is boilerplate; comments and cookie notices stay."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t x, k_i
        cdef int kind
        cdef long long* name_mass
        cdef Py_ssize_t* name_seen
        cdef dict why_d = self.why_d
        crowded = set()
        name_ids = {}
        for x in range(self.n_nodes):
            if a.region_mass[x] and a.active[x] and a.active[x] != K_COMMENT:
                key = self.kind_keys[a.key_index[x]]
                description = why_d.get(key, _MISSING)
                if description is not _MISSING:
                    name = region_name(description)
                    if name is not None:
                        a.name_id[x] = name_ids.setdefault(name, len(name_ids))
        if name_ids:
            name_mass = <long long*>self.alloc(len(name_ids) * sizeof(long long))
            name_seen = <Py_ssize_t*>self.alloc(len(name_ids) * sizeof(Py_ssize_t))
            crowded = _crowded(a, self.n, name_mass, name_seen, self.total, name_ids)
        if crowded:
            for k_i in range(self.n_kinds):
                x = self.kind_nodes[k_i]
                key = self.kind_keys[k_i]
                kind = a.active[x]
                if kind and kind != K_COOKIE and kind != K_COMMENT:
                    description = why_d.get(key, _MISSING)
                    if description is not _MISSING and region_name(description) in crowded:
                        a.active[x] = K_NONE
        return 0

    # -- 2. each paragraph's region
    cdef int innermost_kinds(self) except -1:
        cdef Py_ssize_t i
        for i in range(self.n):
            innermost_kind(&self.a, i)
        return 0

    # -- 3. the main-content region
    cdef int main_text(self, double main_share, tree) except -1:
        """``main``, ``inside``: the main region (-1: none) and the paragraphs in the main text
        (with a second block of it); the regions holding it are freed of their names, and so is
        a bare ``<form>`` inside it."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, n_nodes = self.n_nodes, i, x, main, second
        cdef long long w_total = 0, rest_total
        cdef long long* rest
        cdef Py_ssize_t* fresh
        cdef int kind
        cdef bint freed
        for i in range(n):
            kind = a.kind_of[i]
            a.weight[i] = a.content[i] if kind == K_NONE or kind == K_META else 0
            w_total += a.weight[i]
        if w_total == 0:
            # no content-like paragraph: longer paragraphs' text outside links
            for i in range(n):
                kind = a.kind_of[i]
                a.weight[i] = <long long>(a.chars[i] * (1.0 - a.ld[i])) if a.words[i] >= 10 and (
                    kind == K_NONE or kind == K_META) else 0
                w_total += a.weight[i]
        container = rules.container
        fresh = <Py_ssize_t*>self.alloc(n_nodes * sizeof(Py_ssize_t))
        main = self.main = main_region(a, n, n_nodes, a.weight, main_share, tree, container, fresh)
        if main < 0:
            return 0
        # a region that holds the main content is not boilerplate
        freed = False
        x = main
        while x >= 0:
            if a.active[x]:
                a.active[x] = K_NONE
                freed = True
            x = a.parent[x]
        if freed:
            for i in range(n):
                if a.region_of[i] >= 0 and not a.active[a.region_of[i]]:
                    a.kind_of[i] = K_NONE
                    innermost_kind(a, i)
        for i in range(n):
            a.inside[i] = is_below(a, a.node[i], main)
        # the main text split in two blocks: a second region with most of the rest
        rest = <long long*>self.alloc(n * sizeof(long long))
        rest_total = 0
        for i in range(n):
            rest[i] = 0 if a.inside[i] else a.weight[i]
            rest_total += rest[i]
        if rest_total >= rules.SECOND_MAIN_SHARE * w_total:
            second = main_region(a, n, n_nodes, rest, main_share, tree, container, fresh)
            if second >= 0 and not proper_ancestor(a, second, main) and not proper_ancestor(a, main, second):
                for i in range(n):
                    if not a.inside[i]:
                        a.inside[i] = is_below(a, a.node[i], second)
        # a bare <form> inside the main region holds main text
        for i in range(n):
            if a.inside[i] and a.kind_of[i] == K_BARE_FORM and a.region_of[i] != main:
                a.kind_of[i] = K_NONE
                x = chain_start(a, a.node[i])
                # (regions at or below the main region: met before it, going up)
                while x >= 0 and is_below(a, x, main):
                    kind = a.active[x]
                    if kind and kind != K_BARE_FORM:
                        a.kind_of[i], a.region_of[i] = kind, x
                        break
                    x = a.ev_up[x]
        return 0

    # -- 4. the main text's span
    cdef int main_span(self) except -1:
        """``first_c``, ``last_c``: the main text's span in the region, with the sentences next to it."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, first_c = n, last_c = -1
        cdef list paras = self.paras
        for i in range(n):
            if a.inside[i] and a.kind_of[i] == K_NONE and (a.content[i] or (
                    a.cf[i] == CF_BAD and a.chars[i] >= 70 and a.ld[i] <= rules.SPAN_LINK_DENSITY)):
                if first_c == n:
                    first_c = i
                last_c = i
        if last_c < 0:
            for i in range(n):
                if (a.inside[i] and a.kind_of[i] == K_NONE and not a.head[i] and a.ld[i] == 0.0
                        and a.words[i] >= 3):
                    if first_c == n:
                        first_c = i
                    last_c = i
        is_sentence, letter_line, introduces = rules.is_sentence, rules.letter_line, rules.introduces
        lead_ld, salutation, sign_off = rules.LEAD_LINK_DENSITY, rules.SALUTATION, rules.SIGN_OFF
        while first_c > 0 and a.inside[first_c - 1] and (is_sentence(paras[first_c - 1], lead_ld)
                                                         or letter_line(paras[first_c - 1], salutation)):
            first_c -= 1
        while last_c + 1 < n and a.inside[last_c + 1] and (is_sentence(paras[last_c + 1])
                                                           or letter_line(paras[last_c + 1], sign_off)
                                                           or introduces(paras[last_c + 1])):
            last_c += 1
        self.first_c, self.last_c = first_c, last_c
        return 0

    # -- 5. each paragraph's verdict
    cdef int verdicts(self, title, settings) except -1:
        """``keep`` and ``reason`` of each paragraph."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, first_c = self.first_c, last_c = self.last_c
        cdef Py_ssize_t o_first = -1, o_last = -1, n_open = 0
        cdef int kind, outside_mode
        cdef double ld, max_ld
        cdef bint keep_meta, heading, meta_line, k
        cdef list texts = self.texts
        title_norm = rules.norm(title or "")
        # short lines repeated on the page are the labels of its controls
        repeated = {}
        for i in range(n):
            if a.chars[i] < 60:
                text = texts[i]
                repeated[text] = repeated.get(text, 0) + 1
        # before the span: lines in a section of the main region that a heading opens and another closes
        for i in range(min(first_c + 1, n)):
            if a.inside[i] and a.head[i] and a.kind_of[i] == K_NONE:
                if o_first < 0:
                    o_first = i
                o_last = i
                n_open += 1
        if n_open >= 2:
            for i in range(o_first + 1, o_last):
                a.headed_before[i] = a.inside[i] and not a.head[i]

        reason = self.reason = [None] * n
        keep_meta = settings.keep_meta
        max_ld = settings.region_max_link_density
        outside = settings.outside
        outside_mode = 0 if outside == "drop" else 1 if outside == "justext" else 2 if outside == "good" else 0
        line_verdict = rules.line_verdict
        min_repeats = rules.MIN_UI_REPEATS
        is_title, norm = rules.is_title, rules.norm
        for i in range(n):
            kind = a.kind_of[i]
            if kind != K_NONE and kind != K_META:
                reason[i] = _KIND_REASONS[kind]
                continue
            text = texts[i]
            heading = a.head[i]
            rights, dated_line, found, label = line_verdict(text, self.headings[i], keep_meta)
            if rights:
                reason[i] = R_PLAIN
                continue
            meta_line = dated_line or (kind == K_META and not heading)
            if meta_line and not keep_meta:
                reason[i] = R_META
                continue
            if found is None and label and repeated.get(text, 0) >= min_repeats:
                found = "boilerplate:repeated"
            if found:
                reason[i] = found
                continue
            ld = a.ld[i]
            if a.inside[i]:
                if ld > max_ld:
                    reason[i] = R_LINKS
                    continue
                k = first_c <= i <= last_c or (i < first_c and (heading or meta_line or (
                    ld == 0.0 and a.headed_before[i])))
            elif heading and title_norm and is_title(norm(text), title_norm):
                k = True
            elif outside_mode == 1:
                k = a.good[i]
            elif outside_mode == 2:
                k = a.good[i] and a.cf[i] == CF_GOOD
            else:
                k = False
            a.keep[i] = k
            if not k:
                reason[i] = R_PLAIN
        return 0

    # -- 6. link lists
    cdef int remove_link_lists(self) except -1:
        """Runs of three or more short paragraphs that are mostly links."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, j, run_start = 0, run_len = 0
        cdef list reason = self.reason
        for i in range(n + 1):
            if i < n and a.keep[i] and a.ld[i] > 0.3 and a.chars[i] < 100:
                if run_len == 0:
                    run_start = i
                run_len += 1
                continue
            if run_len >= 3:
                for j in range(run_start, run_start + run_len):
                    a.keep[j] = False
                    reason[j] = R_LINKS
            run_len = 0
        return 0

    cdef int remove_list_headings(self) except -1:
        """A heading over a link list belongs to the list."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, j
        cdef bint links, dated
        cdef list reason = self.reason
        for i in range(n):
            if not (a.keep[i] and a.inside[i] and a.head[i]):
                continue
            j = i + 1
            while j < n and a.head[j]:
                j += 1
            links = dated = False
            while j < n and not a.head[j] and not a.keep[j]:
                r = reason[j]
                links = links or r == R_LINKS
                dated = dated or r == R_META
                j += 1
            if links and not dated and (j == n or a.head[j]):
                a.keep[i] = False
                reason[i] = R_LINKS
        return 0

    # -- 7. the main text's head
    cdef int keep_lead(self) except -1:
        """The heading and the lead sentence just before the main region, and a "teaser" lead."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, j, first = -1, start = -1, body
        cdef list reason = self.reason, paras = self.paras
        is_sentence = rules.is_sentence
        for i in range(n):
            if a.inside[i]:
                first = i
                break
        if first < 0:
            return 0
        # the lead sentence right before it
        j = first - 1
        while j >= 0 and j >= first - 3 and (a.head[j] or not a.keep[j]):
            if (not a.head[j] and a.kind_of[j] == K_NONE and reason[j] == R_PLAIN and is_sentence(paras[j])
                    and (a.cf[j] == CF_GOOD or a.cf[j] == CF_NEARGOOD)):
                a.keep[j] = True
                reason[j] = None
                break
            j -= 1
        for j in range(first - 1, max(first - 4, -1), -1):
            if (a.head[j] and a.kind_of[j] == K_NONE and a.ld[j] <= 0.5
                    and (reason[j] is None or reason[j] == R_PLAIN)):
                a.keep[j] = True
                break
        # the lead: a "teaser" right before or at the start of the main text
        for i in range(n):
            if a.inside[i] and a.kind_of[i] == K_NONE:
                start = i
                break
        if start < 0:
            return 0
        j = start - 1
        while j >= 0 and a.head[j] and a.keep[j]:
            j -= 1
        lead = [j, start + 1] if j >= 0 else [start + 1]
        body = n
        for i in range(start, n):
            if a.inside[i] and a.kind_of[i] == K_NONE and a.content[i] and not a.head[i]:
                body = i
                break
        for i in range(start, body):
            if a.inside[i]:
                lead.append(i)
        aside = kind_code("aside")
        for i in lead:
            if (0 <= i < n and a.kind_of[i] == aside and not a.keep[i] and is_sentence(paras[i])
                    and (a.cf[i] == CF_GOOD or a.cf[i] == CF_NEARGOOD)):
                a.keep[i] = True
                reason[i] = None
        return 0

    # -- 8. the main text's end
    cdef int remove_trailing_headings(self) except -1:
        """Headings after the last kept text head nothing of it."""
        cdef Arrays* a = &self.a
        cdef Py_ssize_t n = self.n, i, last_text = n
        for i in range(n - 1, -1, -1):
            if a.keep[i] and not a.head[i]:
                last_text = i
                break
        for i in range(last_text + 1, n):
            if a.keep[i] and a.head[i]:
                a.keep[i] = False
                self.reason[i] = "boilerplate:heading"
        return 0

    # -- 9. the record
    cdef object record(self, tree):
        """The decisions and their evidence on the paragraphs; the word totals of the structure rules."""
        node_key = tree.node_key
        cdef Py_ssize_t n_kind_names = len(_KIND_NAMES), k
        cdef long long kept_words = 0, all_words = 0
        cdef long long* kind_words = <long long*>self.alloc((n_kind_names + 1) * sizeof(long long))
        decided(self.paras, self.feature_dicts, self.classes, self.reason, &self.a, self.why_d, node_key, kind_words,
                n_kind_names, &kept_words, &all_words)
        # (restore_items' first test, without another loop over the paragraphs)
        return kept_words, all_words, {_KIND_NAMES[k]: kind_words[k] for k in range(1, n_kind_names) if kind_words[k]}


cdef int decided(list paras, list feature_dicts, list classes, list reason, Arrays* a, dict why_d, node_key,
                 long long* kind_words, Py_ssize_t n_kind_names, long long* kept_words, long long* all_words) except -1:
    """The decisions and the evidence written to the paragraphs; the words kept, of all
    paragraphs and per region kind summed on the way."""
    cdef Py_ssize_t i, x, n = len(paras)
    cdef int kind
    descriptions = {}     # region node -> its element's description, or None
    for i in range(n):
        p = paras[i]
        features = feature_dicts[i]
        features["jt_class"] = classes[i]
        features["main"] = True if a.inside[i] else False
        kind = a.kind_of[i]
        all_words[0] += a.words[i]
        if a.keep[i]:
            kept_words[0] += a.words[i]
        if kind:
            if kind < n_kind_names:
                kind_words[kind] += a.words[i]
            features["region"] = _KIND_NAMES[kind]
            if why_d:
                x = a.region_of[i]
                description = descriptions.get(x, descriptions)
                if description is descriptions:
                    description = descriptions[x] = why_d.get(node_key(x), _MISSING)
                if description is not _MISSING:
                    features["region_element"] = description
        if a.keep[i]:
            p.cls = GOOD
            p.reason = None
        else:
            p.cls = BAD
            p.reason = reason[i] or R_PLAIN
    return 0


cdef set _crowded(Arrays* a, Py_ssize_t n, long long* name_mass, Py_ssize_t* name_seen, long long total,
                  dict name_ids):
    """The region names whose regions together hold more than half of the content."""
    cdef Py_ssize_t i, x, m, n_names = len(name_ids)
    cdef long long c
    for m in range(n_names):
        name_mass[m] = 0
        name_seen[m] = -1
    for i in range(n):
        c = a.content[i]
        if not c:
            continue
        x = chain_start(a, a.node[i])
        while x >= 0:
            m = a.name_id[x]
            if m >= 0 and name_seen[m] != i:   # (each name once per paragraph)
                name_seen[m] = i
                name_mass[m] += c
            x = a.ev_up[x]
    crowded = set()
    for name, m in name_ids.items():
        if name_mass[m] * 2 > total:
            crowded.add(name)
    return crowded
