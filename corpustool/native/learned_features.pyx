# cython: language_level=3
"""justext-learned's feature matrix, compiled (backend.features).

:class:`PageColumns` fills the same matrix as ``justext_learned.page_features_py``, value for
value (tests/native/test_backend_parity.py compares them bit for bit on the development pages),
and the page's structure for stage 2 (``justext_learned.page_struct``): the same loops
without the interpreter between them. What is not a loop over characters stays a Python call:
the dictionaries that count DOM paths, parents and texts, ``template_lines.lowered_verdict``
(for the lines the matrix cannot answer itself; remembered here), the price pattern, the title's
words. The column layout and the code tables come from ``justext_learned`` once (no column name
is written here), so the two cannot drift apart. Every write goes to a row below ``len(paras)``
of a matrix checked for that shape.

:func:`decide_classes` is ``justext_learned.decide_classes_py`` compiled: the model's classes,
jusText's revision (Algorithm 2.3), the drops, the guard and the repeats, over arrays of
``len(paras)`` checked against ``prob`` and ``drop`` first.
"""
cimport cython
from libc.math cimport log1p, fabs, INFINITY
from cpython.ref cimport Py_INCREF, PyObject
from cpython.unicode cimport (Py_UNICODE_ISSPACE, Py_UNICODE_ISDECIMAL, Py_UNICODE_ISUPPER, Py_UNICODE_TOLOWER,
                              PyUnicode_Tailmatch)

import numpy as np


cdef inline Py_ssize_t count_slashes(str s):
    cdef Py_ssize_t k = 0
    cdef Py_UCS4 c
    for c in s:
        if c == u'/':
            k += 1
    return k


cdef inline Py_ssize_t count_decimals(str s):
    """Characters ``re``'s ``\\d`` matches in a str pattern (Unicode category Nd)."""
    cdef Py_ssize_t k = 0
    cdef Py_UCS4 c
    for c in s:
        if c < 128:
            if u"0" <= c <= u"9":
                k += 1
        elif Py_UNICODE_ISDECIMAL(c):
            k += 1
    return k


cdef bint at_most_words(str s, Py_ssize_t most):
    """``len(s.split(None, most)) <= most``: at most ``most`` runs of characters str.split()
    does not split at (Py_UNICODE_ISSPACE, as str.split() tests them)."""
    cdef Py_ssize_t k = 0
    cdef bint inside = False
    cdef Py_UCS4 c
    for c in s:
        if Py_UNICODE_ISSPACE(c):
            inside = False
        elif not inside:
            inside = True
            k += 1
            if k > most:
                return False
    return True


cdef inline Py_UCS4 folded(Py_UCS4 c):
    """``c`` as ``re.IGNORECASE`` compares it with the price pattern's letters: lower-cased (the
    Kelvin sign is a k), the long s an s (re's one equivalence among those letters)."""
    return u's' if c == 0x17f else Py_UNICODE_TOLOWER(c)


cdef bint may_be_price(str t):
    """False only when justext_learned._PRICE cannot match ``t``: it has no currency sign and
    none of the currency codes the pattern names (usd eur gbp chf czk pln kč zł, in any case).
    Most lines with a digit are no price: the pattern's search costs them more than this scan."""
    cdef Py_ssize_t n = len(t), i
    cdef Py_UCS4 a, b, c
    for i in range(n):
        a = t[i]
        if a == u'$' or a == u'€' or a == u'£' or a == u'¥' or a == u'₹':
            return True
        if i + 1 >= n:
            break
        a = folded(a)
        if a != u'u' and a != u'e' and a != u'g' and a != u'c' and a != u'p' and a != u'k' and a != u'z':
            continue
        b = folded(t[i + 1])
        if (a == u'k' and b == u'č') or (a == u'z' and b == u'ł'):
            return True
        if i + 2 < n:
            c = folded(t[i + 2])
            if ((a == u'u' and b == u's' and c == u'd') or (a == u'e' and b == u'u' and c == u'r')
                    or (a == u'g' and b == u'b' and c == u'p') or (a == u'c' and b == u'h' and c == u'f')
                    or (a == u'c' and b == u'z' and c == u'k') or (a == u'p' and b == u'l' and c == u'n')):
                return True
    return False


def price_candidate(str t):
    """:func:`may_be_price` (for the tests: never False where the pattern matches)."""
    return may_be_price(t)


cdef inline str up_one(str x):
    """``x.rsplit("/", 1)[0]``: the path of the parent element."""
    cdef Py_ssize_t i = x.rfind(u"/")
    return x if i < 0 else x[:i]


cdef inline double log_count(object counts, object key):
    return log1p(<double><Py_ssize_t>counts[key])


cdef enum:
    CACHE_SIZE = 65536    # entries in each cache

# a paragraph's fields read from its slots (get_slot) when its class is slotted (Paragraph): the
# matrix 0.55 -> 0.46 ms a page against attribute reads (300 snippet pages, verdicts remembered)
include "paragraph_slots.pxi"


@cython.final
cdef class PageColumns:
    """The layout of justext_learned.FEATURES (column positions) and its code tables, read once."""

    cdef dict index, tag_code, cf_code, reason_code, kind_code
    # line_verdict's answers and the title words of headings, by text (the same lines recur on a
    # site's pages; a dictionary lookup: 11 ns against lru_cache's call, 47 ns), emptied when full
    cdef dict verdicts, heading_verdicts, heading_words
    cdef object line_verdict, price_search, words_findall
    cdef object gate_mask, lowered_verdict
    cdef tuple label_only, no_verdict
    cdef object checks    # (a Python int: the gate may have more bits than a C long)
    cdef Py_ssize_t most_words
    cdef str sentence_end
    cdef Py_ssize_t n_features, n_kinds, in_first, width
    cdef Py_ssize_t c_log_chars, c_log_words, c_link_density, c_stopword_density, c_log_stopwords
    cdef Py_ssize_t c_heading, c_tag, c_depth, c_cf_class, c_jt_good, c_sentence_end, c_digit_share
    cdef Py_ssize_t c_copyright, c_upper_start, c_template_line, c_dated, c_price, c_template_kind
    cdef Py_ssize_t c_rights, c_ui_label, c_in_related, c_pos, c_char_pos, c_log_same_path
    cdef Py_ssize_t c_log_same_text, c_log_siblings, c_log_cousins, c_same_path_good_share
    cdef Py_ssize_t c_parent_good_share, c_log_paras, c_page_good_share, c_discussion, c_product
    cdef Py_ssize_t c_item_list, c_title_like, c_comment_posts, c_since_heading, c_chars_since_heading
    cdef Py_ssize_t c_since_title, c_prev, c_next, c_window_good_share
    cdef Py_ssize_t neighbour[16]
    cdef Py_ssize_t n_neighbour
    cdef Py_ssize_t saturated[16]
    cdef Py_ssize_t n_saturated
    cdef double saturation

    def __init__(self, features, neighbour_keys, kinds, dict tag_code, dict cf_code, dict reason_code,
                 str sentence_end, line_verdict, price_search, words_findall, saturated=(),
                 double saturation=INFINITY, first_answer=None):
        index = {name: i for i, name in enumerate(features)}
        self.index = index
        self.n_features = len(features)
        self.tag_code, self.cf_code, self.reason_code = tag_code, cf_code, reason_code
        self.kind_code = {k: i + 1 for i, k in enumerate(kinds)}
        self.n_kinds = len(kinds)
        self.sentence_end = sentence_end
        self.line_verdict, self.price_search, self.words_findall = line_verdict, price_search, words_findall
        self.verdicts, self.heading_verdicts, self.heading_words = {}, {}, {}
        # line_verdict's first answer (template_lines.FIRST_ANSWER: the gate's mask, the bits that
        # look further, the most words of a label, the two answers, and lowered_verdict for the
        # lines it does not answer); None: every line asks line_verdict
        if first_answer is None:
            self.gate_mask = None
        else:
            (self.gate_mask, self.checks, self.most_words, self.label_only, self.no_verdict,
             self.lowered_verdict) = first_answer
        c = index.__getitem__
        self.c_log_chars, self.c_log_words = c("log_chars"), c("log_words")
        self.c_link_density, self.c_stopword_density = c("link_density"), c("stopword_density")
        self.c_log_stopwords, self.c_heading, self.c_tag = c("log_stopwords"), c("heading"), c("tag")
        self.c_depth, self.c_cf_class, self.c_jt_good = c("depth"), c("cf_class"), c("jt_good")
        self.c_sentence_end, self.c_digit_share = c("sentence_end"), c("digit_share")
        self.c_copyright, self.c_upper_start = c("copyright"), c("upper_start")
        self.c_template_line, self.c_dated, self.c_price = c("template_line"), c("dated"), c("price")
        self.c_template_kind, self.c_rights, self.c_ui_label = c("template_kind"), c("rights"), c("ui_label")
        self.c_in_related, self.c_pos, self.c_char_pos = c("in_related"), c("pos"), c("char_pos")
        self.c_log_same_path, self.c_log_same_text = c("log_same_path"), c("log_same_text")
        self.c_log_siblings, self.c_log_cousins = c("log_siblings"), c("log_cousins")
        self.c_same_path_good_share, self.c_parent_good_share = c("same_path_good_share"), c("parent_good_share")
        self.c_log_paras, self.c_page_good_share = c("log_paras"), c("page_good_share")
        self.c_discussion, self.c_product, self.c_item_list = c("discussion"), c("product"), c("item_list")
        self.c_title_like, self.c_comment_posts = c("title_like"), c("comment_posts")
        self.c_since_heading, self.c_chars_since_heading = c("log_since_heading"), c("log_chars_since_heading")
        self.c_since_title, self.c_window_good_share = c("since_title"), c("window_good_share")
        # the evidence block: in_<kind> for each kind, then inner_kind, in_hint, evidence_depth,
        # region_good_share, hint_good_share, in this order (as justext_learned.WHERE lists them)
        self.in_first = c("in_" + kinds[0])
        self.width = c("hint_good_share") + 1 - self.in_first
        if self.width != self.n_kinds + 5 or any(c("in_" + k) != self.in_first + i for i, k in enumerate(kinds)):
            raise ValueError("PageColumns: the evidence columns are not one block in WHERE's order")
        self.n_neighbour = len(neighbour_keys)
        if self.n_neighbour > 16:
            raise ValueError("PageColumns: at most 16 neighbour columns")
        for i, k in enumerate(neighbour_keys):
            self.neighbour[i] = c(k)
        self.c_prev = c("prev_" + neighbour_keys[0])
        self.c_next = c("next_" + neighbour_keys[0])
        if any(c(f"prev_{k}") != self.c_prev + i or c(f"next_{k}") != self.c_next + i
               for i, k in enumerate(neighbour_keys)):
            raise ValueError("PageColumns: the neighbour columns are not two blocks in NEIGHBOUR_KEYS' order")
        # the counts cut at ``saturation`` (justext_learned.SATURATED), after since_title is made
        self.n_saturated = len(saturated)
        if self.n_saturated > 16:
            raise ValueError("PageColumns: at most 16 saturated columns")
        for i, k in enumerate(saturated):
            self.saturated[i] = c(k)
        self.saturation = saturation

    def clear(self):
        """Forget the remembered verdicts and heading words (a benchmark's pass starts as a crawl does)."""
        self.verdicts.clear()
        self.heading_verdicts.clear()
        self.heading_words.clear()

    cdef tuple verdict(self, str t, bint heading, Py_ssize_t digits):
        """line_verdict(t, heading, False), remembered (``digits``: the characters of ``t`` re's
        ``\\d`` matches)."""
        cdef dict cache = self.heading_verdicts if heading else self.verdicts
        got = cache.get(t)
        if got is None:
            if len(cache) >= CACHE_SIZE:
                cache.clear()
            got = self.first_answer(t, heading, digits)
            cache[t] = got
        return <tuple>got

    cdef tuple first_answer(self, str t, bint heading, Py_ssize_t digits):
        """line_verdict(t, heading, False), its first answer without the call: a line under 400
        characters that no keyword pattern can match and that has no mark (the gate's mask of it
        lower-cased has none of the ``checks`` bits) and is no date candidate (a heading, over 80
        characters, or no digit) is a control's label when short (under 200 characters, at most
        ``most_words`` words as str.split() counts them) or nothing. Most lines are such lines:
        this skips the call, the split and the digit search, about 2 us a line. The others go
        to template_lines.lowered_verdict with the lower-cased line and its mask, which it would
        compute again (template_lines.FIRST_ANSWER gives the gate, the answers and the function)."""
        cdef Py_ssize_t n = len(t)
        if self.gate_mask is None or n >= 400:
            return tuple(self.line_verdict(t, heading, False))
        low = t.lower()
        gate = self.gate_mask(low)
        if gate & self.checks or not (heading or n > 80 or digits == 0):
            # (a keyword or mark, or a date candidate: the checks decide)
            return tuple(self.lowered_verdict(t, low, gate, heading, False))
        return self.label_only if n < 200 and at_most_words(t, self.most_words) else self.no_verdict

    def verdict_of(self, str t, bint heading):
        """:meth:`verdict` of a line, remembered as the matrix remembers it (for the tests: the
        same as line_verdict(t, heading, False))."""
        return self.verdict(t, heading, count_decimals(t))

    cdef frozenset words_of(self, str t):
        """The words of a heading, lower-cased (as the title's), remembered."""
        got = self.heading_words.get(t)
        if got is None:
            if len(self.heading_words) >= CACHE_SIZE:
                self.heading_words.clear()
            got = self.heading_words[t] = frozenset(self.words_findall(t.lower()))
        return <frozenset>got

    @cython.wraparound(False)
    def fill(self, list paras, kinds, hints, chains, title_words, double discussion, double product,
             double item_list, double posts, double[:, ::1] X, long long[::1] path_ids,
             long long[::1] parent_ids, double[::1] chars_out):
        """Fill X (zeros, len(paras) x FEATURES) as page_features_py does, and the page's structure
        as page_struct gives it (DOM path and parent ids, characters). Returns the title
        heading's row, from which since_title counts (-1: none)."""
        cdef Py_ssize_t n = len(paras), i, j, k, lo, hi, top, since, since_chars, first_h1
        cdef Py_ssize_t total_chars, total_good, c, g, code, inner, digits
        cdef double x, region_share, hint_share, in_hint, related, best
        cdef str t, xp, parent, grand, dom, reason
        cdef dict f, count_text, count_grand, path_id, parent_id
        cdef Py_UCS4 last
        cdef bint heading, is_good
        if X.shape[0] != n or X.shape[1] != self.n_features:
            raise ValueError("PageColumns.fill: X must be len(paras) x FEATURES")
        if path_ids.shape[0] != n or parent_ids.shape[0] != n or chars_out.shape[0] != n:
            raise ValueError("PageColumns.fill: one id and one length per paragraph")
        if n == 0:
            return -1
        if len(chains) != n:
            raise ValueError("PageColumns.fill: one evidence chain per paragraph")
        texts = [None] * n
        grands = [None] * n
        # the page's counts in one allocation (a numpy call per array costs more than its loop on
        # a small page): rows 0-8 below, 9-10 the running sums of the window (n + 1 each)
        cdef long long[:, ::1] counts = np.zeros((11, n + 1), dtype=np.int64)
        cdef long long[::1] chars = counts[0]
        cdef long long[::1] good = counts[1]
        cdef long long[::1] is_heading = counts[2]
        # per DOM path and per parent element (by their ids): paragraphs, jusText-good and all characters
        cdef long long[::1] count_path = counts[3]
        cdef long long[::1] good_path = counts[4]
        cdef long long[::1] chars_path = counts[5]
        cdef long long[::1] count_parent = counts[6]
        cdef long long[::1] good_parent = counts[7]
        cdef long long[::1] chars_parent = counts[8]
        cdef Py_ssize_t pid, qid
        count_text = {}
        count_grand = {}
        prev_parent = prev_grand = None
        path_id = {}
        parent_id = {}
        # the first paragraph's class: its slots are read directly from those of exactly that class
        slotted_type = type(paras[0])
        offsets_bytes = slot_offsets(slotted_type)
        cdef const Py_ssize_t* offsets = NULL
        if offsets_bytes is not None:
            offsets = <const Py_ssize_t*><const char*>offsets_bytes
        total_chars = total_good = 0
        first_h1 = -1
        related = 0.0
        # pass 1: the paragraph's own columns, and the counts the page's columns need
        for i in range(n):
            p = paras[i]
            # the paragraph's fields, from its slots or (another class) its attributes
            if offsets is not NULL and type(p) is slotted_type:
                t = get_slot(p, offsets, S_TEXT)
                cls_name = get_slot(p, offsets, S_CLS)
                cf_name = get_slot(p, offsets, S_CF_CLASS)
                heading = get_slot(p, offsets, S_HEADING)
                tag = get_slot(p, offsets, S_TAG)
                dom = get_slot(p, offsets, S_DOM_PATH)
                xp = get_slot(p, offsets, S_XPATH)
                feats = get_slot(p, offsets, S_FEATURES)
            else:
                t, cls_name, cf_name, heading = p.text, p.cls, p.cf_class, p.heading
                tag, dom, xp, feats = p.tag, p.dom_path, p.xpath, p.features
            f = feats if type(feats) is dict else dict(feats)    # (any mapping, as page_features_py reads it)
            texts[i] = t
            c = len(t)
            chars[i] = c
            chars_out[i] = <double>c
            total_chars += c
            is_good = cls_name == "good"
            g = c if is_good else 0
            good[i] = g
            total_good += g
            is_heading[i] = heading
            # (a paragraph's parent is often the one before's: compared in place, not cut and hashed again)
            k = xp.rfind(u"/")
            if k > 0 and prev_parent is not None and k == len(prev_parent) and \
                    PyUnicode_Tailmatch(xp, prev_parent, 0, k, -1) == 1:
                parent = prev_parent
                grand = prev_grand
            else:
                parent = xp if k < 0 else xp[:k]
                grand = up_one(parent)
            prev_parent = parent
            prev_grand = grand
            grands[i] = grand
            pid = path_id.setdefault(dom, len(path_id))
            qid = parent_id.setdefault(parent, len(parent_id))
            path_ids[i] = pid
            parent_ids[i] = qid
            count_path[pid] += 1
            good_path[pid] += g
            chars_path[pid] += c
            count_parent[qid] += 1
            good_parent[qid] += g
            chars_parent[qid] += c
            count_grand[grand] = count_grand.get(grand, 0) + 1
            count_text[t] = count_text.get(t, 0) + 1
            if first_h1 < 0 and tag == "h1":
                first_h1 = i
            X[i, self.c_log_chars] = log1p(<double>c)
            X[i, self.c_log_words] = log1p(<double>f.get("words", 0))
            x = f.get("link_density", 0.0)
            X[i, self.c_link_density] = 2.0 if 2.0 < x else x
            X[i, self.c_stopword_density] = f.get("stopword_density", 0.0)
            X[i, self.c_log_stopwords] = log1p(<double>f.get("stopwords", 0))
            X[i, self.c_heading] = heading
            X[i, self.c_tag] = self.tag_code.get(tag, 0)
            X[i, self.c_depth] = count_slashes(xp)
            X[i, self.c_cf_class] = self.cf_code.get(cf_name, 0)
            X[i, self.c_jt_good] = is_good
            # t.rstrip().endswith(SENTENCE_END)
            j = c - 1
            while j >= 0 and Py_UNICODE_ISSPACE(t[j]):
                j -= 1
            if j >= 0:
                last = t[j]
                X[i, self.c_sentence_end] = last in self.sentence_end
            X[i, self.c_copyright] = ("\xa9" in t) or ("&copy" in t)
            if c:
                X[i, self.c_upper_start] = Py_UNICODE_ISUPPER(t[0])
            digits = count_decimals(t)
            verdict = self.verdict(t, heading, digits)
            reason = verdict[2]
            X[i, self.c_template_line] = reason is not None
            X[i, self.c_dated] = verdict[1]
            X[i, self.c_digit_share] = <double>digits / <double>(c if c else 1)
            # (every price has a digit and a currency sign or code: the pattern runs only on short
            # lines with both)
            X[i, self.c_price] = c < 200 and digits > 0 and may_be_price(t) and self.price_search(t) is not None
            X[i, self.c_template_kind] = 0 if reason is None else self.reason_code.get(reason, 7)
            X[i, self.c_rights] = verdict[0]
            X[i, self.c_ui_label] = verdict[3]
            if heading:    # under a heading announcing links to other pages
                related = reason == "boilerplate:related"
            X[i, self.c_in_related] = related
            X[i, self.c_pos] = <double>i / <double>n
        # pass 2: what the counts say of each paragraph
        cdef double total_c = <double>(total_chars if total_chars else 1)
        cdef double log_paras = log1p(<double>n), page_good_share = <double>total_good / total_c
        cdef long long cum = 0
        for i in range(n):
            t = texts[i]
            X[i, self.c_char_pos] = <double>cum / total_c
            cum += chars[i]
            pid = path_ids[i]
            qid = parent_ids[i]
            X[i, self.c_log_same_path] = log1p(<double>count_path[pid])
            X[i, self.c_log_same_text] = log1p(<double>(<Py_ssize_t>count_text[t] - 1))
            X[i, self.c_log_siblings] = log1p(<double>count_parent[qid])
            X[i, self.c_log_cousins] = log_count(count_grand, grands[i])
            c = chars_path[pid]
            X[i, self.c_same_path_good_share] = <double>good_path[pid] / <double>(c if c else 1)
            c = chars_parent[qid]
            X[i, self.c_parent_good_share] = <double>good_parent[qid] / <double>(c if c else 1)
            X[i, self.c_log_paras] = log_paras
            X[i, self.c_page_good_share] = page_good_share
            X[i, self.c_discussion] = discussion
            X[i, self.c_product] = product
            X[i, self.c_item_list] = item_list
            X[i, self.c_comment_posts] = posts
        # the evidence regions around each paragraph, once per distinct chain
        region_good = {}
        for i in range(n):
            g = good[i]
            if g:
                for xr in chains[i]:
                    region_good[xr] = region_good.get(xr, 0) + g
        hint_set = set(hints)
        # the block of a chain is computed at its first paragraph and copied to the others (a
        # region's paragraphs share their chain: often the one of the paragraph before)
        seen = {}
        cdef Py_ssize_t src, at = self.in_first, prev_src = -1
        previous = None
        for i in range(n):
            chain = chains[i]
            if not chain:
                previous = None
                continue
            if previous is not None and (chain is previous or chain == previous):
                src = prev_src
            else:
                key = tuple(chain)
                found = seen.get(key)
                if found is not None:
                    src = found
                else:
                    src = i
                    seen[key] = i
                    inner = 0
                    in_hint = 0.0
                    region_share = 0.0
                    hint_share = 0.0
                    for xr in chain:
                        kind = kinds.get(xr)
                        if kind is not None:
                            got = self.kind_code.get(kind)
                            if got is not None:
                                code = got
                                X[i, at + code - 1] = 1.0
                                inner = code
                                region_share = (<double><Py_ssize_t>region_good.get(xr, 0) / <double>total_good
                                                if total_good else 0.0)
                        if xr in hint_set:
                            in_hint = 1.0
                            hint_share = (<double><Py_ssize_t>region_good.get(xr, 0) / <double>total_good
                                          if total_good else 0.0)
                    X[i, at + self.n_kinds] = inner
                    X[i, at + self.n_kinds + 1] = in_hint
                    X[i, at + self.n_kinds + 2] = len(chain)
                    X[i, at + self.n_kinds + 3] = region_share
                    X[i, at + self.n_kinds + 4] = hint_share
            if src != i:
                for j in range(self.width):
                    X[i, at + j] = X[src, at + j]
            previous = chain
            prev_src = src
        # the title's words in each heading; the distance from the last heading
        if title_words:
            for i in range(n):
                if is_heading[i]:
                    w = self.words_of(texts[i])
                    X[i, self.c_title_like] = <double>len(w & title_words) / <double>(len(w | title_words) or 1)
        since = 1000
        since_chars = 100000
        for i in range(n):
            if is_heading[i]:
                since = 0
                since_chars = 0
            X[i, self.c_since_heading] = log1p(<double>since)
            X[i, self.c_chars_since_heading] = log1p(<double>since_chars)
            since += 1
            since_chars += chars[i]
        # the title's heading (the heading most like the title, else the first h1)
        top = -1
        if title_words:
            best = X[0, self.c_title_like]
            top = 0
            for i in range(1, n):
                if X[i, self.c_title_like] > best:
                    best = X[i, self.c_title_like]
                    top = i
            if not best >= 0.5:
                top = -1
        if top < 0:
            top = first_h1
        # paragraphs since it, signed (justext_learned._since_title, with the same C library's log1p)
        for i in range(n):
            if top < 0:
                X[i, self.c_since_title] = -10.0
            else:
                k = i - top
                X[i, self.c_since_title] = (<double>((k > 0) - (k < 0))) * log1p(fabs(<double>k))
        # the neighbours' own columns, and the jusText-good share within three paragraphs either side
        for i in range(n):
            for j in range(self.n_neighbour):
                X[i, self.c_prev + j] = X[i - 1, self.neighbour[j]] if i > 0 else -1.0
                X[i, self.c_next + j] = X[i + 1, self.neighbour[j]] if i + 1 < n else -1.0
        cdef long long[::1] gc = counts[9]
        cdef long long[::1] cc = counts[10]
        for i in range(n):
            gc[i + 1] = gc[i] + good[i]
            cc[i + 1] = cc[i] + chars[i]
        for i in range(n):
            lo = i - 3 if i >= 3 else 0
            hi = i + 4 if i + 4 < n else n
            k = cc[hi] - cc[lo]
            X[i, self.c_window_good_share] = <double>(gc[hi] - gc[lo]) / <double>(k if k > 1 else 1)
        # the counts that saturate (justext_learned._saturated)
        for i in range(n):
            for j in range(self.n_saturated):
                x = X[i, self.saturated[j]]
                X[i, self.saturated[j]] = x if x < self.saturation else self.saturation
        return top


# -- justext_learned.decide_classes, compiled -------------------------------------------------
# jusText's revision (Algorithm 2.3) over integer classes, shared with justext_walk.pyx
include "revision.pxi"

_CLASS_NAMES = ("bad", "good", "neargood", "short")


@cython.boundscheck(True)
@cython.wraparound(False)
def decide_classes(double[::1] prob, list paras, drop, Py_ssize_t max_distance, bint repeats, double good_at,
                   double bad_below, double fallback_share, Py_ssize_t repeat_min, str repeated):
    """``justext_learned.decide_classes`` step for step (tests/native/test_learned_features.py compares
    them): the model's context-free classes (``good`` at or above ``good_at``, ``bad`` below
    ``bad_below``, else ``short`` where jusText found the paragraph short, else ``neargood``),
    jusText's revision (Algorithm 2.3 with the headings rule: revision.pxi, as classic jusText's),
    the paragraphs of ``drop`` (None, or one truth value a paragraph) bad, the guard against an
    empty page, and with ``repeats`` a kept paragraph of ``repeat_min`` characters or more whose
    text an earlier kept one has ``repeated``. Returns (context-free classes, final classes) as
    lists of names. The arrays are made for ``len(paras)``, checked against ``prob`` and ``drop``
    first."""
    cdef Py_ssize_t n = len(paras), i
    cdef int c
    cdef bint any_good = False
    cdef double x, best
    if prob.shape[0] != n:
        raise ValueError("decide_classes: one probability a paragraph")
    if drop is not None and len(drop) != n:
        raise ValueError("decide_classes: one drop flag a paragraph")
    if n == 0:
        raise ValueError("decide_classes: a page without paragraphs")
    codes = np.empty((5, n), dtype=np.int32)
    lengths = np.empty(n, dtype=np.intp)
    cdef int[:, ::1] k = codes
    cdef int[::1] cf = k[0]
    cdef int[::1] cls = k[1]
    cdef Py_ssize_t[::1] chars = lengths
    texts = [None] * n
    for i in range(n):
        p = paras[i]
        t = p.text
        texts[i] = t
        chars[i] = len(t)
        k[4, i] = bool(p.heading)
        x = prob[i]
        if x >= good_at:
            c = R_GOOD
        elif x < bad_below:
            c = R_BAD
        else:
            c = R_SHORT if p.cf_class == "short" else R_NEARGOOD
        cf[i] = cls[i] = c
    revise_classes(&cf[0], &cls[0], &k[2, 0], &k[3, 0], &k[4, 0], &chars[0], n, max_distance)
    if drop is not None:
        for i in range(n):
            if drop[i]:
                cls[i] = R_BAD
    for i in range(n):
        if cls[i] == R_GOOD:
            any_good = True
            break
    if not any_good:
        # the guard: what is at least fallback_share of the best probability (numpy's max: NaN if any)
        best = prob[0]
        for i in range(n):
            x = prob[i]
            if x != x:
                best = x
                break
            if x > best:
                best = x
        best = best * fallback_share
        for i in range(n):
            cls[i] = R_GOOD if prob[i] >= best else R_BAD
    names = _CLASS_NAMES
    cf_out = [names[cf[i]] for i in range(n)]
    cls_out = [names[cls[i]] for i in range(n)]
    if repeats:
        seen = set()
        for i in range(n):
            if cls[i] == R_GOOD:
                t = texts[i]
                if len(t) >= repeat_min:
                    if t in seen:
                        cls_out[i] = repeated
                    else:
                        seen.add(t)
    return cf_out, cls_out
