# -- justext-plus's fast path: the page tokenized without libxml2 ------------------------------
#
# (included by _justext_walk.pyx after _sax_arena.pxi.) ``sax_parse`` has
# libxml2's HTML parser call three SAX callbacks (sax_start_element,
# sax_end_element, sax_characters) that build the walk's arena tree; about a
# third of justext-plus's time per page. This tokenizer reads the same bytes
# and makes the same calls in the same order, so the arena tree is the same,
# in C over the UTF-8 bytes: memchr-like table scans for the bytes that end a
# run of text ('<', '&', CR), names lowercased and looked up while read, no
# per-character decoding outside character references.
#
# What it reproduces is libxml2 2.14's HTML parser as lxml runs it (options
# RECOVER|NONET|COMPACT, encoding "utf-8", keepBlanks, no cdataBlock callback):
#
# * tokenization after HTML5 (WHATWG "13.2.5 Tokenization"): tag and attribute
#   names (ASCII lowercased, a name's first byte taken whatever it is, '=' may
#   start an attribute name), quoted and unquoted values, a stray '/' in a tag
#   skipped, comments ending at "-->" or "--!>" (``<!-->`` and ``<!--->`` empty),
#   bogus comments (``<!x>``, ``<?x>``, ``</#x>``, ``<![CDATA[``), DOCTYPE up to
#   the first '>', RCDATA (title, textarea), RAWTEXT (style, xmp, iframe,
#   noembed) and script data with its escaped states, "</" at the end of the
#   input and '<' before a non-letter as text, CR and CRLF as LF, a BOM at the
#   start dropped;
# * character references: numeric ones with the C1 remapping and U+FFFD for 0,
#   surrogates and values past U+10FFFF; named ones by the longest name of the
#   HTML5 table (Python's html.entities.html5) that prefixes the input, a name
#   without ';' only among the legacy ones and, in an attribute value, not
#   before '=' or an alphanumeric;
# * libxml2's own tree construction (not HTML5's): the implied html, head and
#   body (htmlCheckImplied), start tags that close open elements (the
#   htmlStartClose pairs), end tags that close elements of no higher priority
#   (htmlGetEndPriority) and are ignored otherwise or when nothing of the name
#   is open, misplaced html/head/body start tags dropped (with their end tags),
#   elements ended at their start tag (``empty`` in libxml2's table) or by
#   "/>" (any element), non-blank text in html or head (htmlStartCharData),
#   duplicate attributes dropped (the first stays), a tag cut by the end of the
#   input dropped, every open element ended at the end.
#
# The element facts (empty, data mode, which start tag closes which open
# element) are read from the libxml2 that lxml runs (htmlTagLookup,
# htmlAutoCloseTag) when the module loads, for every name of ``KNOWN_NAMES``;
# a name outside it has none of them, as in libxml2's tables (checked by the
# tests). Only the end-tag priorities and the pairs of an element closing its
# own kind (which htmlAutoCloseTag cannot tell) are written here.
#
# A page the tokenizer is not sure to read as libxml2 does is given back
# before its tree is used: the tree is freed and libxml2 parses the page (the
# existing path), so results never differ. That is invalid UTF-8 (libxml2
# puts U+FFFD for each bad byte), an input of 9 MB or more, a frameset,
# frame, noframes or plaintext element, a tag or attribute name of 100 bytes
# or more (libxml2 cuts them), more than 256 open elements or 4096 attributes
# on one tag, and any failure of the tree (its depth and text limits, memory):
# libxml2 then fails the same way or builds the tree. ``tokenizer_stats``
# counts both paths and the reasons; ``set_fast_tokenizer(False)`` turns the
# tokenizer off (A/B runs).

cdef extern from *:
    """
    #include <string.h>
    #include <stdlib.h>
    #include <stdint.h>

    #define CT_WS(c) ((c) == 0x20 || (c) == 0x0A || (c) == 0x09 || (c) == 0x0D || (c) == 0x0C)
    #define CT_LETTER(c) ((unsigned)(((c) | 0x20) - 'a') < 26u)
    #define CT_DIGIT(c) ((unsigned)((c) - '0') < 10u)
    #define CT_ALNUM(c) (CT_LETTER(c) || CT_DIGIT(c))
    #define CT_HEX(c) (CT_DIGIT(c) || (unsigned)(((c) | 0x20) - 'a') < 6u)

    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif

    /* the first of the bytes a, b, c at or after q (e when none): 16 bytes at a time */
    static inline const unsigned char* ct_scan3(const unsigned char* q, const unsigned char* e,
                                                unsigned char a, unsigned char b, unsigned char c) {
    #if defined(__SSE2__)
        const __m128i va = _mm_set1_epi8((char) a), vb = _mm_set1_epi8((char) b), vc = _mm_set1_epi8((char) c);
        while (e - q >= 16) {
            __m128i x = _mm_loadu_si128((const __m128i*) q);
            int m = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(x, vb)),
                                                   _mm_cmpeq_epi8(x, vc)));
            if (m)
                return q + __builtin_ctz((unsigned) m);
            q += 16;
        }
    #endif
        while (q < e && *q != a && *q != b && *q != c)
            q++;
        return q;
    }

    /* why a page went to libxml2 (tokenizer_stats) */
    enum { CT_OK = 0, CT_OFF, CT_INVALID_UTF8, CT_TOO_LARGE, CT_RARE_ELEMENT, CT_LONG_NAME, CT_DEEP,
           CT_MANY_ATTRIBUTES, CT_TREE_FAILED, CT_NO_MEMORY, CT_N_REASONS };

    #define CT_MAX_NAME 100       /* libxml2 cuts a name at 100 bytes (HTML_PARSER_BUFFER_SIZE) */
    #define CT_MAX_OPEN 256
    #define CT_MAX_ATTRS 4096

    /* data modes (libxml2's htmlElemDesc.dataMode) */
    #define CT_DATA 0
    #define CT_RCDATA 1
    #define CT_RAWTEXT 2
    #define CT_PLAINTEXT 3
    #define CT_SCRIPT 4
    #define CT_SCRIPT_ESC1 5
    #define CT_SCRIPT_ESC2 6

    /* libxml2's insertion modes (ctxt->html): a head, a body was opened */
    #define CT_INITIAL 1
    #define CT_IN_HEAD 3
    #define CT_IN_BODY 10

    typedef void (*ct_start_fn)(void*, const unsigned char*, const unsigned char**);
    typedef void (*ct_end_fn)(void*, const unsigned char*);
    typedef void (*ct_chars_fn)(void*, const unsigned char*, int);
    typedef const unsigned char* (*ct_copy_fn)(void*, const unsigned char*, size_t);

    /* a name the tokenizer knows: its interned string and libxml2's facts about it */
    typedef struct {
        const char* name;
        unsigned char len;
        unsigned char empty;       /* ended at its start tag */
        unsigned char data_mode;
        unsigned char rare;        /* handed to libxml2 */
        unsigned char head_child;  /* implies a head at the top (htmlCheckImplied) */
        unsigned char no_body;     /* implies no body (noframes, frame, frameset) */
        short priority;            /* htmlGetEndPriority */
    } ct_info;

    /* the first names, in this order, are the ones the rules name */
    enum { CT_HTML, CT_HEAD, CT_BODY, CT_P, CT_SCRIPT_NAME, CT_STYLE, CT_META, CT_LINK, CT_TITLE, CT_BASE,
           CT_NOFRAMES, CT_FRAME, CT_FRAMESET, CT_PLAINTEXT_NAME };

    static const char* const ct_known_names[] = {
        "html", "head", "body", "p", "script", "style", "meta", "link", "title", "base",
        "noframes", "frame", "frameset", "plaintext",
        /* the rest of libxml2's element table (html40ElementTable), "listing" of its htmlStartClose */
        "a", "abbr", "acronym", "address", "applet", "area", "b", "basefont", "bdo", "big", "blockquote",
        "br", "button", "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "dfn", "dir",
        "div", "dl", "dt", "em", "embed", "fieldset", "font", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "hr", "i", "iframe", "img", "input", "ins", "isindex", "kbd", "label", "legend", "li", "map",
        "menu", "noembed", "noscript", "object", "ol", "optgroup", "option", "param", "pre", "q", "s",
        "samp", "select", "small", "span", "strike", "strong", "sub", "sup", "table", "tbody", "td",
        "textarea", "tfoot", "th", "thead", "tr", "tt", "u", "ul", "var", "xmp", "listing",
        /* names of no rule, interned (no copy per page): HTML5 elements, common attributes */
        "article", "aside", "audio", "bdi", "canvas", "data", "datalist", "details", "dialog",
        "figcaption", "figure", "footer", "header", "hgroup", "main", "mark", "meter", "nav", "output",
        "picture", "progress", "rp", "rt", "ruby", "section", "source", "summary", "svg", "template",
        "time", "track", "video", "wbr", "path", "g", "use", "symbol", "defs", "circle", "rect",
        "line", "polygon", "polyline", "ellipse", "clippath", "lineargradient", "stop", "math", "nobr",
        "center", "font",
        "class", "id", "href", "src", "alt", "rel", "type", "name", "content", "width", "height",
        "target", "lang", "charset", "property", "value", "action", "method", "for", "role", "align",
        "valign", "border", "cellpadding", "cellspacing", "colspan", "rowspan", "bgcolor", "color",
        "size", "face", "onclick", "onload", "onmouseover", "onmouseout", "onsubmit", "onchange",
        "tabindex", "hidden", "disabled", "checked", "selected", "readonly", "multiple", "async",
        "defer", "crossorigin", "integrity", "media", "sizes", "srcset", "loading", "decoding",
        "itemprop", "itemscope", "itemtype", "http-equiv", "xmlns", "xml:lang", "dir", "placeholder",
        "autocomplete", "maxlength", "frameborder", "allowfullscreen", "allow", "scrolling",
        "aria-label", "aria-hidden", "aria-expanded", "aria-haspopup", "aria-controls",
        "aria-labelledby", "aria-describedby", "aria-current", "data-id", "data-src", "data-toggle",
        "data-target", "viewbox", "fill", "stroke", "d", "x", "y", "focusable", "xmlns:xlink",
        "xlink:href", "nonce", "referrerpolicy", "datetime", "label", "accept-charset", "enctype",
        "novalidate", "download", "hreflang", "title", "style", "rev", "shape", "coords", "usemap",
        "ismap", "longdesc", "hspace", "vspace", "clear", "nowrap", "summary", "scope", "headers",
        "abbr", "axis", "char", "charoff", "frame", "rules", "start", "reversed", "cite", "span",
        "alink", "vlink", "link", "text", "background", "marginwidth", "marginheight", "topmargin",
        "leftmargin", "language", "version", "profile", "manifest", "translate", "draggable",
        "contenteditable", "spellcheck", "accesskey", "autofocus", "autoplay", "controls", "loop",
        "muted", "poster", "preload", "playsinline", "min", "max", "step", "pattern", "required",
        "form", "list", "inputmode", "enterkeyhint", "is", "slot", "part", "exportparts",
        NULL
    };

    #define CT_MAX_KNOWN 512
    #define CT_NAME_SLOTS 2048
    static ct_info ct_known[CT_MAX_KNOWN];
    static int ct_n_known = 0, ct_n_rules = 0;       /* names, names with rules (the element table) */
    static short ct_name_slot[CT_NAME_SLOTS];       /* index + 1, 0 empty */
    static uint64_t ct_closes[CT_MAX_KNOWN][CT_MAX_KNOWN / 64];  /* [open][new]: new's start tag closes open */

    static inline uint32_t ct_hash_step(uint32_t h, unsigned c) { return (h ^ c) * 16777619u; }
    #define CT_HASH_INIT 2166136261u

    static const ct_info* ct_lookup(const unsigned char* s, size_t n, uint32_t h) {
        uint32_t i = h & (CT_NAME_SLOTS - 1);
        short k;
        while ((k = ct_name_slot[i]) != 0) {
            const ct_info* info = &ct_known[k - 1];
            if (info->len == n && memcmp(info->name, s, n) == 0)
                return info;
            i = (i + 1) & (CT_NAME_SLOTS - 1);
        }
        return NULL;
    }

    /* fill the table of names; the element facts come from libxml2 (the callers' functions) */
    typedef int (*ct_empty_fn)(const char* name, int* empty, int* data_mode);   /* 1: in libxml2's table */
    typedef int (*ct_autoclose_fn)(const char* open, const char* new_);
    static int ct_init_names(ct_empty_fn facts, ct_autoclose_fn autoclose) {
        int i, j, empty, mode;
        memset(ct_name_slot, 0, sizeof(ct_name_slot));
        memset(ct_closes, 0, sizeof(ct_closes));
        ct_n_known = 0;
        for (i = 0; ct_known_names[i] != NULL; i++) {
            const char* name = ct_known_names[i];
            size_t n = strlen(name);
            uint32_t h = CT_HASH_INIT;
            size_t k;
            ct_info* info;
            for (k = 0; k < n; k++)
                h = ct_hash_step(h, (unsigned char) name[k]);
            if (ct_lookup((const unsigned char*) name, n, h) != NULL)
                continue;   /* listed twice (an element and an attribute name) */
            if (ct_n_known == CT_MAX_KNOWN || n >= CT_MAX_NAME)
                return -1;
            info = &ct_known[ct_n_known];
            memset(info, 0, sizeof(ct_info));
            info->name = name;
            info->len = (unsigned char) n;
            info->priority = 100;
            empty = mode = 0;
            if (facts(name, &empty, &mode)) {
                info->empty = empty != 0;
                info->data_mode = (unsigned char) mode;
                ct_n_rules = ct_n_known + 1;
            }
            ct_n_known++;
            k = h & (CT_NAME_SLOTS - 1);
            while (ct_name_slot[k] != 0)
                k = (k + 1) & (CT_NAME_SLOTS - 1);
            ct_name_slot[k] = (short) ct_n_known;
        }
        /* htmlGetEndPriority's table; every other name 100 */
        {
            static const char* const names[] = {"div", "td", "th", "tr", "thead", "tbody", "tfoot", "table",
                                                "head", "body", "html", NULL};
            static const short values[] = {150, 160, 160, 170, 180, 180, 180, 190, 200, 200, 220};
            for (i = 0; names[i] != NULL; i++) {
                size_t n = strlen(names[i]), k;
                uint32_t h = CT_HASH_INIT;
                for (k = 0; k < n; k++)
                    h = ct_hash_step(h, (unsigned char) names[i][k]);
                ((ct_info*) ct_lookup((const unsigned char*) names[i], n, h))->priority = values[i];
            }
        }
        for (i = 0; i < ct_n_known; i++) {
            ct_known[i].head_child = (i >= CT_SCRIPT_NAME && i <= CT_BASE);
            ct_known[i].no_body = (i >= CT_NOFRAMES && i <= CT_FRAMESET);
            ct_known[i].rare = (i >= CT_NOFRAMES && i <= CT_PLAINTEXT_NAME);
            for (j = 0; j < ct_n_known; j++)
                if (i != j && autoclose(ct_known[i].name, ct_known[j].name))
                    ct_closes[i][j >> 6] |= (uint64_t) 1 << (j & 63);
        }
        /* an element closed by a start tag of its own kind: libxml2's htmlStartClose pairs
           (a, a) ... (tr, tr), which htmlAutoCloseTag does not report */
        {
            static const char* const same[] = {"a", "col", "colgroup", "form", "li", "option", "p", "tbody",
                                               "td", "th", "tr", NULL};
            for (i = 0; same[i] != NULL; i++) {
                size_t n = strlen(same[i]), k;
                uint32_t h = CT_HASH_INIT;
                for (k = 0; k < n; k++)
                    h = ct_hash_step(h, (unsigned char) same[i][k]);
                j = (int) (ct_lookup((const unsigned char*) same[i], n, h) - ct_known);
                ct_closes[j][j >> 6] |= (uint64_t) 1 << (j & 63);
            }
        }
        return 0;
    }

    static inline int ct_closes_open(const ct_info* open, const ct_info* new_) {
        int i, j;
        if (open == NULL || new_ == NULL)
            return 0;
        i = (int) (open - ct_known);
        j = (int) (new_ - ct_known);
        return (int) ((ct_closes[i][j >> 6] >> (j & 63)) & 1);
    }

    /* -- named character references: the HTML5 table ------------------------------------------ */

    typedef struct {
        char name[32];
        unsigned char len, semicolon, legacy, vlen;   /* "name;" exists, "name" exists */
        unsigned char value[8];
    } ct_entity;

    #define CT_ENTITY_SLOTS 8192
    static ct_entity* ct_entities = NULL;
    static int ct_n_entities = 0, ct_entity_cap = 0;
    static short ct_entity_slot[CT_ENTITY_SLOTS];

    static const ct_entity* ct_entity_find(const unsigned char* s, size_t n) {
        uint32_t h = CT_HASH_INIT, i;
        size_t k;
        short e;
        for (k = 0; k < n; k++)
            h = ct_hash_step(h, s[k]);
        i = h & (CT_ENTITY_SLOTS - 1);
        while ((e = ct_entity_slot[i]) != 0) {
            const ct_entity* ent = &ct_entities[e - 1];
            if (ent->len == n && memcmp(ent->name, s, n) == 0)
                return ent;
            i = (i + 1) & (CT_ENTITY_SLOTS - 1);
        }
        return NULL;
    }

    /* one name of the table (without its ';'), with or without ';' */
    static int ct_entity_add(const char* name, size_t n, int semicolon, const char* value, size_t vlen) {
        ct_entity* ent = (ct_entity*) ct_entity_find((const unsigned char*) name, n);
        uint32_t h = CT_HASH_INIT, i;
        size_t k;
        if (n == 0 || n >= sizeof(ent->name) || vlen > sizeof(ent->value))
            return -1;
        if (ent == NULL) {
            if (ct_n_entities + 1 >= CT_ENTITY_SLOTS / 2)
                return -1;
            if (ct_n_entities == ct_entity_cap) {
                int cap = ct_entity_cap ? 2 * ct_entity_cap : 1024;
                ct_entity* grown = (ct_entity*) realloc(ct_entities, cap * sizeof(ct_entity));
                if (grown == NULL)
                    return -1;
                ct_entities = grown;
                ct_entity_cap = cap;
            }
            ent = &ct_entities[ct_n_entities++];
            memset(ent, 0, sizeof(ct_entity));
            memcpy(ent->name, name, n);
            ent->len = (unsigned char) n;
            memcpy(ent->value, value, vlen);
            ent->vlen = (unsigned char) vlen;
            for (k = 0; k < n; k++)
                h = ct_hash_step(h, (unsigned char) name[k]);
            i = h & (CT_ENTITY_SLOTS - 1);
            while (ct_entity_slot[i] != 0)
                i = (i + 1) & (CT_ENTITY_SLOTS - 1);
            ct_entity_slot[i] = (short) ct_n_entities;
        }
        if (semicolon)
            ent->semicolon = 1;
        else
            ent->legacy = 1;
        return 0;
    }

    /* The named reference at s (after '&', avail bytes to the end of the input): the longest
       name that prefixes s ("name;" or a legacy "name"); its length with the ';' in *used and
       its value, or NULL. In an attribute value a legacy match before '=' or an alphanumeric
       stays text (WHATWG 13.2.5.73, "named character reference state"). */
    static const ct_entity* ct_named_ref(const unsigned char* s, size_t avail, int attr, size_t* used) {
        size_t run = 0, k;
        if (avail < 2 || !CT_LETTER(s[0]))
            return NULL;
        while (run < avail && run < 31 && CT_ALNUM(s[run]))
            run++;
        for (k = run; k >= 1; k--) {
            const ct_entity* ent = ct_entity_find(s, k);
            int term;
            if (ent == NULL)
                continue;
            term = k < avail ? s[k] : 0;
            if (term == ';' && ent->semicolon) {
                *used = k + 1;
                return ent;
            }
            if (ent->legacy) {
                if (attr && (CT_ALNUM(term) || term == '='))
                    return NULL;
                *used = k;
                return ent;
            }
        }
        return NULL;
    }

    /* a numeric reference's code point as libxml2 writes it (C1 remapped, U+FFFD for invalid ones) */
    static const unsigned short ct_c1[32] = {
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

    static int ct_utf8(long c, unsigned char* out) {
        if (c >= 0x80 && c < 0xA0)
            c = ct_c1[c - 0x80];
        else if (c <= 0 || (c >= 0xD800 && c < 0xE000) || c > 0x10FFFF)
            c = 0xFFFD;
        if (c < 0x80) { out[0] = (unsigned char) c; return 1; }
        if (c < 0x800) { out[0] = 0xC0 | (c >> 6); out[1] = 0x80 | (c & 0x3F); return 2; }
        if (c < 0x10000) {
            out[0] = 0xE0 | (c >> 12); out[1] = 0x80 | ((c >> 6) & 0x3F); out[2] = 0x80 | (c & 0x3F);
            return 3;
        }
        out[0] = 0xF0 | (c >> 18); out[1] = 0x80 | ((c >> 12) & 0x3F); out[2] = 0x80 | ((c >> 6) & 0x3F);
        out[3] = 0x80 | (c & 0x3F);
        return 4;
    }

    /* The reference at q ('&', e the end of the input): its bytes written to out (*olen), the
       input bytes it takes returned; 0 when it is no reference ('&' is text). */
    static size_t ct_reference(const unsigned char* q, const unsigned char* e, int attr,
                               unsigned char* out, int* olen) {
        const unsigned char* r = q + 1;
        if (r < e && *r == '#') {
            long cp = 0;
            int hex = 0;
            r++;
            if (r < e && (*r | 0x20) == 'x' && r + 1 < e && CT_HEX(r[1])) {
                hex = 1;
                r++;
            } else if (!(r < e && CT_DIGIT(*r))) {
                return 0;
            }
            while (r < e) {
                int c = *r, d;
                if (CT_DIGIT(c))
                    d = c - '0';
                else if (hex && (unsigned)((c | 0x20) - 'a') < 6u)
                    d = (c | 0x20) - 'a' + 10;
                else
                    break;
                cp = cp * (hex ? 16 : 10) + d;
                if (cp >= 0x110000)
                    cp = 0x110000;
                r++;
            }
            if (r < e && *r == ';')
                r++;
            *olen = ct_utf8(cp, out);
            return (size_t) (r - q);
        } else {
            size_t used;
            const ct_entity* ent = ct_named_ref(r, (size_t) (e - r), attr, &used);
            if (ent == NULL)
                return 0;
            memcpy(out, ent->value, ent->vlen);
            *olen = ent->vlen;
            return used + 1;
        }
    }

    /* -- UTF-8: libxml2 replaces each invalid byte, the tokenizer gives such a page back ---------- */

    static int ct_valid_utf8(const unsigned char* s, size_t n) {
        const unsigned char* e = s + n;
        while (s < e) {
            unsigned c;
    #if defined(__SSE2__)
            if ((size_t) (e - s) >= 16) {
                /* ASCII and no NUL byte: no high bit in the bytes or in their comparison with 0 */
                __m128i x = _mm_loadu_si128((const __m128i*) s);
                if (_mm_movemask_epi8(_mm_or_si128(x, _mm_cmpeq_epi8(x, _mm_setzero_si128()))) == 0) {
                    s += 16;
                    continue;
                }
            }
    #endif
            if ((size_t) (e - s) >= 8) {
                uint64_t w;
                memcpy(&w, s, 8);
                /* ASCII and no NUL byte (libxml2 puts U+FFFD for NUL) */
                if ((w & 0x8080808080808080ull) == 0
                        && ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) == 0) {
                    s += 8;
                    continue;
                }
            }
            c = *s;
            if (c == 0) {
                return 0;
            } else if (c < 0x80) {
                s++;
            } else if (c < 0xC2) {
                return 0;
            } else if (c < 0xE0) {
                if (e - s < 2 || (s[1] & 0xC0) != 0x80)
                    return 0;
                s += 2;
            } else if (c < 0xF0) {
                if (e - s < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
                    return 0;
                if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
                    return 0;
                s += 3;
            } else if (c < 0xF5) {
                if (e - s < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
                    return 0;
                if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
                    return 0;
                s += 4;
            } else {
                return 0;
            }
        }
        return 1;
    }

    /* -- the parser ------------------------------------------------------------------------------ */

    typedef struct {
        const unsigned char* name;
        size_t len;
        long value;        /* offset of the value in the value buffer, -1: none */
    } ct_attr;

    typedef struct {
        void* ctx;
        ct_start_fn start;
        ct_end_fn end;
        ct_chars_fn chars;
        ct_copy_fn copy;
        const unsigned char* p;
        const unsigned char* e;
        const unsigned char* names[CT_MAX_OPEN];   /* the open elements (libxml2's name stack) */
        const ct_info* infos[CT_MAX_OPEN];
        int n;
        int insert;          /* CT_INITIAL, CT_IN_HEAD, CT_IN_BODY */
        int ignored;         /* misplaced html/head/body start tags: as many of their end tags ignored */
        int mode;            /* the data mode of the text that follows */
        int give_up;
    } ct_parser;

    /* scratch kept between pages (the parse runs from start to end under the GIL) */
    static ct_attr* ct_attrs = NULL;
    static int ct_attr_cap = 0;
    static unsigned char* ct_vbuf = NULL;
    static size_t ct_vcap = 0;
    static const unsigned char** ct_atts = NULL;
    static int ct_atts_cap = 0;

    static unsigned char ct_name_end[256], ct_attr_name_end[256], ct_unquoted_end[256];

    static void ct_init_tables(void) {
        int c;
        for (c = 0; c < 256; c++)
            ct_name_end[c] = CT_WS(c) || c == '/' || c == '>';
        memcpy(ct_attr_name_end, ct_name_end, 256);
        ct_attr_name_end['='] = 1;
        for (c = 0; c < 256; c++)
            ct_unquoted_end[c] = CT_WS(c) || c == '>';
    }

    static inline const unsigned char* ct_top(ct_parser* P) { return P->n ? P->names[P->n - 1] : NULL; }
    static inline const ct_info* ct_top_info(ct_parser* P) { return P->n ? P->infos[P->n - 1] : NULL; }
    static inline int ct_top_is(ct_parser* P, int k) { return P->n && P->infos[P->n - 1] == &ct_known[k]; }

    static inline void ct_skip_ws(ct_parser* P) {
        while (P->p < P->e && CT_WS(*P->p))
            P->p++;
    }

    static void ct_push(ct_parser* P, const unsigned char* name, const ct_info* info) {
        if (P->n == CT_MAX_OPEN) {
            P->give_up = CT_DEEP;
            return;
        }
        if (info == &ct_known[CT_HEAD] && P->insert < CT_IN_HEAD)
            P->insert = CT_IN_HEAD;
        if (info == &ct_known[CT_BODY] && P->insert < CT_IN_BODY)
            P->insert = CT_IN_BODY;
        P->names[P->n] = name;
        P->infos[P->n] = info;
        P->n++;
    }

    static inline void ct_pop(ct_parser* P) {
        P->end(P->ctx, P->names[P->n - 1]);
        P->n--;
    }

    static void ct_open_implied(ct_parser* P, int k) {
        const unsigned char* name = (const unsigned char*) ct_known[k].name;
        ct_push(P, name, &ct_known[k]);
        if (!P->give_up)
            P->start(P->ctx, name, NULL);
    }

    /* htmlAutoClose: the open elements a start tag of new_ closes */
    static void ct_auto_close(ct_parser* P, const ct_info* new_) {
        if (new_ == NULL)
            return;
        while (P->n && ct_closes_open(P->infos[P->n - 1], new_))
            ct_pop(P);
    }

    /* htmlCheckImplied: the html, head or body a start tag of new_ (known, k its index, or -1) implies */
    static void ct_check_implied(ct_parser* P, const ct_info* new_) {
        int i;
        if (new_ == &ct_known[CT_HTML])
            return;
        if (P->n == 0)
            ct_open_implied(P, CT_HTML);
        if (new_ == &ct_known[CT_BODY] || new_ == &ct_known[CT_HEAD])
            return;
        if (P->n <= 1 && new_ != NULL && new_->head_child) {
            if (P->insert >= CT_IN_HEAD)
                return;
            ct_open_implied(P, CT_HEAD);
        } else if (new_ == NULL || !new_->no_body) {
            if (P->insert >= CT_IN_BODY)
                return;
            for (i = 0; i < P->n; i++)
                if (P->infos[i] == &ct_known[CT_BODY] || P->infos[i] == &ct_known[CT_HEAD])
                    return;
            ct_open_implied(P, CT_BODY);
        }
    }

    /* htmlStartCharData: before text that is not blank */
    static void ct_start_char_data(ct_parser* P) {
        if (ct_top_is(P, CT_HEAD))
            ct_auto_close(P, &ct_known[CT_P]);
        ct_check_implied(P, &ct_known[CT_P]);
    }

    /* htmlCharDataSAXCallback: a chunk of text; in html or head (or nothing) its leading blanks
       go to the open element as they are, the rest opens what text implies first */
    static void ct_text(ct_parser* P, const unsigned char* s, size_t n) {
        if (n == 0)
            return;
        if (P->n == 0 || ct_top_is(P, CT_HTML) || ct_top_is(P, CT_HEAD)) {
            size_t i = 0;
            while (i < n && CT_WS(s[i]))
                i++;
            if (i) {
                P->chars(P->ctx, s, (int) i);
                s += i;
                n -= i;
            }
            if (n == 0)
                return;
            ct_start_char_data(P);
        }
        P->chars(P->ctx, s, (int) n);
    }

    /* the end of a raw text element at q ('<'), in the current data mode; updates *mode for
       the script states; 1 when q starts the element's end tag */
    static int ct_raw_end(ct_parser* P, const unsigned char* q, int* mode) {
        const unsigned char* e = P->e;
        size_t avail = (size_t) (e - q), j = 1;
        if (j >= avail)
            return 0;
        if (*mode == CT_SCRIPT && q[1] == '!') {
            if (avail > 3 && q[2] == '-' && q[3] == '-')
                *mode = CT_SCRIPT_ESC1;
        } else {
            int solidus = 0;
            if (q[1] == '/') {
                j = 2;
                solidus = 1;
            }
            if (solidus || *mode == CT_SCRIPT_ESC1) {
                const unsigned char* name = ct_top(P);
                size_t i = 0;
                while (j < avail && name[i] != 0 && name[i] == (q[j] | 0x20)) {
                    i++;
                    j++;
                }
                if (name[i] == 0 && j < avail) {
                    int c = q[j];
                    if (c == '>' || c == '/' || CT_WS(c)) {
                        if (*mode == CT_SCRIPT_ESC1 && !solidus)
                            *mode = CT_SCRIPT_ESC2;
                        else if (*mode == CT_SCRIPT_ESC2)
                            *mode = CT_SCRIPT_ESC1;
                        else
                            return 1;
                    }
                }
            }
        }
        return 0;
    }

    /* htmlParseCharData: text up to a tag (data mode) or to the element's end tag (the others) */
    static void ct_char_data(ct_parser* P) {
        const unsigned char* s = P->p;
        const unsigned char* q = s;
        const unsigned char* e = P->e;
        int mode = P->mode;
        unsigned char repl[8];
        int rlen;
        size_t used;
        if (P->n == 0 && mode != CT_DATA) {
            P->give_up = CT_RARE_ELEMENT;   /* (a raw text mode with no element: never seen) */
            return;
        }
        for (;;) {
            /* the bytes where the text may end or change: '<', CR, '&' where references count,
               '-' in a script's escaped states */
            if (mode == CT_DATA || mode == CT_RCDATA)
                q = ct_scan3(q, e, '<', '&', '\\r');
            else if (mode == CT_SCRIPT_ESC1 || mode == CT_SCRIPT_ESC2)
                q = ct_scan3(q, e, '<', '-', '\\r');
            else
                q = ct_scan3(q, e, '<', '\\r', '\\r');
            if (q >= e)
                break;
            switch (*q) {
            case '<':
                if (mode == CT_DATA || ct_raw_end(P, q, &mode)) {
                    ct_text(P, s, (size_t) (q - s));
                    P->p = q;
                    P->mode = CT_DATA;
                    return;
                }
                /* ct_raw_end may have switched to a script state with another stop set */
                q++;
                break;
            case '&':
                used = ct_reference(q, e, 0, repl, &rlen);
                if (used == 0) {
                    q++;
                    break;
                }
                ct_text(P, s, (size_t) (q - s));
                ct_text(P, repl, (size_t) rlen);
                q += used;
                s = q;
                break;
            case '\\r':
                ct_text(P, s, (size_t) (q - s));
                q++;
                if (!(q < e && *q == '\\n'))
                    ct_text(P, (const unsigned char*) "\\n", 1);
                s = q;
                break;
            case '-':
                if ((mode == CT_SCRIPT_ESC1 || mode == CT_SCRIPT_ESC2) && e - q > 2 && q[1] == '-' && q[2] == '>')
                    mode = CT_SCRIPT;
                q++;
                break;
            default:
                q++;
            }
        }
        ct_text(P, s, (size_t) (q - s));
        P->p = q;
        P->mode = mode;
    }

    /* a comment after "<!--": up to "-->" or "--!>" (or the end); "<!-->" and "<!--->" empty */
    static void ct_comment(ct_parser* P) {
        const unsigned char* q = P->p;
        const unsigned char* e = P->e;
        if (q < e && *q == '>') {
            P->p = q + 1;
            return;
        }
        if (e - q >= 2 && q[0] == '-' && q[1] == '>') {
            P->p = q + 2;
            return;
        }
        while (q < e) {
            q = (const unsigned char*) memchr(q, '-', (size_t) (e - q));
            if (q == NULL)
                break;
            if (e - q >= 3 && q[1] == '-' && q[2] == '>') {
                P->p = q + 3;
                return;
            }
            if (e - q >= 4 && q[1] == '-' && q[2] == '!' && q[3] == '>') {
                P->p = q + 4;
                return;
            }
            q++;
        }
        P->p = e;
    }

    /* a bogus comment, a DOCTYPE: up to the first '>' (or the end) */
    static void ct_skip_to_gt(ct_parser* P) {
        const unsigned char* q = (const unsigned char*) memchr(P->p, '>', (size_t) (P->e - P->p));
        P->p = q ? q + 1 : P->e;
    }

    static int ct_doctype_at(const unsigned char* q, const unsigned char* e) {
        static const char word[] = "DOCTYPE";
        int i;
        if (e - q < 9 || q[1] != '!')
            return 0;
        for (i = 0; i < 7; i++)
            if ((q[2 + i] & 0xDF) != word[i])
                return 0;
        return 1;
    }

    /* A tag or attribute name at P->p (its first byte taken whatever it is), ASCII lowercased
       into buf; its length, -1 when it is too long (libxml2 cuts it). */
    static int ct_read_name(ct_parser* P, unsigned char* buf, const unsigned char* end_set, uint32_t* hash) {
        const unsigned char* q = P->p;
        const unsigned char* e = P->e;
        uint32_t h = CT_HASH_INIT;
        int n = 0;
        do {
            unsigned c = *q++;
            if (n == CT_MAX_NAME - 1)
                return -1;
            if ((unsigned)(c - 'A') < 26u)
                c += 0x20;
            buf[n++] = (unsigned char) c;
            h = ct_hash_step(h, c);
        } while (q < e && !end_set[*q]);
        buf[n] = 0;
        P->p = q;
        *hash = h;
        return n;
    }

    /* the interned name (a known one, or a copy the tree keeps) */
    static const unsigned char* ct_intern(ct_parser* P, const unsigned char* buf, int n, uint32_t h,
                                          const ct_info** info) {
        const ct_info* known = ct_lookup(buf, (size_t) n, h);
        const unsigned char* name;
        *info = known;
        if (known != NULL)
            return (const unsigned char*) known->name;
        name = P->copy(P->ctx, buf, (size_t) n);
        if (name == NULL)
            P->give_up = CT_NO_MEMORY;
        return name;
    }

    static int ct_vbuf_room(size_t need) {
        if (need > ct_vcap) {
            size_t cap = ct_vcap ? ct_vcap : 4096;
            unsigned char* grown;
            while (cap < need)
                cap *= 2;
            grown = (unsigned char*) realloc(ct_vbuf, cap);
            if (grown == NULL)
                return 0;
            ct_vbuf = grown;
            ct_vcap = cap;
        }
        return 1;
    }

    /* htmlParseAttValue: a value at P->p, its references replaced, CR and CRLF as LF; appended
       to the value buffer at *vlen (NUL-terminated) when keep, else skipped */
    static int ct_att_value(ct_parser* P, int keep, size_t* vlen) {
        const unsigned char* q = P->p;
        const unsigned char* e = P->e;
        const unsigned char* s;
        int quote = 0;
        unsigned char repl[8];
        int rlen;
        size_t used;
        if (q < e && (*q == '"' || *q == '\\'')) {
            quote = *q++;
        }
        s = q;
        for (;;) {
            if (quote) {
                q = ct_scan3(q, e, (unsigned char) quote, '&', '\\r');
            } else {
                while (q < e && !ct_unquoted_end[*q] && *q != '&')
                    q++;
            }
            if (keep && q > s) {
                if (!ct_vbuf_room(*vlen + (size_t) (q - s) + 8))
                    return 0;
                memcpy(ct_vbuf + *vlen, s, (size_t) (q - s));
                *vlen += (size_t) (q - s);
            }
            if (q >= e || *q == quote || (!quote && ct_unquoted_end[*q]))
                break;
            if (*q == '&') {
                used = ct_reference(q, e, 1, repl, &rlen);
                if (used == 0) {
                    rlen = 1;
                    repl[0] = '&';
                    used = 1;
                }
            } else {   /* CR */
                used = 1;
                rlen = (q + 1 < e && q[1] == '\\n') ? 0 : 1;
                repl[0] = '\\n';
            }
            if (keep && rlen) {
                if (!ct_vbuf_room(*vlen + (size_t) rlen + 8))
                    return 0;
                memcpy(ct_vbuf + *vlen, repl, (size_t) rlen);
                *vlen += (size_t) rlen;
            }
            q += used;
            s = q;
        }
        if (quote && q < e)
            q++;   /* the closing quote */
        P->p = q;
        if (keep)
            ct_vbuf[(*vlen)++] = 0;
        return 1;
    }

    /* the attributes of a tag, up to '>', "/>" or the end; kept (ct_attrs) when keep */
    static int ct_attributes(ct_parser* P, int keep, int* nattrs) {
        unsigned char buf[CT_MAX_NAME];
        size_t vlen = 0;
        int n = 0;
        const unsigned char* e = P->e;
        ct_skip_ws(P);
        while (P->p < e && *P->p != '>' && !(*P->p == '/' && P->p + 1 < e && P->p[1] == '>')) {
            uint32_t h;
            int len;
            const unsigned char* name = NULL;
            long value = -1;
            if (*P->p == '/') {
                P->p++;
                ct_skip_ws(P);
                continue;
            }
            len = ct_read_name(P, buf, ct_attr_name_end, &h);
            if (len < 0) {
                if (keep) {
                    P->give_up = CT_LONG_NAME;
                    return 0;
                }
                /* (a long name in an end tag: skipped to its end) */
                while (P->p < e && !ct_attr_name_end[*P->p])
                    P->p++;
            } else if (keep) {
                const ct_info* info;
                name = ct_intern(P, buf, len, h, &info);
                if (name == NULL)
                    return 0;
            }
            ct_skip_ws(P);
            if (P->p < e && *P->p == '=') {
                P->p++;
                ct_skip_ws(P);
                if (keep)
                    value = (long) vlen;
                if (!ct_att_value(P, keep, &vlen)) {
                    P->give_up = CT_NO_MEMORY;
                    return 0;
                }
            }
            if (keep) {
                if (n == CT_MAX_ATTRS) {
                    P->give_up = CT_MANY_ATTRIBUTES;
                    return 0;
                }
                if (n == ct_attr_cap) {
                    int cap = ct_attr_cap ? 2 * ct_attr_cap : 64;
                    ct_attr* grown = (ct_attr*) realloc(ct_attrs, cap * sizeof(ct_attr));
                    if (grown == NULL) {
                        P->give_up = CT_NO_MEMORY;
                        return 0;
                    }
                    ct_attrs = grown;
                    ct_attr_cap = cap;
                }
                ct_attrs[n].name = name;
                ct_attrs[n].len = (size_t) len;
                ct_attrs[n].value = value;
                n++;
            }
            ct_skip_ws(P);
        }
        *nattrs = n;
        return 1;
    }

    /* the atts array of the kept attributes, duplicates dropped (the first stays) */
    static const unsigned char** ct_build_atts(ct_parser* P, int n) {
        int i, j, k = 0;
        if (n == 0)
            return NULL;
        if (2 * n + 2 > ct_atts_cap) {
            int cap = 2 * n + 2 > 128 ? 2 * n + 2 : 128;
            const unsigned char** grown = (const unsigned char**) realloc((void*) ct_atts, cap * sizeof(void*));
            if (grown == NULL) {
                P->give_up = CT_NO_MEMORY;
                return NULL;
            }
            ct_atts = grown;
            ct_atts_cap = cap;
        }
        for (i = 0; i < n; i++) {
            int duplicate = 0;
            for (j = 0; j < i; j++) {
                if (ct_attrs[j].len == ct_attrs[i].len
                        && (ct_attrs[j].name == ct_attrs[i].name
                            || memcmp(ct_attrs[j].name, ct_attrs[i].name, ct_attrs[i].len) == 0)) {
                    duplicate = 1;
                    break;
                }
            }
            if (duplicate)
                continue;
            ct_atts[k++] = ct_attrs[i].name;
            ct_atts[k++] = ct_attrs[i].value < 0 ? NULL : ct_vbuf + ct_attrs[i].value;
        }
        ct_atts[k] = ct_atts[k + 1] = NULL;
        return ct_atts;
    }

    /* htmlParseElementInternal + htmlParseStartTag: a start tag at P->p ('<' and a letter) */
    static void ct_start_tag(ct_parser* P) {
        unsigned char buf[CT_MAX_NAME];
        uint32_t h;
        int len, nattrs = 0, i, discard = 0;
        const ct_info* info;
        const ct_info* top_info;
        const unsigned char* name;
        const unsigned char** atts;
        P->p++;
        len = ct_read_name(P, buf, ct_name_end, &h);
        if (len < 0) {
            P->give_up = CT_LONG_NAME;
            return;
        }
        name = ct_intern(P, buf, len, h, &info);
        if (name == NULL)
            return;
        if (info != NULL && info->rare) {
            P->give_up = CT_RARE_ELEMENT;
            return;
        }
        ct_auto_close(P, info);
        ct_check_implied(P, info);
        if (P->give_up)
            return;
        if (P->n > 0 && info == &ct_known[CT_HTML]) {
            discard = 1;
            P->ignored++;
        }
        if (P->n != 1 && info == &ct_known[CT_HEAD]) {
            discard = 1;
            P->ignored++;
        }
        if (info == &ct_known[CT_BODY]) {
            for (i = 0; i < P->n; i++) {
                if (P->infos[i] == info) {
                    discard = 1;
                    P->ignored++;
                }
            }
        }
        if (!ct_attributes(P, 1, &nattrs))
            return;
        if (P->p >= P->e)
            return;   /* a tag cut by the end of the input is dropped */
        atts = ct_build_atts(P, nattrs);
        if (P->give_up)
            return;
        if (!discard) {
            ct_push(P, name, info);
            if (P->give_up)
                return;
            P->start(P->ctx, name, atts);
        }
        /* what follows concerns the open element, the new one or (a tag dropped) the one before */
        if (P->n == 0)
            return;
        if (*P->p == '/') {          /* "/>": ended at once, whatever the element */
            P->p += 2;
            ct_pop(P);
            return;
        }
        P->p++;                      /* '>' */
        top_info = ct_top_info(P);
        if (top_info != NULL && top_info->empty) {
            ct_pop(P);
            return;
        }
        if (top_info != NULL)
            P->mode = top_info->data_mode;
    }

    static int ct_same_name(ct_parser* P, int i, const unsigned char* name, const ct_info* info) {
        if (info != NULL || P->infos[i] != NULL)
            return P->infos[i] == info;
        return strcmp((const char*) P->names[i], (const char*) name) == 0;
    }

    /* htmlParseEndTag: an end tag at P->p ("</") */
    static void ct_end_tag(ct_parser* P) {
        unsigned char buf[CT_MAX_NAME];
        uint32_t h;
        int len, nattrs, i, priority;
        const ct_info* info;
        P->p += 2;
        if (P->p >= P->e) {
            ct_start_char_data(P);
            P->chars(P->ctx, (const unsigned char*) "</", 2);
            return;
        }
        if (*P->p == '>') {
            P->p++;
            return;
        }
        if (!CT_LETTER(*P->p)) {
            ct_skip_to_gt(P);
            return;
        }
        len = ct_read_name(P, buf, ct_name_end, &h);
        if (len < 0) {
            P->give_up = CT_LONG_NAME;
            return;
        }
        info = ct_lookup(buf, (size_t) len, h);
        if (!ct_attributes(P, 0, &nattrs))
            return;
        if (P->p >= P->e)
            return;
        P->p += *P->p == '>' ? 1 : 2;
        if (P->ignored > 0 && (info == &ct_known[CT_HTML] || info == &ct_known[CT_BODY]
                               || info == &ct_known[CT_HEAD])) {
            P->ignored--;
            return;
        }
        for (i = P->n - 1; i >= 0; i--)
            if (ct_same_name(P, i, buf, info))
                break;
        if (i < 0)
            return;   /* nothing of the name is open */
        /* htmlAutoCloseOnClose: the elements above it close unless one has a higher priority */
        priority = info ? info->priority : 100;
        for (i = P->n - 1; i >= 0; i--) {
            if (ct_same_name(P, i, buf, info))
                break;
            if ((P->infos[i] ? P->infos[i]->priority : 100) > priority)
                return;
        }
        while (!ct_same_name(P, P->n - 1, buf, info))
            ct_pop(P);
        ct_pop(P);
    }

    /* htmlParseDocument: the whole input; CT_OK or why the page goes to libxml2 */
    static int ct_parse(ct_parser* P, const unsigned char* data, size_t n) {
        const unsigned char* e = data + n;
        P->p = data;
        P->e = e;
        P->n = 0;
        P->insert = CT_INITIAL;
        P->ignored = 0;
        P->mode = CT_DATA;
        P->give_up = CT_OK;
        if (n >= 9000000)
            return CT_TOO_LARGE;
        if (!ct_valid_utf8(data, n))
            return CT_INVALID_UTF8;
        if (n >= 4 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
            P->p += 3;   /* the BOM (xmlDetectEncoding, which reads 4 bytes or none) */
        ct_skip_ws(P);
        while (P->p < e && !P->give_up) {
            const unsigned char* q = P->p;
            if (P->mode != CT_DATA || *q != '<') {
                ct_char_data(P);
                continue;
            }
            if (e - q < 2) {
                ct_start_char_data(P);
                P->chars(P->ctx, q, 1);
                P->p++;
                continue;
            }
            switch (q[1]) {
            case '/':
                ct_end_tag(P);
                break;
            case '!':
                if (ct_doctype_at(q, e)) {
                    P->p += 9;
                    ct_skip_to_gt(P);
                } else if (e - q >= 4 && q[2] == '-' && q[3] == '-') {
                    P->p += 4;
                    ct_comment(P);
                } else {
                    P->p += 2;
                    ct_skip_to_gt(P);
                }
                break;
            case '?':
                P->p += 1;
                ct_skip_to_gt(P);
                break;
            default:
                if (CT_LETTER(q[1])) {
                    ct_start_tag(P);
                } else {
                    ct_start_char_data(P);
                    P->chars(P->ctx, q, 1);
                    P->p++;
                }
            }
        }
        if (P->give_up)
            return P->give_up;
        while (P->n)
            ct_pop(P);
        return CT_OK;
    }
    """
    enum:
        CT_OK
        CT_OFF
        CT_INVALID_UTF8
        CT_TOO_LARGE
        CT_RARE_ELEMENT
        CT_LONG_NAME
        CT_DEEP
        CT_MANY_ATTRIBUTES
        CT_TREE_FAILED
        CT_NO_MEMORY
        CT_N_REASONS
    ctypedef void (*ct_start_fn)(void*, const unsigned char*, const unsigned char**) noexcept nogil
    ctypedef void (*ct_end_fn)(void*, const unsigned char*) noexcept nogil
    ctypedef void (*ct_chars_fn)(void*, const unsigned char*, int) noexcept nogil
    ctypedef const unsigned char* (*ct_copy_fn)(void*, const unsigned char*, size_t) noexcept nogil
    ctypedef int (*ct_empty_fn)(const char* name, int* empty, int* data_mode) noexcept nogil
    ctypedef int (*ct_autoclose_fn)(const char* open, const char* new_) noexcept nogil
    ctypedef struct ct_parser:
        void* ctx
        ct_start_fn start
        ct_end_fn end
        ct_chars_fn chars
        ct_copy_fn copy
        int n
    int ct_init_names(ct_empty_fn facts, ct_autoclose_fn autoclose) nogil
    void ct_init_tables() nogil
    int ct_entity_add(const char* name, size_t n, int semicolon, const char* value, size_t vlen) nogil
    int ct_parse(ct_parser* P, const unsigned char* data, size_t n) nogil
    const char* const* ct_known_names
    int ct_n_known


cdef extern from "libxml/HTMLparser.h" nogil:
    ctypedef struct ElemDesc "htmlElemDesc":
        const char* name
        char empty
        int dataMode

ctypedef const ElemDesc* (*TagLookupFn)(const_xmlChar* tag) noexcept nogil
ctypedef int (*AutoCloseTagFn)(xmlDoc* doc, const_xmlChar* name, xmlNode* elem) noexcept nogil

cdef TagLookupFn lx_tag_lookup = NULL
cdef AutoCloseTagFn lx_autoclose_tag = NULL
cdef bint fast_tokenizer = False
cdef long tokenizer_reasons[16]      # pages by outcome: CT_OK (the tokenizer's), the others (libxml2's)


cdef int element_facts(const char* name, int* empty, int* data_mode) noexcept nogil:
    """libxml2's element table entry of name: ended at its start tag, data mode; 0 without one."""
    cdef const ElemDesc* desc = lx_tag_lookup(<const_xmlChar*>name)
    if desc is NULL:
        return 0
    empty[0] = desc.empty
    data_mode[0] = desc.dataMode
    return 1


cdef int closes_open(const char* open, const char* new) noexcept nogil:
    """Does a start tag of ``new`` close an open ``open`` (libxml2's htmlStartClose)? Asked through
    htmlAutoCloseTag(doc, open, node named new without children), which is htmlCheckAutoClose."""
    cdef xmlNode node
    memset(&node, 0, sizeof(xmlNode))
    node.name = <const_xmlChar*>new
    return lx_autoclose_tag(NULL, <const_xmlChar*>open, &node)


VERIFIED_LIBXML = (2, 14)      # the libxml2 release whose trees the tests compare with


def _init_tokenizer():
    """Resolve libxml2's element facts and fill the tokenizer's tables; the reason when it stays off."""
    global lx_tag_lookup, lx_autoclose_tag
    from html.entities import html5
    if not SAX_AVAILABLE:
        return f"no SAX path: {SAX_ERROR}"
    from lxml import etree as lxml_etree
    if tuple(lxml_etree.LIBXML_VERSION[:2]) != VERIFIED_LIBXML:
        # (2.14 brought the HTML5 tokenizer; another version's parser is not known to give these trees)
        return (f"the tokenizer reproduces libxml2 {'.'.join(map(str, VERIFIED_LIBXML))}'s HTML parser; "
                f"lxml runs libxml2 {'.'.join(map(str, lxml_etree.LIBXML_VERSION))}")
    cdef void* handle = loaded_library(lxml_etree.__file__.encode())
    if handle is NULL:
        return "lxml.etree's libxml2 symbols are not reachable (dlopen)"
    lx_tag_lookup = <TagLookupFn>library_symbol(handle, b"htmlTagLookup")
    lx_autoclose_tag = <AutoCloseTagFn>library_symbol(handle, b"htmlAutoCloseTag")
    if lx_tag_lookup is NULL or lx_autoclose_tag is NULL:
        return "lxml.etree does not export htmlTagLookup/htmlAutoCloseTag"
    if not closes_open(b"p", b"div") or closes_open(b"div", b"p"):
        return "libxml2's htmlAutoCloseTag does not tell which start tag closes which element"
    ct_init_tables()
    if ct_init_names(element_facts, closes_open) != 0:
        return "the tokenizer's table of names is too small"
    for key, value in html5.items():
        semicolon = key.endswith(";")
        name = (key[:len(key) - 1] if semicolon else key).encode("ascii")
        encoded = value.encode("utf-8")
        if ct_entity_add(name, len(name), semicolon, encoded, len(encoded)) != 0:
            return f"the character reference {key!r} does not fit the tokenizer's table"
    return None


try:
    TOKENIZER_ERROR = _init_tokenizer()
except Exception as exc:   # noqa: BLE001 - any problem leaves the tokenizer off, never the module
    TOKENIZER_ERROR = f"{type(exc).__name__}: {exc}"
TOKENIZER_AVAILABLE = TOKENIZER_ERROR is None
fast_tokenizer = TOKENIZER_AVAILABLE


cdef const unsigned char* copy_name(void* ctx, const unsigned char* s, size_t n) noexcept nogil:
    """A name the tree keeps (the tokenizer's names live in the tree's arena, as libxml2's in its dict)."""
    cdef char* p = <char*>arena_alloc(<SaxTree*>ctx, n + 1, 0)
    if p is NULL:
        return NULL
    memcpy(p, s, n)
    p[n] = 0
    return <const unsigned char*>p


cdef bint tokenize_into(SaxTree* t, bytes data) noexcept:
    """Build t from data with the tokenizer; False (t emptied, as new) when libxml2 must parse it."""
    cdef ct_parser parser
    cdef int outcome
    cdef bint strip_ruby = t.strip_ruby, keep_all_text = t.keep_all_text
    if not fast_tokenizer:
        tokenizer_reasons[CT_OFF] += 1
        return False
    parser.ctx = t
    parser.start = <ct_start_fn>sax_start_element
    parser.end = <ct_end_fn>sax_end_element
    parser.chars = <ct_chars_fn>sax_characters
    parser.copy = copy_name
    outcome = ct_parse(&parser, <const unsigned char*>PyBytes_AS_STRING(data), <size_t>PyBytes_GET_SIZE(data))
    if outcome == CT_OK and t.failed:
        outcome = CT_TREE_FAILED
    tokenizer_reasons[outcome] += 1
    if outcome == CT_OK:
        return True
    tree_free(t)
    memset(t, 0, sizeof(SaxTree))
    t.strip_ruby = strip_ruby
    t.keep_all_text = keep_all_text
    return False


_REASONS = ("tokenizer", "off", "invalid UTF-8", "9 MB or more", "frameset/frame/noframes/plaintext",
            "name of 100 bytes or more", "more than 256 open elements", "more than 4096 attributes on a tag",
            "tree failed (depth, text or memory limit)", "out of memory")


def tokenizer_stats():
    """{outcome: pages} in this process: "tokenizer" (pages it built), the others the reasons
    pages went to libxml2's parser."""
    return {_REASONS[i]: tokenizer_reasons[i] for i in range(CT_N_REASONS) if tokenizer_reasons[i]}


def set_fast_tokenizer(bint on):
    """Turn the tokenizer on (when available) or off (libxml2 parses every page); the previous setting."""
    global fast_tokenizer
    previous = fast_tokenizer
    fast_tokenizer = on and TOKENIZER_AVAILABLE
    return previous


def known_names():
    """The names the tokenizer knows (interned, libxml2's facts read for them)."""
    return [(<bytes>ct_known_names[i]).decode() for i in range(ct_n_known)]
