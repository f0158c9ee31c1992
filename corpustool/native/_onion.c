/* corpustool.native._onion: onion (seed 003 Sect. 3.5, Algorithm 3.1) over a vertical file, byte level.
 *
 * Why compiled: the Python/numpy engine needs a Python object per token to read a vertical file
 * (0.65M tokens/CPU-s end to end against C onion's 1.9M, issue 21). Here a document's lines are
 * found with memchr, every line is hashed once, n-gram hashes roll over a ring of the last n token
 * hashes, and the sets of n-grams are open-addressing tables of uint64 (no object per token).
 *
 * Behaviour is the onion program's (onion 1.2 by Jan Pomikalek), re-implemented, not copied:
 *  - a token is a line not starting with '<'; documents start at a line "<doc ..."/"<doc>" or
 *    the line after "</doc>", paragraphs likewise with <p>; n-grams run across paragraphs but not
 *    across documents;
 *  - an n-gram is a duplicate when it was kept earlier (the global set) or seen earlier in the same
 *    document (the local set); a paragraph's duplicate tokens are those covered by duplicate
 *    n-grams ending in it; over the threshold it is a duplicate;
 *  - smoothing ("onion" rule): a run of non-duplicate paragraphs between duplicates (or a document
 *    edge) with at most max_stub tokens in total is removed; the "inner" rule removes only runs
 *    between two duplicates whose paragraphs each have at most max_stub tokens;
 *  - skip_punct (seed 003 Table 3.4's "excl. punct", not in onion): tokens without a letter or digit
 *    (is_word_token) take no part in n-grams or in a paragraph's duplicate share; they still count
 *    for the stub rule, the statistics and whole-paragraph matching;
 *  - context (seed 003 Sect. 3.5.2, jusText's context-sensitive classification with duplicates as
 *    bad blocks; off unless near >= 0): a "near-duplicate" paragraph, more than `near` but not more
 *    than `threshold` of it duplicate, is a duplicate when the nearest paragraphs with tokens that are
 *    not near-duplicates on both sides are duplicates (a document edge counts as one), as jusText's
 *    near-good blocks between bad ones; this runs before the stub rule;
 *  - the <doc> and </doc> lines are removed when no paragraph with tokens is kept;
 *  - the n-grams ending in kept paragraphs join the global set.
 * Differences from the C program: lines are kept byte for byte (NUL bytes included, a last line
 * without a newline is written without one); documents of any length (no 16 MB buffer limit).
 *
 * Memory safety: every access to the input goes through explicit lengths (memchr/memcmp bounded by
 * the line's end), every array is grown before it is written (checked sizes, overflow-checked
 * growth), tables never fill (grown at 75 % load). Fuzzed by scripts/fuzz_onion.py in fresh processes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>

#define EMPTY 0ULL

/* ------------------------------------------------------------------ hashing */

static inline uint64_t mix64(uint64_t x) {           /* splitmix64 finaliser */
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27; x *= 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x;
}

/* hash of one line (token), 8 bytes at a time; reads only p[0..n) */
static inline uint64_t token_hash(const unsigned char *p, size_t n) {
    uint64_t h = 0x243F6A8885A308D3ULL ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
        p += 8; n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w ^ ((uint64_t)n << 56)) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 29;
    return h;
}

#define POLY 0x9E3779B97F4A7C15ULL

/* --------------------------------------------------------- open addressing */

/* A set of 64-bit keys, linear probing, the home slot from the key's top bits (keys are mixed
 * hashes, so uniform). Key 0 marks an empty slot; callers never store 0. Bit 0 of a stored key is
 * a flag (onion's "seen" bit): keys compare on bits 63..1. */
typedef struct {
    uint64_t *slot;
    size_t cap;      /* power of two (0: no table yet) */
    size_t n;
    int bits;        /* log2(cap) */
} Table;

static int table_init(Table *t, size_t cap) {
    int bits = 0;
    size_t c = 1;
    while (c < cap) { c <<= 1; bits++; }
    if (bits == 0) { c = 2; bits = 1; }
    t->slot = (uint64_t *)calloc(c, sizeof(uint64_t));
    if (!t->slot) return -1;
    t->cap = c; t->n = 0; t->bits = bits;
    return 0;
}

static void table_free(Table *t) { free(t->slot); t->slot = NULL; t->cap = t->n = 0; }

static inline size_t table_home(const Table *t, uint64_t key) { return (size_t)(key >> (64 - t->bits)); }

/* index of the slot holding key (compared without bit 0), or of the empty slot where it would go */
static inline size_t table_find(const Table *t, uint64_t key) {
    size_t mask = t->cap - 1, i = table_home(t, key);
    uint64_t k = key & ~1ULL;
    for (;;) {
        uint64_t s = t->slot[i];
        if (s == EMPTY || (s & ~1ULL) == k) return i;
        i = (i + 1) & mask;
    }
}

static int table_grow(Table *t) {
    Table nt;
    if (t->cap > ((size_t)-1) / 4) return -1;
    if (table_init(&nt, t->cap * 2) < 0) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        uint64_t s = t->slot[i];
        if (s != EMPTY) { nt.slot[table_find(&nt, s)] = s; nt.n++; }
    }
    free(t->slot);
    *t = nt;
    return 0;
}

/* insert key (with its flag bit) if absent; returns 1 if inserted, 0 if present, -1 no memory */
static inline int table_add(Table *t, uint64_t key) {
    if ((t->n + 1) * 4 > t->cap * 3 && table_grow(t) < 0) return -1;
    size_t i = table_find(t, key);
    if (t->slot[i] != EMPTY) return 0;
    t->slot[i] = key;
    t->n++;
    return 1;
}

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the packed tables below store the low 7 bytes of a little-endian uint64"
#endif

/* The global set: 256 tables chosen by a key's top 8 bits, so each stores only the low 56 bits of
 * its keys, in 7-byte slots (7 / 0.75 = 9.3 to 18.7 bytes per hash; Judy1 measured 19.9 at 10M
 * random hashes, 9.9 at 100M). Each table grows on its own: growing never holds two copies of the
 * whole set. Slot value 0 is empty; bit 0 is the flag; the home slot is the value's top bits. */
typedef struct {
    unsigned char *b;   /* cap * 7 bytes + 1 (memcpy of the last slot reads 7 bytes only) */
    size_t cap, n;
    int bits;
} Table7;

#define LOW56 0x00FFFFFFFFFFFFFFULL

static inline uint64_t t7_get(const Table7 *t, size_t i) { uint64_t v = 0; memcpy(&v, t->b + i * 7, 7); return v; }
static inline void t7_put(Table7 *t, size_t i, uint64_t v) { memcpy(t->b + i * 7, &v, 7); }

static int t7_init(Table7 *t, size_t cap) {
    int bits = 1;
    size_t c = 2;
    while (c < cap) { c <<= 1; bits++; }
    if (bits > 56 || c > ((size_t)-1) / 8) return -1;
    t->b = (unsigned char *)calloc(c * 7 + 1, 1);
    if (!t->b) return -1;
    t->cap = c; t->n = 0; t->bits = bits;
    return 0;
}

static void t7_free(Table7 *t) { free(t->b); t->b = NULL; t->cap = t->n = 0; }

static inline size_t t7_find(const Table7 *t, uint64_t v) {
    size_t mask = t->cap - 1, i = (size_t)(v >> (56 - t->bits));
    uint64_t k = v & ~1ULL;
    for (;;) {
        uint64_t s = t7_get(t, i);
        if (s == 0 || (s & ~1ULL) == k) return i;
        i = (i + 1) & mask;
    }
}

static int t7_grow(Table7 *t) {
    Table7 nt;
    if (t7_init(&nt, t->cap * 2) < 0) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        uint64_t s = t7_get(t, i);
        if (s) { t7_put(&nt, t7_find(&nt, s), s); nt.n++; }
    }
    free(t->b);
    *t = nt;
    return 0;
}

#define NSEG 256
typedef struct { Table7 seg[NSEG]; size_t n; } SegSet;

static int segset_init(SegSet *s) {
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < NSEG; i++)
        if (t7_init(&s->seg[i], 256) < 0) return -1;
    return 0;
}

static void segset_free(SegSet *s) { for (int i = 0; i < NSEG; i++) t7_free(&s->seg[i]); s->n = 0; }

/* key: a store_key, its low 56 bits without bit 0 never 0; bit 0 the flag */
static inline Table7 *segset_table(SegSet *s, uint64_t key) { return &s->seg[key >> 56]; }

/* slot index of key in its table, or -1 */
static inline long segset_lookup(SegSet *s, uint64_t key, int *flag) {
    Table7 *t = segset_table(s, key);
    size_t i = t7_find(t, key & LOW56);
    uint64_t v = t7_get(t, i);
    if (v == 0) return -1;
    *flag = (int)(v & 1ULL);
    return (long)i;
}

static inline void segset_set_flag(SegSet *s, uint64_t key, long i) {
    Table7 *t = segset_table(s, key);
    t7_put(t, (size_t)i, t7_get(t, (size_t)i) | 1ULL);
}

/* insert key (bit 0: its flag) if absent: 1 inserted, 0 present, -1 no memory */
static inline int segset_add(SegSet *s, uint64_t key) {
    Table7 *t = segset_table(s, key);
    if ((t->n + 1) * 4 > t->cap * 3 && t7_grow(t) < 0) return -1;
    size_t i = t7_find(t, key & LOW56);
    if (t7_get(t, i) != 0) return 0;
    t7_put(t, i, key & LOW56);
    t->n++;
    s->n++;
    return 1;
}

static size_t segset_bytes(const SegSet *s) {
    size_t b = 0;
    for (int i = 0; i < NSEG; i++) b += s->seg[i].cap * 7 + 1;
    return b;
}

/* An n-gram hash as written to a duplicate n-gram file: trimmed to hash_bits, bit 0 cleared (it is
 * the flag in the tables; onion also compares 63 bits), never 0 (0 marks an empty slot). */
/* Does a token hold a letter or digit? ASCII letters, digits and '_' do; so does any non-ASCII
 * character outside the punctuation and symbol blocks below, and any byte that does not start a
 * well-formed UTF-8 sequence (not text we can judge: kept as a word). Reads only p[0..n). The
 * Python reference (onion_vertical.is_word_token) is the same rule. */
static int is_word_token(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') return 1;
            i++;
            continue;
        }
        size_t k = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
        if (k == 0 || i + k >= n) return 1;     /* no lead byte, or the sequence is cut */
        uint32_t cp = c & (k == 1 ? 0x1F : k == 2 ? 0x0F : 0x07);
        for (size_t j = 1; j <= k; j++) {
            unsigned b = p[i + j];
            if ((b & 0xC0) != 0x80) return 1;
            cp = (cp << 6) | (b & 0x3F);
        }
        int symbol = (cp >= 0x80 && cp <= 0xBF && cp != 0xAA && cp != 0xB2 && cp != 0xB3 && cp != 0xB5 &&
                      cp != 0xB9 && cp != 0xBA && !(cp >= 0xBC && cp <= 0xBE)) ||
                     cp == 0xD7 || cp == 0xF7 || (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x3004) ||
                     (cp >= 0x3008 && cp <= 0x303F) || (cp >= 0xFE00 && cp <= 0xFE0F) ||
                     (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF0F) ||
                     (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
                     (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0x1F000 && cp <= 0x1FAFF);
        if (!symbol) return 1;
        i += k + 1;
    }
    return 0;
}

static inline uint64_t file_key(uint64_t h, uint64_t hmask) {
    uint64_t k = h & hmask & ~1ULL;
    return k ? k : 2;
}

/* The stored form of a file key in the global set: its significant bits moved to the top (the
 * top bits choose the segment and the home slot) and, after the segment's 8 bits are shifted
 * out, still not 0. */
static inline uint64_t store_key(uint64_t fk, int shift) {
    uint64_t k = fk << shift;
    if ((k & 0x00FFFFFFFFFFFFFEULL) == 0) k |= 2;
    return k;
}

/* ------------------------------------------------------------ growable arrays */

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > ((size_t)-1) / 2 / elem) return -1;
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q; *cap = c;
    return 0;
}

/* ------------------------------------------------------------------ engine */

enum { MODE_MARK = 0, MODE_COLLECT = 1 };
enum { STUB_ONION = 0, STUB_INNER = 1 };
enum { WITHIN_NGRAMS = 0, WITHIN_PARAGRAPHS = 1, WITHIN_NONE = 2 };
enum { NEAR = 4, NEAR_AFTER_DUP = 5 };    /* bad[] while the context rule decides */
#define WHOLE_TAG 0xD6E8FEB86659FD93ULL   /* keeps whole-paragraph keys apart from n-gram keys */

typedef struct {
    PyObject_HEAD
    /* options */
    int n;
    double threshold;
    int skip_punct;        /* tokens without letters or digits left out of n-grams and shares */
    double near;           /* context rule: near-duplicate above this share (< 0: no context rule) */
    int max_stub;
    int smoothing;
    int stub_rule;
    int whole;             /* also match every paragraph as a whole */
    int within;            /* repeats inside a document: WITHIN_NGRAMS (onion), _PARAGRAPHS, _NONE */
    int strip;
    int flagged;           /* -f: the global set holds G2+ with "seen" flags */
    int mode;              /* MODE_MARK (pass 2 / single pass) or MODE_COLLECT (pass 1) */
    uint64_t hmask;
    int shift;             /* 64 - hash_bits */
    char doc_tag[72], doc_end[72], par_tag[72], par_end[72];
    size_t doc_tag_len, doc_end_len, par_tag_len, par_end_len;
    /* input: an incomplete document and what follows */
    char *in; size_t in_len, in_cap;
    size_t scan;           /* lines before this offset are classified */
    size_t doc_start;      /* offset of the current document's first line */
    int started;           /* a first line was seen */
    int doc_next, par_next;
    /* per-document work arrays */
    uint64_t *tok_g; size_t tok_cap;       /* n-gram hash ending at each token */
    size_t *par_off; size_t par_off_cap;   /* first byte of each paragraph */
    int64_t *par_len; size_t par_len_cap;
    unsigned char *bad; size_t bad_cap;
    uint64_t *par_whole; size_t par_whole_cap;   /* whole-paragraph key of each paragraph */
    uint64_t *ring;                        /* last n token hashes */
    uint64_t pow_n;                        /* POLY^n */
    Table local;
    /* output */
    char *out; size_t out_len, out_cap;
    SegSet global;
    /* pass 1: n-gram hashes by partition (top 8 bits), spilled to files when a buffer fills */
    uint64_t *part[NSEG]; size_t part_len[NSEG];
    FILE *part_file[NSEG]; uint64_t part_spilled[NSEG];
    char *spill_dir;
    /* statistics */
    unsigned long long st_docs, st_docs_removed, st_pars, st_pars_removed, st_tokens, st_tokens_removed,
        st_lines, st_ngrams;
    int failed;
} Engine;

#define PART_BUF 8192

static int out_reserve(Engine *e, size_t extra) {
    if (e->out_len + extra < e->out_len) return -1;
    return grow((void **)&e->out, &e->out_cap, e->out_len + extra, 1);
}

static inline int line_has_prefix(const char *s, size_t len, const char *tag, size_t tlen) {
    return len >= tlen && memcmp(s, tag, tlen) == 0;
}

/* "<doc" followed by ' ' or '>' (onion's test of a start tag) */
static inline int is_start(const char *s, size_t len, const char *tag, size_t tlen) {
    return len > tlen && memcmp(s, tag, tlen) == 0 && (s[tlen] == ' ' || s[tlen] == '>');
}

static int spill_partition(Engine *e, int p) {
    if (!e->spill_dir) return -1;
    if (!e->part_file[p]) {
        char path[4096];
        int w = snprintf(path, sizeof path, "%s/part%03d", e->spill_dir, p);
        if (w < 0 || (size_t)w >= sizeof path) return -1;
        e->part_file[p] = fopen(path, "w+b");
        if (!e->part_file[p]) return -1;
    }
    if (fwrite(e->part[p], sizeof(uint64_t), e->part_len[p], e->part_file[p]) != e->part_len[p]) return -1;
    e->part_spilled[p] += e->part_len[p];
    e->part_len[p] = 0;
    return 0;
}

/* pass 1: partitions by bits 1..8 (the low bits survive any trimming) */
static inline int collect(Engine *e, uint64_t key) {
    int p = (int)((key >> 1) & (NSEG - 1));
    if (!e->part[p]) {
        e->part[p] = (uint64_t *)malloc(PART_BUF * sizeof(uint64_t));
        if (!e->part[p]) return -1;
    }
    if (e->part_len[p] == PART_BUF && spill_partition(e, p) < 0) return -1;
    e->part[p][e->part_len[p]++] = key;
    return 0;
}

/* Whole-paragraph matching (an extension: onion cannot see a repeated paragraph shorter than n):
 * a paragraph whose whole token sequence was kept earlier (or, unless within is none, seen earlier
 * in the document) counts as duplicate in full. */
static int whole_check(Engine *e, uint64_t wh, int64_t total_all, int64_t total, int64_t *badtok,
                       uint64_t *wkey) {
    uint64_t mixed = mix64(wh ^ ((uint64_t)total_all * WHOLE_TAG));
    uint64_t fk = file_key(mixed, e->hmask);
    *wkey = store_key(fk, e->shift);
    if (e->mode == MODE_COLLECT) return collect(e, fk);
    int dup = 0;
    if (e->within != WITHIN_NONE) {
        uint64_t lk = mixed | 1ULL;
        dup = e->local.slot[table_find(&e->local, lk)] != EMPTY;
        if (!dup && table_add(&e->local, lk) < 0) return -1;
    }
    if (!dup) {
        int flag = 0;
        long gi = segset_lookup(&e->global, *wkey, &flag);
        dup = gi >= 0 && (!e->flagged || flag);
    }
    if (dup) *badtok = total;
    return 0;
}

/* Decide one document, lines [ds, de) of e->in (the last line may lack its '\n' only at the end
 * of the input), write its lines marked or stripped, add its kept n-grams to the global set. */
static int process_doc(Engine *e, size_t ds, size_t de) {
    const char *in = e->in;
    const int n = e->n;
    size_t ntok = 0, npar = 0;
    /* count tokens first: sizes of the work arrays */
    {
        size_t off = ds, t = 0;
        while (off < de) {
            const char *nl = memchr(in + off, '\n', de - off);
            size_t le = nl ? (size_t)(nl - in) : de;
            if (le == off || in[off] != '<') t++;
            off = le + 1;
        }
        ntok = t;
    }
    if (grow((void **)&e->tok_g, &e->tok_cap, ntok + 1, sizeof(uint64_t)) < 0) return -1;
    if (e->mode == MODE_MARK) {
        size_t want = 1024;
        while (want < 2 * ntok + 2) want <<= 1;
        if (e->local.cap < want || e->local.cap > 4 * want) {
            table_free(&e->local);
            if (table_init(&e->local, want) < 0) return -1;
        } else {
            memset(e->local.slot, 0, e->local.cap * sizeof(uint64_t));
            e->local.n = 0;
        }
    }
    /* pass A: paragraphs, n-gram hashes, duplicate tokens per paragraph */
    uint64_t g = 0, wh = 0;
    size_t t = 0;                    /* token index in the document */
    int64_t total = 0, badtok = 0, prev_bad = n;
    int64_t total_all = 0;           /* the paragraph's tokens, punctuation included */
    size_t u = 0;                    /* index of the next token that takes part in n-grams */
    size_t off = ds;
    size_t line_no = 0;
    if (grow((void **)&e->par_off, &e->par_off_cap, 2, sizeof(size_t)) < 0) return -1;
    e->par_off[0] = ds;
    npar = 1;
#define CLOSE_PAR() do { \
        if (grow((void **)&e->par_len, &e->par_len_cap, npar, sizeof(int64_t)) < 0 || \
            grow((void **)&e->par_whole, &e->par_whole_cap, npar, sizeof(uint64_t)) < 0 || \
            grow((void **)&e->bad, &e->bad_cap, npar + 1, 1) < 0) return -1; \
        e->par_whole[npar - 1] = 0; \
        if (e->whole && total > 0 && whole_check(e, wh, total_all, total, &badtok, &e->par_whole[npar - 1]) < 0) \
            return -1; \
        wh = 0; \
        e->par_len[npar - 1] = total_all; \
        e->bad[npar - 1] = (unsigned char)(total <= 0 ? 0 : (double)badtok / (double)total > e->threshold ? 1 \
                                           : (e->near >= 0 && (double)badtok / (double)total > e->near) ? NEAR : 0); \
        total = 0; total_all = 0; badtok = 0; prev_bad = n; } while (0)
    while (off < de) {
        const char *s = in + off;
        const char *nl = memchr(s, '\n', de - off);
        size_t le = nl ? (size_t)(nl - in) : de;
        size_t len = le - off;
        if (line_no > 0) {
            if (line_has_prefix(s, len, e->doc_end, e->doc_end_len)) {
                /* the next line starts a document: it is never inside this one */
            } else if (e->par_next || is_start(s, len, e->par_tag, e->par_tag_len)) {
                CLOSE_PAR();
                if (grow((void **)&e->par_off, &e->par_off_cap, npar + 2, sizeof(size_t)) < 0) return -1;
                e->par_off[npar++] = off;
                e->par_next = 0;
            } else if (line_has_prefix(s, len, e->par_end, e->par_end_len)) {
                e->par_next = 1;
            }
        }
        line_no++;
        if (len == 0 || s[0] != '<') {
            uint64_t th = token_hash((const unsigned char *)s, len);
            wh = wh * POLY + th;
            total_all++;
            e->tok_g[t] = 0;             /* no n-gram ends here (0 is never a stored key) */
            if (e->skip_punct && !is_word_token((const unsigned char *)s, len)) { t++; off = le + 1; continue; }
            size_t slot = u % (size_t)n;
            uint64_t old = e->ring[slot];
            e->ring[slot] = th;
            g = g * POLY + th;
            if (u >= (size_t)n) g -= old * e->pow_n;
            total++;
            if (--prev_bad < 0) prev_bad = 0;
            if (u + 1 >= (size_t)n) {
                uint64_t fk = file_key(mix64(g), e->hmask);
                uint64_t key = store_key(fk, e->shift);
                e->tok_g[t] = key;
                if (e->mode == MODE_COLLECT) {
                    if (collect(e, fk) < 0) return -1;
                } else {
                    /* the local set: every n-gram of the document so far, untrimmed (as onion) */
                    uint64_t lk = mix64(g) | 1ULL;
                    int dup = 0;
                    if (e->within == WITHIN_NGRAMS) dup = e->local.slot[table_find(&e->local, lk)] != EMPTY;
                    if (!dup) {
                        int flag = 0;
                        long gi = segset_lookup(&e->global, key, &flag);
                        dup = gi >= 0 && (!e->flagged || flag);
                        if (e->within == WITHIN_NGRAMS && table_add(&e->local, lk) < 0) return -1;
                    }
                    if (dup) {
                        badtok += n - prev_bad;
                        prev_bad = n;
                    }
                }
            }
            u++;
            t++;
        }
        off = le + 1;
    }
    CLOSE_PAR();
#undef CLOSE_PAR
    e->st_ngrams += u + 1 >= (size_t)n ? u + 1 - (size_t)n : 0;
    if (e->mode == MODE_COLLECT) {
        e->st_docs++;
        e->st_tokens += t;
        return 0;
    }
    unsigned char *bad = e->bad;
    int64_t *plen = e->par_len;
    if (e->near >= 0) {
        /* context rule in two sweeps: forward, does the nearest non-near paragraph before a near one
         * (or the edge) say duplicate; backward, and the one after */
        unsigned char last = 1;
        for (size_t p = 0; p < npar; p++) {
            if (plen[p] <= 0) continue;
            if (bad[p] == NEAR) { if (last) bad[p] = NEAR_AFTER_DUP; }
            else last = bad[p];
        }
        last = 1;
        for (size_t p = npar; p-- > 0;) {
            if (plen[p] <= 0) continue;
            if (bad[p] >= NEAR) bad[p] = (unsigned char)(bad[p] == NEAR_AFTER_DUP && last);
            else last = bad[p];
        }
    }
    /* smoothing */
    if (e->smoothing && e->stub_rule == STUB_ONION) {
        long last_bad = -1;
        int64_t stub = 0;
        for (size_t p = 0; p <= npar; p++) {
            if (p == npar || bad[p]) {
                if (stub <= e->max_stub)
                    for (size_t q = (size_t)(last_bad + 1); q < p; q++) bad[q] = 1;
                last_bad = (long)p;
                stub = 0;
            } else {
                stub += plen[p];
            }
        }
    } else if (e->smoothing) {
        /* inner rule: runs between two duplicates, each paragraph with at most max_stub tokens */
        size_t p = 0;
        while (p < npar) {
            if (bad[p]) { p++; continue; }
            size_t q = p;
            int short_run = 1;
            while (q < npar && !bad[q]) { if (plen[q] > e->max_stub) short_run = 0; q++; }
            if (short_run && p > 0 && q < npar)
                for (size_t r = p; r < q; r++) bad[r] = 2;   /* 2: removed as a stub */
            p = q;
        }
        for (size_t r = 0; r < npar; r++) if (bad[r] == 2) bad[r] = 1;
    }
    int all_bad = 1, any_tok = 0;
    for (size_t p = 0; p < npar; p++) {
        if (plen[p] > 0) {
            any_tok = 1;
            e->st_pars++;
            e->st_tokens += (unsigned long long)plen[p];
            if (bad[p]) { e->st_pars_removed++; e->st_tokens_removed += (unsigned long long)plen[p]; }
            else all_bad = 0;
        }
    }
    e->st_docs++;
    if (any_tok && all_bad) e->st_docs_removed++;
    /* pass B: write the lines, store the kept n-grams */
    size_t p = 0;
    t = 0;
    off = ds;
    line_no = 0;
    while (off < de) {
        const char *s = in + off;
        const char *nl = memchr(s, '\n', de - off);
        size_t le = nl ? (size_t)(nl - in) : de;
        size_t len = le - off;
        while (p + 1 < npar && e->par_off[p + 1] <= off) p++;
        int mark = bad[p] ? 1 : 0;
        if (line_no == 0 && line_has_prefix(s, len, e->doc_tag, e->doc_tag_len)) mark = all_bad;
        if (le + (nl ? 1 : 0) >= de && len == e->doc_end_len && memcmp(s, e->doc_end, len) == 0)
            mark = all_bad;
        size_t with_nl = len + (nl ? 1 : 0);
        e->st_lines++;
        if (e->strip) {
            if (!mark) {
                if (out_reserve(e, with_nl) < 0) return -1;
                memcpy(e->out + e->out_len, s, with_nl);
                e->out_len += with_nl;
            }
        } else {
            if (out_reserve(e, with_nl + 2) < 0) return -1;
            e->out[e->out_len++] = mark ? '1' : '0';
            e->out[e->out_len++] = '\t';
            memcpy(e->out + e->out_len, s, with_nl);
            e->out_len += with_nl;
        }
        if (len == 0 || s[0] != '<') {
            if (e->tok_g[t] != 0 && !bad[p]) {
                uint64_t key = e->tok_g[t];
                if (e->flagged) {
                    int flag = 0;
                    long gi = segset_lookup(&e->global, key, &flag);
                    if (gi >= 0 && !flag) segset_set_flag(&e->global, key, gi);
                } else if (segset_add(&e->global, key | 1ULL) < 0) {
                    return -1;
                }
            }
            t++;
        }
        line_no++;
        off = le + 1;
    }
    if (e->whole) {
        for (size_t q = 0; q < npar; q++) {
            if (plen[q] <= 0 || bad[q]) continue;
            uint64_t key = e->par_whole[q];
            if (e->flagged) {
                int flag = 0;
                long gi = segset_lookup(&e->global, key, &flag);
                if (gi >= 0 && !flag) segset_set_flag(&e->global, key, gi);
            } else if (segset_add(&e->global, key | 1ULL) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* classify the complete lines after e->scan; process each finished document */
static int scan_input(Engine *e, int at_end) {
    size_t end = e->in_len;
    size_t off = e->scan;
    while (off < end) {
        const char *s = e->in + off;
        const char *nl = memchr(s, '\n', end - off);
        if (!nl) break;                           /* incomplete line: wait for more input */
        size_t le = (size_t)(nl - e->in), len = le - off;
        if (!e->started) {
            e->started = 1;
            e->doc_start = off;
        } else if (off != e->doc_start) {
            if (e->doc_next || is_start(s, len, e->doc_tag, e->doc_tag_len)) {
                e->doc_next = 0;
                if (process_doc(e, e->doc_start, off) < 0) return -1;
                e->doc_start = off;
            } else if (line_has_prefix(s, len, e->doc_end, e->doc_end_len)) {
                e->doc_next = 1;
            }
        }
        off = le + 1;
    }
    e->scan = off;
    if (at_end) {
        /* a last line without '\n' */
        if (off < end) {
            const char *s = e->in + off;
            size_t len = end - off;
            if (!e->started) {
                e->started = 1;
                e->doc_start = off;
            } else if (off != e->doc_start && (e->doc_next || is_start(s, len, e->doc_tag, e->doc_tag_len))) {
                e->doc_next = 0;
                if (process_doc(e, e->doc_start, off) < 0) return -1;
                e->doc_start = off;
            }
        }
        if (e->started && e->doc_start < end && process_doc(e, e->doc_start, end) < 0) return -1;
        e->doc_start = e->scan = end;
    }
    /* keep only the current document */
    if (e->doc_start > 0 && e->started) {
        size_t keep = e->in_len - e->doc_start;
        memmove(e->in, e->in + e->doc_start, keep);
        e->in_len = keep;
        e->scan -= e->doc_start;
        e->doc_start = 0;
    }
    return 0;
}

/* ------------------------------------------------------------ Python glue */

static PyObject *take_output(Engine *e) {
    PyObject *b = PyBytes_FromStringAndSize(e->out ? e->out : "", (Py_ssize_t)e->out_len);
    e->out_len = 0;
    if (e->out_cap > (8u << 20)) {      /* a huge document's output: give the memory back */
        free(e->out); e->out = NULL; e->out_cap = 0;
    }
    return b;
}

static int set_tag(char *dst, size_t *dlen, const char *pre, const char *tag, const char *post) {
    int w = snprintf(dst, 72, "%s%s%s", pre, tag, post);
    if (w < 0 || w >= 72) return -1;
    *dlen = (size_t)w;
    return 0;
}

static int Engine_init(Engine *e, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"n", "threshold", "max_stub", "smoothing", "stub_rule", "strip", "doc_tag",
                             "par_tag", "hash_bits", "mode", "spill_dir", "whole_paragraphs", "within", "near",
                             "skip_punct", NULL};
    int n = 7, max_stub = 20, smoothing = 1, strip = 0, hash_bits = 64, mode = MODE_MARK;
    double threshold = 0.5, near = -1.0;
    const char *stub_rule = "onion", *doc_tag = "doc", *par_tag = "p", *spill_dir = NULL, *within = "ngrams";
    int whole = 0, skip_punct = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|idipspssiizpsdp", kwlist, &n, &threshold, &max_stub, &smoothing,
                                     &stub_rule, &strip, &doc_tag, &par_tag, &hash_bits, &mode, &spill_dir,
                                     &whole, &within, &near, &skip_punct))
        return -1;
    if (strcmp(within, "ngrams") == 0) e->within = WITHIN_NGRAMS;
    else if (strcmp(within, "paragraphs") == 0 && whole) e->within = WITHIN_PARAGRAPHS;
    else if (strcmp(within, "none") == 0) e->within = WITHIN_NONE;
    else { PyErr_SetString(PyExc_ValueError, "within must be ngrams, paragraphs (with whole_paragraphs) or none"); return -1; }
    e->whole = whole;
    if (e->ring) { PyErr_SetString(PyExc_RuntimeError, "engine already initialised"); return -1; }
    if (n < 1 || n > 100) { PyErr_SetString(PyExc_ValueError, "n must be 1..100"); return -1; }
    if (hash_bits < 16 || hash_bits > 64) { PyErr_SetString(PyExc_ValueError, "hash_bits must be 16..64"); return -1; }
    if (mode != MODE_MARK && mode != MODE_COLLECT) { PyErr_SetString(PyExc_ValueError, "bad mode"); return -1; }
    if (max_stub < 0) { PyErr_SetString(PyExc_ValueError, "max_stub must be >= 0"); return -1; }
    if (strcmp(stub_rule, "onion") == 0) e->stub_rule = STUB_ONION;
    else if (strcmp(stub_rule, "inner") == 0) e->stub_rule = STUB_INNER;
    else { PyErr_SetString(PyExc_ValueError, "stub_rule must be onion or inner"); return -1; }
    if (!*doc_tag || set_tag(e->doc_tag, &e->doc_tag_len, "<", doc_tag, "") < 0 ||
        set_tag(e->doc_end, &e->doc_end_len, "</", doc_tag, ">") < 0 ||
        set_tag(e->par_tag, &e->par_tag_len, "<", par_tag, "") < 0 ||
        set_tag(e->par_end, &e->par_end_len, "</", par_tag, ">") < 0) {
        PyErr_SetString(PyExc_ValueError, "document and paragraph tags must be 1..60 bytes");
        return -1;
    }
    e->n = n;
    /* onion keeps the threshold in a float and compares in double */
    e->threshold = (double)(float)threshold;
    if (!(near < 0 || near <= threshold)) {    /* NaN refused too */
        PyErr_SetString(PyExc_ValueError, "near must be < 0 (off) or at most the threshold"); return -1;
    }
    e->near = near < 0 ? -1.0 : (double)(float)near;
    e->skip_punct = skip_punct;
    e->max_stub = max_stub;
    e->smoothing = smoothing;
    e->strip = strip;
    e->mode = mode;
    e->hmask = hash_bits == 64 ? ~0ULL : ((1ULL << hash_bits) - 1);
    e->shift = 64 - hash_bits;
    e->ring = (uint64_t *)calloc((size_t)n, sizeof(uint64_t));
    if (!e->ring) { PyErr_NoMemory(); return -1; }
    uint64_t pw = 1;
    for (int i = 0; i < n; i++) pw *= POLY;
    e->pow_n = pw;
    if (mode == MODE_MARK && segset_init(&e->global) < 0) { PyErr_NoMemory(); return -1; }
    if (spill_dir) {
        e->spill_dir = strdup(spill_dir);
        if (!e->spill_dir) { PyErr_NoMemory(); return -1; }
    }
    return 0;
}

static void Engine_dealloc(Engine *e) {
    free(e->in); free(e->tok_g); free(e->par_off); free(e->par_len); free(e->bad); free(e->ring);
    free(e->par_whole);
    free(e->out);
    table_free(&e->local);
    if (e->mode == MODE_MARK) segset_free(&e->global);
    for (int p = 0; p < NSEG; p++) {
        free(e->part[p]);
        if (e->part_file[p]) fclose(e->part_file[p]);
    }
    free(e->spill_dir);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static int check_ready(Engine *e) {
    if (!e->ring) { PyErr_SetString(PyExc_RuntimeError, "engine not initialised"); return -1; }
    if (e->failed) { PyErr_SetString(PyExc_RuntimeError, "engine failed earlier"); return -1; }
    return 0;
}

static PyObject *fail(Engine *e) {
    e->failed = 1;
    if (!PyErr_Occurred()) {
        if (errno) PyErr_SetFromErrno(PyExc_OSError);
        else PyErr_NoMemory();
    }
    return NULL;
}

static PyObject *Engine_feed(Engine *e, PyObject *arg) {
    Py_buffer buf;
    if (check_ready(e) < 0) return NULL;
    if (PyObject_GetBuffer(arg, &buf, PyBUF_SIMPLE) < 0) return NULL;
    size_t len = (size_t)buf.len;
    if (e->in_len + len < e->in_len || grow((void **)&e->in, &e->in_cap, e->in_len + len + 1, 1) < 0) {
        PyBuffer_Release(&buf);
        return fail(e);
    }
    memcpy(e->in + e->in_len, buf.buf, len);
    e->in_len += len;
    PyBuffer_Release(&buf);
    errno = 0;
    if (scan_input(e, 0) < 0) return fail(e);
    return take_output(e);
}

static PyObject *Engine_finish(Engine *e, PyObject *unused) {
    if (check_ready(e) < 0) return NULL;
    errno = 0;
    if (scan_input(e, 1) < 0) return fail(e);
    return take_output(e);
}

/* -f: load G2+ (raw little-endian uint64 hashes) from an open file descriptor, read to its end */
static PyObject *Engine_load_duplicates(Engine *e, PyObject *arg) {
    if (check_ready(e) < 0) return NULL;
    if (e->mode != MODE_MARK) { PyErr_SetString(PyExc_ValueError, "not a marking engine"); return NULL; }
    int fd = PyObject_AsFileDescriptor(arg);
    if (fd < 0) return NULL;
    FILE *f = fdopen(dup(fd), "rb");
    if (!f) return PyErr_SetFromErrno(PyExc_OSError);
    uint64_t chunk[4096];
    size_t got, count = 0;
    errno = 0;
    while ((got = fread(chunk, sizeof(uint64_t), 4096, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            uint64_t h = chunk[i];
            if (segset_add(&e->global, store_key(file_key(h, e->hmask), e->shift)) < 0) { fclose(f); return fail(e); }
        }
        count += got;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) return PyErr_SetFromErrno(PyExc_OSError);
    e->flagged = 1;
    return PyLong_FromSize_t(count);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* pass 1 end: write the distinct hashes occurring at least twice, sorted, to fd; returns their number */
static PyObject *Engine_write_duplicates(Engine *e, PyObject *arg) {
    if (check_ready(e) < 0) return NULL;
    if (e->mode != MODE_COLLECT) { PyErr_SetString(PyExc_ValueError, "not a collecting engine"); return NULL; }
    int fd = PyObject_AsFileDescriptor(arg);
    if (fd < 0) return NULL;
    FILE *out = fdopen(dup(fd), "ab");
    if (!out) return PyErr_SetFromErrno(PyExc_OSError);
    size_t written = 0;
    uint64_t *all = NULL, *dups = NULL;
    size_t all_cap = 0, dups_cap = 0;
    Table t = {0};
    errno = 0;
    for (int p = 0; p < NSEG; p++) {
        size_t total = e->part_spilled[p] + e->part_len[p];
        if (total == 0) continue;
        if (grow((void **)&all, &all_cap, total, sizeof(uint64_t)) < 0) goto error;
        size_t k = 0;
        if (e->part_file[p]) {
            if (fflush(e->part_file[p]) != 0 || fseek(e->part_file[p], 0, SEEK_SET) != 0) goto error;
            if (fread(all, sizeof(uint64_t), e->part_spilled[p], e->part_file[p]) != e->part_spilled[p]) {
                if (!errno) errno = EIO;
                goto error;
            }
            k = e->part_spilled[p];
            fclose(e->part_file[p]);
            e->part_file[p] = NULL;
        }
        if (e->part_len[p]) memcpy(all + k, e->part[p], e->part_len[p] * sizeof(uint64_t));
        /* count: flag bit 0 set on the second occurrence; keys are stored with bit 0 cleared */
        size_t want = 16;
        while (want < 2 * total) want <<= 1;
        table_free(&t);
        if (table_init(&t, want) < 0) goto error;
        size_t nd = 0;
        for (size_t i = 0; i < total; i++) {
            uint64_t key = all[i];    /* file keys: bit 0 clear, never 0 */
            size_t j = table_find(&t, key);
            if (t.slot[j] == EMPTY) { t.slot[j] = key; t.n++; }
            else if (!(t.slot[j] & 1ULL)) { t.slot[j] |= 1ULL; nd++; }
        }
        if (grow((void **)&dups, &dups_cap, nd + 1, sizeof(uint64_t)) < 0) goto error;
        size_t m = 0;
        for (size_t j = 0; j < t.cap; j++)
            if (t.slot[j] & 1ULL) dups[m++] = t.slot[j] & ~1ULL;
        qsort(dups, m, sizeof(uint64_t), cmp_u64);
        if (fwrite(dups, sizeof(uint64_t), m, out) != m) goto error;
        written += m;
        free(e->part[p]); e->part[p] = NULL; e->part_len[p] = 0; e->part_spilled[p] = 0;
    }
    table_free(&t);
    free(all); free(dups);
    if (fclose(out) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    return PyLong_FromSize_t(written);
error:
    table_free(&t);
    free(all); free(dups);
    fclose(out);
    return fail(e);
}

static PyObject *Engine_stats(Engine *e, PyObject *unused) {
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:n,s:n}",
                         "documents", e->st_docs, "documents_removed", e->st_docs_removed,
                         "paragraphs", e->st_pars, "paragraphs_removed", e->st_pars_removed,
                         "tokens", e->st_tokens, "tokens_removed", e->st_tokens_removed,
                         "lines", e->st_lines, "ngrams", e->st_ngrams,
                         "stored_hashes", (Py_ssize_t)e->global.n,
                         "set_bytes", (Py_ssize_t)(e->mode == MODE_MARK ? segset_bytes(&e->global) : 0));
}

static PyMethodDef Engine_methods[] = {
    {"feed", (PyCFunction)Engine_feed, METH_O, "feed(bytes) -> output bytes of the documents completed"},
    {"finish", (PyCFunction)Engine_finish, METH_NOARGS, "finish() -> output bytes of the last document"},
    {"load_duplicates", (PyCFunction)Engine_load_duplicates, METH_O,
     "load_duplicates(file) -> count: G2+ from raw uint64 hashes (pass 2 of the two-pass form)"},
    {"write_duplicates", (PyCFunction)Engine_write_duplicates, METH_O,
     "write_duplicates(file) -> count: pass 1's n-grams occurring at least twice, sorted uint64"},
    {"stats", (PyCFunction)Engine_stats, METH_NOARGS, "statistics so far"},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "corpustool.native._onion.Engine",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "onion over a vertical byte stream (mode 0: mark, mode 1: collect n-grams for pass 1)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};

/* bytes per stored hash of the global set after inserting count random hashes (memory benchmark) */
static PyObject *probe_set(PyObject *self, PyObject *arg) {
    Py_ssize_t count = PyLong_AsSsize_t(arg);
    if (count < 0) return NULL;
    SegSet s;
    if (segset_init(&s) < 0) return PyErr_NoMemory();
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        x += 0x9E3779B97F4A7C15ULL;
        if (segset_add(&s, store_key(file_key(mix64(x), ~0ULL), 0) | 1ULL) < 0) { segset_free(&s); return PyErr_NoMemory(); }
    }
    PyObject *r = Py_BuildValue("(nn)", (Py_ssize_t)s.n, (Py_ssize_t)segset_bytes(&s));
    segset_free(&s);
    return r;
}

static PyMethodDef module_methods[] = {
    {"probe_set", probe_set, METH_O, "probe_set(count) -> (stored, bytes): the global set's footprint"},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_onion", NULL, -1, module_methods};

PyMODINIT_FUNC PyInit__onion(void) {
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0) { Py_DECREF(&EngineType); Py_DECREF(m); return NULL; }
    PyModule_AddIntConstant(m, "MODE_MARK", MODE_MARK);
    PyModule_AddIntConstant(m, "MODE_COLLECT", MODE_COLLECT);
    return m;
}
