/* Per-pair counts of `ranker evaluate` under every scheme (evalb, mph, deps, parseval, flat), in
 * one pass over the bytes of two one-tree-per-line files, for ranker.evaluation.schemes_native.
 *
 * Written for ranker from the reference scorers (evalb.py, mph.py with trees/mph.py and
 * trees/heads.py, dependencies.py with trees/dependencies.py, parseval.py with trees/black.py,
 * flat.py with trees/flatten.py); those stay the truth, and tests compare the two on real data. Why C: the reference reads every tree into Python objects and
 * rebuilds it for each transform, 0.3-1 ms a pair; this reads each line into flat arrays and
 * counts, with no object per bracket.
 *
 * What depends on label or word *strings* (base labels, function tags, head-rule categories,
 * relation-label patterns, parameter lists) is decided in Python, once per distinct string, with
 * the reference's own functions, and handed over as tables indexed by symbol ids that this code
 * interns: so no rule is written twice. What depends on structure (empty elements, heads,
 * maximal projections, arcs, matching, crossing) is done here.
 *
 * A line this code does not decide alone is *deferred* to the Python reference (which scores it
 * or raises the file:line error): anything that is not exactly one well-formed Penn tree, a
 * gold/test word difference, a length difference under QUOTE_LABEL, non-ASCII words under
 * parseval (Python's lower-casing decides Black et al.'s word classes), trees deeper than
 * FLAT_DEPTH under flat, pairs over QUADRATIC_LIMIT bracket comparisons. An empty test line is "no
 * parse", as in the reference.
 *
 * Records (REC int32 per pair): status, then gold, test, matched, crossing, then typed gold, test,
 * matched (deps only).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { ST_OK = 0, ST_NOPARSE = 1, ST_DEFER = 2 };
enum { R_STATUS, R_GOLD, R_TEST, R_MATCHED, R_CROSSING, R_TGOLD, R_TTEST, R_TMATCHED, REC };
enum { SCHEME_EVALB = 0, SCHEME_MPH = 1, SCHEME_DEPS = 2, SCHEME_PARSEVAL = 3, SCHEME_FLAT = 4 };

/* label flags, from Python (schemes_native.py keeps the same numbers) */
enum {
    F_NONE = 1,          /* the label is -NONE- (an empty element's tag) */
    F_PUNCT = 2,         /* in PUNCT_TAGS */
    F_HEADPUNCT = 4,     /* (base label) in the head table's %punctuation */
    F_COORD = 8,         /* (base label) in the head table's %coordination */
    F_PP = 16,           /* the base label is PP (@phrase excludes it) */
    F_SBJ = 32,          /* SBJ among the function tags */
    F_CCONJ = 64,        /* the base label is CC or CONJP */
    F_EMPTY = 128,       /* the empty label "" */
    F_EVDEL = 256,       /* EVALB: a DELETE_LABEL (exactly) */
    F_EVLEN = 512,       /* EVALB: a DELETE_LABEL_FOR_LENGTH */
    F_EVQUOTE = 1024,    /* EVALB: a QUOTE_LABEL */
    F_EVBDEL = 2048,     /* EVALB: the cut label deletes the bracket */
    /* Black et al.'s erasure (trees/black.py), on base labels */
    F_PTB = 4096,        /* a PTB tag (_PTB_TAGS) */
    F_VERB = 8192,       /* _VERB_TAGS */
    F_ADVTAG = 16384,    /* _ADVERB_TAGS */
    F_ADVPFX = 32768,    /* starts with ADV */
    F_VPFX = 65536,      /* starts with V */
    F_MD = 131072, F_TO = 262144, F_POS = 524288,
    F_BPUNCT = 1048576,  /* punctuation or round brackets (_PUNCT_TAGS of black.py) */
};
/* word forms of Black et al.'s erasure (lower-cased), kinds set from Python */
enum { W_AUX = 1, W_NOT = 2, W_TO = 4, W_ZERO = 8, W_POSS = 16 };

/* ---------------------------------------------------------------- symbols */

typedef struct {
    char *text; long ntext, captext;
    int32_t *off, *len; int32_t n, cap;
    int32_t *slot; int32_t nslot;      /* open addressing: symbol id + 1, 0 empty */
    /* a direct-mapped cache of short strings (up to 16 bytes: labels with their function tags):
     * bytes, length + 1, id */
    uint64_t cword[256][2]; int32_t clen[256], cid[256];
} Symbols;

static uint32_t hash_bytes(const char *p, int32_t n) {
    uint32_t h = 2166136261u;
    for (int32_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static int sym_rehash(Symbols *s, int32_t nslot) {
    int32_t *slot = calloc((size_t)nslot, sizeof *slot);
    if (!slot) return -1;
    for (int32_t id = 0; id < s->n; id++) {
        uint32_t h = hash_bytes(s->text + s->off[id], s->len[id]) & (uint32_t)(nslot - 1);
        while (slot[h]) h = (h + 1) & (uint32_t)(nslot - 1);
        slot[h] = id + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->nslot = nslot;
    return 0;
}

static int32_t sym_add(Symbols *s, const char *p, int32_t n);

/* The id of the string [p, p+n), added if new; -1 out of memory. */
static int32_t sym_id(Symbols *s, const char *p, int32_t n) {
    if (n > 16) return sym_add(s, p, n);
    uint64_t w[2] = { 0, 0 };
    memcpy(w, p, (size_t)n);
    uint32_t c = (uint32_t)((((w[0] * 31) ^ w[1] ^ (uint64_t)n) * 0x9E3779B97F4A7C15ULL) >> 56);
    if (s->clen[c] == n + 1 && s->cword[c][0] == w[0] && s->cword[c][1] == w[1]) return s->cid[c];
    int32_t id = sym_add(s, p, n);
    if (id >= 0) { s->cword[c][0] = w[0]; s->cword[c][1] = w[1]; s->clen[c] = n + 1; s->cid[c] = id; }
    return id;
}

/* sym_id without the cache. */
static int32_t sym_add(Symbols *s, const char *p, int32_t n) {
    if (2 * (s->n + 1) > s->nslot && sym_rehash(s, s->nslot ? 2 * s->nslot : 1024)) return -1;
    uint32_t mask = (uint32_t)(s->nslot - 1), h = hash_bytes(p, n) & mask;
    while (s->slot[h]) {
        int32_t id = s->slot[h] - 1;
        if (s->len[id] == n && memcmp(s->text + s->off[id], p, (size_t)n) == 0) return id;
        h = (h + 1) & mask;
    }
    if (s->n == s->cap) {
        int32_t c = s->cap ? 2 * s->cap : 1024;
        int32_t *o = realloc(s->off, (size_t)c * sizeof *o), *l;
        if (!o) return -1;
        s->off = o;
        l = realloc(s->len, (size_t)c * sizeof *l);
        if (!l) return -1;
        s->len = l;
        s->cap = c;
    }
    if (s->ntext + n > s->captext) {
        long c = s->captext ? 2 * s->captext : 1 << 16;
        while (c < s->ntext + n) c *= 2;
        char *t = realloc(s->text, (size_t)c);
        if (!t) return -1;
        s->text = t;
        s->captext = c;
    }
    memcpy(s->text + s->ntext, p, (size_t)n);
    s->off[s->n] = (int32_t)s->ntext;
    s->len[s->n] = n;
    s->ntext += n;
    s->slot[h] = s->n + 1;
    return s->n++;
}

/* The id of [p, p+n) if interned, else -1. */
static int32_t sym_find(const Symbols *s, const char *p, int32_t n) {
    if (!s->nslot) return -1;
    uint32_t mask = (uint32_t)(s->nslot - 1), h = hash_bytes(p, n) & mask;
    while (s->slot[h]) {
        int32_t id = s->slot[h] - 1;
        if (s->len[id] == n && memcmp(s->text + s->off[id], p, (size_t)n) == 0) return id;
        h = (h + 1) & mask;
    }
    return -1;
}

/* ---------------------------------------------------------------- trees */

/* A tree as flat arrays: nodes in pre-order (node 0 the root), each with its children as a run of
 * `kid` entries: >= 0 a node, < 0 the word ~entry. Words are the bytes of the line, by position
 * (compared, never interned: only labels have tables). */
typedef struct { int32_t label, parent, start, end, kid0, nkid; } Node;
typedef struct { const char *p; int32_t n; } Str;

typedef struct {
    Node *node; int32_t nnode, capnode;
    int32_t *kid; int32_t nkid, capkid;
    Str *word; int32_t nword, capword;
    int32_t *tmp; int32_t ntmp, captmp;     /* parser's pending children */
    int32_t *open; int32_t capopen;         /* parser's open nodes and their tmp marks */
} Tree;

static int grow(void **buf, int32_t *cap, int64_t need, size_t size) {
    if (need <= *cap) return 0;
    if (need > (1L << 30)) return -1;
    int32_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *nb = realloc(*buf, (size_t)c * size);
    if (!nb) return -1;
    *buf = nb;
    *cap = c;
    return 0;
}
#define GROW(t, field, capf, need) grow((void **)&(t)->field, &(t)->capf, (need), sizeof *(t)->field)

/* Byte classes of the reader: what Python's str.isspace() calls whitespace among ASCII bytes,
 * the brackets, and the lead bytes of the non-ASCII spaces (checked where they occur). */
enum { C_ATOM = 0, C_WS = 1, C_OPEN = 2, C_CLOSE = 3, C_HIGH = 4 };
static unsigned char byte_class[256];

static void init_classes(void) {
    if (byte_class[' ']) return;
    const char *ws = " \t\n\v\f\r\x1c\x1d\x1e\x1f";
    for (const char *c = ws; *c; c++) byte_class[(unsigned char)*c] = C_WS;
    byte_class['('] = C_OPEN;
    byte_class[')'] = C_CLOSE;
    byte_class[0xC2] = byte_class[0xE1] = byte_class[0xE2] = byte_class[0xE3] = C_HIGH;
}

/* Whether the bytes at p start a character Python's str.split()/regex \s treats as whitespace
 * (U+0085, U+00A0, U+1680, U+2000-200A, U+2028/9, U+202F, U+205F, U+3000): such lines are deferred. */
static int odd_space(const unsigned char *p, const unsigned char *end) {
    if (p + 1 < end && p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0)) return 1;
    if (p + 2 < end && p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) return 1;
    if (p + 2 < end && p[0] == 0xE2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8A) || p[2] == 0xA8 ||
                                                        p[2] == 0xA9 || p[2] == 0xAF)) return 1;
    if (p + 2 < end && p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) return 1;
    if (p + 2 < end && p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) return 1;
    return 0;
}

/* The end of the atom at p, or NULL when a non-ASCII space is met (the line is deferred). */
static const char *atom_end(const char *p, const char *end) {
    while (p < end) {
        unsigned char k = byte_class[(unsigned char)*p];
        if (k == C_ATOM) { p++; continue; }
        if (k != C_HIGH) break;
        if (odd_space((const unsigned char *)p, (const unsigned char *)end)) return NULL;
        p++;
    }
    return p;
}

/* Read one line as exactly one Penn tree (a bracket's first token is its label when it is not a
 * bracket): 0 read, 1 not exactly one well-formed tree (deferred), 2 blank, -1 out of memory. */
static int read_tree(Tree *t, const char *p, const char *end, Symbols *labels) {
    t->nnode = t->nkid = t->nword = t->ntmp = 0;
    int32_t depth = 0, trees = 0;
    int32_t empty_label = -1;
    while (p < end) {
        unsigned char c = byte_class[(unsigned char)*p];
        if (c == C_WS) { p++; continue; }
        if (c == C_OPEN) {
            if (depth == 0 && trees) return 1;           /* a second tree on the line */
            p++;
            while (p < end && byte_class[(unsigned char)*p] == C_WS) p++;
            int32_t label;
            if (p < end && *p != '(' && *p != ')') {
                const char *s = p;
                if (!(p = atom_end(p, end))) return 1;
                label = sym_id(labels, s, (int32_t)(p - s));
            } else {
                if (empty_label < 0) empty_label = sym_id(labels, "", 0);
                label = empty_label;
            }
            if (label < 0) return -1;
            if (GROW(t, node, capnode, t->nnode + 1) || GROW(t, open, capopen, 2 * (depth + 1))) return -1;
            Node *nd = &t->node[t->nnode];
            nd->label = label;
            nd->parent = depth ? t->open[2 * (depth - 1)] : -1;
            nd->start = t->nword;
            t->open[2 * depth] = t->nnode;
            t->open[2 * depth + 1] = t->ntmp;
            if (depth && (GROW(t, tmp, captmp, t->ntmp + 1))) return -1;
            if (depth) t->tmp[t->ntmp++] = t->nnode;
            t->nnode++;
            depth++;
            /* children pushed after this node's own entry in tmp belong to it: mark after it */
            t->open[2 * (depth - 1) + 1] = t->ntmp;
        } else if (c == C_CLOSE) {
            if (!depth) return 1;
            depth--;
            int32_t id = t->open[2 * depth], mark = t->open[2 * depth + 1];
            int32_t n = t->ntmp - mark;
            if (n == 0) return 1;                         /* a bracket with no word or child */
            if (GROW(t, kid, capkid, t->nkid + n)) return -1;
            Node *nd = &t->node[id];
            nd->kid0 = t->nkid;
            nd->nkid = n;
            memcpy(t->kid + t->nkid, t->tmp + mark, (size_t)n * sizeof(int32_t));
            t->nkid += n;
            t->ntmp = mark;
            nd->end = t->nword;
            if (!depth) trees++;
            p++;
        } else {
            if (!depth) return 1;                         /* text outside any bracket */
            const char *s = p;
            if (!(p = atom_end(p, end))) return 1;
            if (GROW(t, word, capword, t->nword + 1) || GROW(t, tmp, captmp, t->ntmp + 1)) return -1;
            t->tmp[t->ntmp++] = ~t->nword;
            t->word[t->nword].p = s;
            t->word[t->nword++].n = (int32_t)(p - s);
        }
    }
    if (depth) return 1;
    return trees ? 0 : 2;
}

static int is_pre(const Tree *t, int32_t n) {
    return t->node[n].nkid == 1 && t->kid[t->node[n].kid0] < 0;
}

/* Copy of `src` without the words whose keep[i] is 0 and without the nodes left with no word:
 * delete_words of trees/tree.py. Returns the number of words kept; -1 out of memory. */
static int32_t delete_words(const Tree *src, const unsigned char *keep, Tree *dst) {
    dst->nnode = dst->nkid = dst->nword = 0;
    /* new word numbers and the kept-word count of each node, by a prefix sum */
    if (GROW(dst, tmp, captmp, (int64_t)src->nword + 1) || GROW(dst, open, capopen, src->nnode + 1)) return -1;
    int32_t *pre = dst->tmp, *newid = dst->open;
    pre[0] = 0;
    for (int32_t i = 0; i < src->nword; i++) pre[i + 1] = pre[i] + (keep[i] ? 1 : 0);
    if (pre[src->nword] == 0) return 0;
    if (GROW(dst, node, capnode, src->nnode) || GROW(dst, kid, capkid, src->nkid) ||
        GROW(dst, word, capword, pre[src->nword])) return -1;
    for (int32_t i = 0; i < src->nword; i++) if (keep[i]) dst->word[dst->nword++] = src->word[i];
    for (int32_t n = 0; n < src->nnode; n++) {          /* pre-order: parents first */
        const Node *s = &src->node[n];
        if (pre[s->end] == pre[s->start]) { newid[n] = -1; continue; }
        newid[n] = dst->nnode;
        Node *d = &dst->node[dst->nnode++];
        d->label = s->label;
        d->parent = s->parent >= 0 ? newid[s->parent] : -1;
        d->start = pre[s->start];
        d->end = pre[s->end];
    }
    for (int32_t n = 0; n < src->nnode; n++) {
        if (newid[n] < 0) continue;
        const Node *s = &src->node[n];
        Node *d = &dst->node[newid[n]];
        d->kid0 = dst->nkid;
        for (int32_t k = 0; k < s->nkid; k++) {
            int32_t c = src->kid[s->kid0 + k];
            if (c < 0) {
                if (keep[~c]) dst->kid[dst->nkid++] = ~pre[~c];
            } else if (newid[c] >= 0) {
                dst->kid[dst->nkid++] = newid[c];
            }
        }
        d->nkid = dst->nkid - d->kid0;
    }
    return pre[src->nword];
}

/* Drop -NONE- words (remove_empty_elements): into dst, or 0 if there are none (src stands). */
static int remove_empty(const Tree *src, const int32_t *flags, Tree *dst, unsigned char **keep, int32_t *capkeep,
                        int32_t *kept) {
    int any = 0;
    if (grow((void **)keep, capkeep, src->nword + 1, 1)) return -1;
    memset(*keep, 1, (size_t)src->nword);
    for (int32_t n = 0; n < src->nnode; n++)
        if (is_pre(src, n) && (flags[src->node[n].label] & F_NONE)) { (*keep)[~src->kid[src->node[n].kid0]] = 0; any = 1; }
    if (!any) { *kept = src->nword; return 0; }
    int32_t r = delete_words(src, *keep, dst);
    if (r < 0) return -1;
    *kept = r;
    return 1;
}

/* ---------------------------------------------------------------- head rules */

/* A head table, compiled by schemes_native.py: prog[off[label]] = passes, then per pass the
 * direction (0 left, 1 right, 2 leftdis, 3 rightdis, 4 leftexcept, 5 rightexcept), the number of
 * categories, the categories (base label ids; -1 @tag, -2 @phrase, -3 @node, -4 @word, -5 @same). */
typedef struct { const int32_t *off, *prog, *flags, *base; } Heads;

enum { CAT_TAG = -1, CAT_PHRASE = -2, CAT_NODE = -3, CAT_WORD = -4, CAT_SAME = -5 };
#define NOCAT (-1)

typedef struct { int32_t *cat; unsigned char *pre; int32_t cap, cappre; } Scratch;

static int cat_match(const Heads *h, const int32_t *cats, const unsigned char *pre, int32_t k, int32_t cat, int32_t label) {
    int32_t c = cats[k];
    if (cat >= 0) return c != NOCAT && c == cat;
    if (cat == CAT_WORD) return c == NOCAT;
    if (c == NOCAT) return 0;
    if (cat == CAT_SAME) return c == label;
    if (cat == CAT_TAG) return pre[k] && !(h->flags[c] & F_HEADPUNCT);
    if (cat == CAT_PHRASE) return !pre[k] && !(h->flags[c] & F_PP);
    return 1;
}

static int32_t first_content(const Heads *h, const int32_t *cats, const unsigned char *pre, int32_t n, int dir) {
    int left = (dir % 2) == 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t k = left ? i : n - 1 - i;
        if (cats[k] == NOCAT || !(h->flags[cats[k]] & F_HEADPUNCT) || !pre[k]) return k;
    }
    return left ? 0 : n - 1;
}

/* HeadRules._find_head_child, over node n of t: the index of its head child. */
static int32_t head_child(const Heads *h, const Tree *t, int32_t n, Scratch *sc) {
    const Node *nd = &t->node[n];
    int32_t nk = nd->nkid;
    if (nk == 1) return 0;
    if (grow((void **)&sc->cat, &sc->cap, nk, sizeof(int32_t)) || grow((void **)&sc->pre, &sc->cappre, nk, 1)) return -2;
    int32_t *cats = sc->cat;
    unsigned char *pre = sc->pre;
    for (int32_t k = 0; k < nk; k++) {
        int32_t c = t->kid[nd->kid0 + k];
        if (c < 0) { cats[k] = NOCAT; pre[k] = 0; }
        else { cats[k] = h->base[t->node[c].label]; pre[k] = (unsigned char)is_pre(t, c); }
    }
    int32_t label = h->base[nd->label];
    const int32_t *p = h->prog + h->off[label];
    int32_t npass = *p++, head = -1, lastdir = 0;
    for (int32_t pass = 0; pass < npass && head < 0; pass++) {
        int32_t dir = *p++, ncat = *p++;
        const int32_t *cat = p;
        p += ncat;
        lastdir = dir;
        int left = (dir % 2) == 0;
        if (!ncat) { head = first_content(h, cats, pre, nk, dir); break; }
        if (dir <= 1) {
            for (int32_t j = 0; j < ncat && head < 0; j++)
                for (int32_t i = 0; i < nk; i++) {
                    int32_t k = left ? i : nk - 1 - i;
                    if (cat_match(h, cats, pre, k, cat[j], label)) { head = k; break; }
                }
        } else {
            int want = dir <= 3;     /* dis: the first that matches any; except: that matches none */
            for (int32_t i = 0; i < nk && head < 0; i++) {
                int32_t k = left ? i : nk - 1 - i, any = 0;
                for (int32_t j = 0; j < ncat && !any; j++) any = cat_match(h, cats, pre, k, cat[j], label);
                if (any == want) head = k;
            }
        }
    }
    if (head < 0) head = first_content(h, cats, pre, nk, lastdir);
    if (head >= 2 && cats[head - 1] != NOCAT && (h->flags[cats[head - 1]] & F_COORD)) {
        int32_t k = head - 2;
        while (k >= 0 && pre[k] && (h->flags[cats[k]] & F_HEADPUNCT)) k--;
        if (k >= 0) head = k;
    }
    return head;
}

/* Head child (index among kids) and head word of every node from `root` down; -1 out of memory. */
static int heads(const Heads *h, const Tree *t, int32_t root, int32_t *hk, int32_t *hw, Scratch *sc) {
    for (int32_t n = t->nnode - 1; n >= root; n--) {
        int32_t k = head_child(h, t, n, sc);
        if (k < -1) return -1;
        hk[n] = k;
        int32_t c = t->kid[t->node[n].kid0 + k];
        hw[n] = c < 0 ? ~c : hw[c];
    }
    return 0;
}

/* ---------------------------------------------------------------- counting */

typedef struct { int32_t s, e; } Span;

static int span_cmp(const void *a, const void *b) {
    const Span *x = a, *y = b;
    return x->s != y->s ? (x->s < y->s ? -1 : 1) : (x->e < y->e ? -1 : x->e > y->e);
}

/* Multiset matches of two span lists (sorted here). */
static int32_t multiset_matches(Span *g, int32_t ng, Span *t, int32_t nt) {
    qsort(g, (size_t)ng, sizeof *g, span_cmp);
    qsort(t, (size_t)nt, sizeof *t, span_cmp);
    int32_t i = 0, j = 0, m = 0;
    while (i < ng && j < nt) {
        int c = span_cmp(&g[i], &t[j]);
        if (c == 0) { m++; i++; j++; } else if (c < 0) i++; else j++;
    }
    return m;
}

/* Gold x test brackets above which a pair is deferred: the loops below are quadratic (as EVALB's),
 * the reference's are not (crossing.py's range queries above its own limit). */
#define QUADRATIC_LIMIT (1L << 22)
static int too_big(int32_t ng, int32_t nt) { return (int64_t)ng * nt > QUADRATIC_LIMIT; }

/* Test spans crossed by some gold span (overlap without nesting): crossing.py's count.
 * Test span (s, e) is crossed by a gold (a, b) with a < s < b < e, or s < a < e < b: so it is
 * crossed when, at some position p strictly inside it, a gold span ending at p starts before s,
 * or one starting at p ends after e. Sentences of up to CROSS_POSITIONS positions are counted
 * that way from two arrays (the least start of the gold spans ending at p, the greatest end of
 * those starting at p); longer ones by the pairwise loop. */
#define CROSS_POSITIONS 512
static int32_t crossings(const Span *g, int32_t ng, const Span *t, int32_t nt) {
    int32_t x = 0, top = 0, low = 0;
    for (int32_t i = 0; i < ng; i++) { if (g[i].e > top) top = g[i].e; if (g[i].s < low) low = g[i].s; }
    for (int32_t j = 0; j < nt; j++) { if (t[j].e > top) top = t[j].e; if (t[j].s < low) low = t[j].s; }
    if (top < CROSS_POSITIONS && low >= 0) {
        int32_t least[CROSS_POSITIONS + 1], most[CROSS_POSITIONS + 1];
        for (int32_t p = 0; p <= top; p++) { least[p] = INT32_MAX; most[p] = -1; }
        for (int32_t i = 0; i < ng; i++) {
            if (g[i].s < least[g[i].e]) least[g[i].e] = g[i].s;
            if (g[i].e > most[g[i].s]) most[g[i].s] = g[i].e;
        }
        for (int32_t j = 0; j < nt; j++) {
            int32_t s = t[j].s, e = t[j].e;
            for (int32_t p = s + 1; p < e; p++)
                if (least[p] < s || most[p] > e) { x++; break; }
        }
        return x;
    }
    for (int32_t j = 0; j < nt; j++)
        for (int32_t i = 0; i < ng; i++)
            if ((g[i].s < t[j].s && t[j].s < g[i].e && g[i].e < t[j].e) ||
                (t[j].s < g[i].s && g[i].s < t[j].e && t[j].e < g[i].e)) { x++; break; }
    return x;
}

/* ---------------------------------------------------------------- the handle */

/* Per-word scratch of parseval's erasure. */
typedef struct {
    int32_t *holder, *kind;          /* per word: the node holding it, its form kinds */
    unsigned char *er, *vb, *st;     /* per word: erased, erased as verbal, stranded adverb */
    int32_t cap;
} Words;


typedef struct {
    Symbols labels;
    Symbols forms; int32_t formkind[64]; unsigned char punctchar[256];
    Words w;
    void *flat;                       /* flat's rewriting arena (Flat), made on first use */
    Tree g, t, g2, t2, g3, t3;
    unsigned char *keep; int32_t capkeep;
    int32_t *a, *b, *c, *d, *e, *f; int32_t capa, capb, capc, capd, cape, capf;
    Span *gs, *ts; int32_t capgs, capts;
    Scratch sc;
} Handle;

void *sk_new(void) { return calloc(1, sizeof(Handle)); }

static void free_tree(Tree *t) { free(t->node); free(t->kid); free(t->word); free(t->tmp); free(t->open); }


/* A word form of Black et al.'s erasure and its kinds (W_*); an ASCII byte of _PUNCT_CHARS. */
int32_t sk_form(void *hp, const char *p, int32_t n, int32_t kind) {
    Handle *h = hp;
    int32_t id = sym_id(&h->forms, p, n);
    if (id < 0 || id >= 64) return -1;
    h->formkind[id] |= kind;
    return id;
}
void sk_punct_char(void *hp, int32_t c) { ((Handle *)hp)->punctchar[c & 255] = 1; }

/* Intern a label (for the tables' category and base-label strings). */
int32_t sk_label(void *hp, const char *p, int32_t n) { return sym_id(&((Handle *)hp)->labels, p, n); }

/* The labels interned so far: count, and the text/offsets/lengths for Python to read. */
int32_t sk_labels(void *hp, const char **text, const int32_t **off, const int32_t **len) {
    Handle *h = hp;
    *text = h->labels.text; *off = h->labels.off; *len = h->labels.len;
    return h->labels.n;
}

static const char *line_end(const char *p, const char *end) {
    const char *q = memchr(p, '\n', (size_t)(end - p));
    return q ? q : end;
}

static int same_words(const Str *a, const Str *b, int32_t n) {
    for (int32_t i = 0; i < n; i++)
        if (a[i].n != b[i].n || memcmp(a[i].p, b[i].p, (size_t)a[i].n)) return 0;
    return 1;
}

/* ---- evalb: EvalbSide of evalb.py over a tree; spans in `out`, returns kept words (-1 memory) */

typedef struct {
    const int32_t *flags;   /* per label */
    const int32_t *cut;     /* per label: id of the label cut at its first - or = (EVALB) */
    const int32_t *eq;      /* EQ_LABEL pairs of cut-label ids */
    int32_t neq, labeled;
} Evalb;

static int evalb_side(Handle *h, const Tree *t, const Evalb *ev, Str **words, int32_t *capw, int32_t *nw,
                      int32_t *length, Span **sp, int32_t *capsp, int32_t **lab, int32_t *caplab, int32_t *nsp,
                      int *quote) {
    /* pre-order walk; brackets take [words before, words before the close) */
    *nw = 0; *length = 0; *nsp = 0; *quote = 0;
    if (GROW(h, e, cape, t->nnode + 1)) return -1;
    int32_t *bid = h->e;   /* node -> bracket index or -1 */
    if (grow((void **)words, capw, t->nword + 1, sizeof(Str)) || grow((void **)sp, capsp, t->nnode + 1, sizeof(Span)) ||
        grow((void **)lab, caplab, t->nnode + 1, sizeof(int32_t))) return -1;
    /* words kept before each word position, for the spans */
    if (GROW(h, f, capf, t->nword + 1)) return -1;
    int32_t *before = h->f;
    before[0] = 0;
    for (int32_t n = 0; n < t->nnode; n++) {
        const Node *nd = &t->node[n];
        if (is_pre(t, n)) {
            int32_t f = ev->flags[nd->label], w = ~t->kid[nd->kid0];
            if (!(f & F_EVLEN)) (*length)++;
            if (f & F_EVQUOTE) *quote = 1;      /* a quote-like terminal: lengths may be mended */
            before[w] = !(f & F_EVDEL);        /* kept? (prefix-summed below) */
        }
    }
    for (int32_t n = 0; n < t->nnode; n++) {   /* words straight under a phrase: no tag, kept */
        const Node *nd = &t->node[n];
        if (is_pre(t, n)) continue;
        for (int32_t k = 0; k < nd->nkid; k++) {
            int32_t c = t->kid[nd->kid0 + k];
            if (c < 0) { before[~c] = 1; (*length)++; }
        }
    }
    int32_t acc = 0;
    for (int32_t i = 0; i < t->nword; i++) {
        int32_t k = before[i];
        before[i] = acc;
        if (k) (*words)[(*nw)++] = t->word[i];
        acc += k;
    }
    before[t->nword] = acc;
    for (int32_t n = 0; n < t->nnode; n++) {
        const Node *nd = &t->node[n];
        bid[n] = -1;
        if (is_pre(t, n)) continue;
        int32_t s = before[nd->start], e = before[nd->end];
        if (s == e) continue;
        int32_t cl = ev->cut[nd->label];
        if (ev->flags[nd->label] & F_EVBDEL) continue;
        (*sp)[*nsp].s = s; (*sp)[*nsp].e = e; (*lab)[*nsp] = cl; (*nsp)++;
    }
    return 0;
}

static int label_comp(const Evalb *ev, int32_t a, int32_t b) {
    if (a == b) return 1;
    for (int32_t i = 0; i < ev->neq; i++)
        if ((a == ev->eq[2 * i] && b == ev->eq[2 * i + 1]) || (a == ev->eq[2 * i + 1] && b == ev->eq[2 * i])) return 1;
    return 0;
}

static int score_evalb(Handle *h, const Tree *g, const Tree *t, const Evalb *ev, int32_t *rec) {
    int32_t gn, tn, glen, tlen, ngs, nts;
    int gq, tq;
    if (evalb_side(h, g, ev, &h->g3.word, &h->g3.capword, &gn, &glen, &h->gs, &h->capgs, &h->c, &h->capc, &ngs, &gq)) return -1;
    if (!t) { rec[R_GOLD] = gn ? ngs : 0; return 0; }
    if (evalb_side(h, t, ev, &h->t3.word, &h->t3.capword, &tn, &tlen, &h->ts, &h->capts, &h->d, &h->capd, &nts, &tq)) return -1;
    if (!tn) return 0;                                  /* skip: zeros */
    if (gn != tn) { rec[R_STATUS] = ST_DEFER; return 0; }   /* quotes to mend, or an error */
    if (!same_words(h->g3.word, h->t3.word, gn) || too_big(ngs, nts)) { rec[R_STATUS] = ST_DEFER; return 0; }
    int32_t m = 0;
    if (GROW(h, f, capf, nts + 1)) return -1;
    memset(h->f, 0, (size_t)nts * sizeof(int32_t));
    for (int32_t i = 0; i < ngs; i++)
        for (int32_t j = 0; j < nts; j++)
            if (!h->f[j] && h->gs[i].s == h->ts[j].s && h->gs[i].e == h->ts[j].e &&
                (!ev->labeled || label_comp(ev, h->c[i], h->d[j]))) { h->f[j] = 1; m++; break; }
    rec[R_GOLD] = ngs; rec[R_TEST] = nts; rec[R_MATCHED] = m;
    rec[R_CROSSING] = crossings(h->gs, ngs, h->ts, nts);
    return 0;
}

/* ---- mph: maximal projections of heads (trees/mph.py), brackets into sp; -1 memory, else words */

static int32_t mph_side(Handle *h, const Tree *src, Tree *noempty, const Heads *hd, Tree *wout,
                        Span **sp, int32_t *capsp, int32_t *nsp) {
    *nsp = 0;
    int32_t kept;
    int r = remove_empty(src, hd->flags, noempty, &h->keep, &h->capkeep, &kept);
    if (r < 0) return -1;
    const Tree *t = r ? noempty : src;
    if (!kept) return 0;
    int32_t root = 0;
    if ((hd->flags[t->node[0].label] & F_EMPTY) && t->node[0].nkid == 1 && t->kid[t->node[0].kid0] >= 0) root = 1;
    int32_t nn = t->nnode;
    if (GROW(h, a, capa, nn) || GROW(h, b, capb, nn) || GROW(h, c, capc, nn) || GROW(h, d, capd, nn) ||
        GROW(h, e, cape, t->nword + 1) || GROW(h, f, capf, t->nword + 1)) return -1;
    int32_t *hk = h->a, *hw = h->b, *maxanc = h->c, *nkids = h->d, *pre = h->e;
    if (heads(hd, t, root, hk, hw, &h->sc)) return -1;
    /* punctuation: the (base) tag of a word's preterminal */
    unsigned char *punct = (unsigned char *)h->f;
    memset(punct, 0, (size_t)t->nword);
    for (int32_t n = root; n < nn; n++)
        if (is_pre(t, n) && (hd->flags[hd->base[t->node[n].label]] & F_PUNCT)) punct[~t->kid[t->node[n].kid0]] = 1;
    pre[0] = 0;
    int32_t nw = 0;
    if (GROW(wout, word, capword, t->nword + 1)) return -1;
    for (int32_t i = 0; i < t->nword; i++) {
        pre[i + 1] = pre[i] + !punct[i];
        if (!punct[i]) wout->word[nw++] = t->word[i];
    }
    if (!nw) return 0;
    /* maxanc[n]: n itself when maximal, else its nearest maximal ancestor; nkids: children in M */
    for (int32_t n = root; n < nn; n++) {
        nkids[n] = 0;
        if (n == root) { maxanc[n] = n; continue; }
        int32_t p = t->node[n].parent;
        int headed = t->kid[t->node[p].kid0 + hk[p]] == n;
        maxanc[n] = headed ? maxanc[p] : n;
    }
    for (int32_t n = root; n < nn; n++) {
        const Node *nd = &t->node[n];
        if (n != root && maxanc[n] == n && pre[nd->end] > pre[nd->start]) nkids[maxanc[nd->parent]]++;
        for (int32_t k = 0; k < nd->nkid; k++) {
            int32_t c = t->kid[nd->kid0 + k];
            if (c < 0 && !punct[~c]) nkids[maxanc[n]]++;
        }
    }
    if (grow((void **)sp, capsp, nn + 1, sizeof(Span))) return -1;
    for (int32_t n = root + 1; n < nn; n++) {
        const Node *nd = &t->node[n];
        if (maxanc[n] != n) continue;
        int32_t s = pre[nd->start], e = pre[nd->end];
        if (e - s >= 2 && nkids[maxanc[nd->parent]] >= 2) { (*sp)[*nsp].s = s; (*sp)[*nsp].e = e; (*nsp)++; }
    }
    return nw;
}

static int score_mph(Handle *h, const Tree *g, const Tree *t, const Heads *hd, int32_t *rec) {
    int32_t ngs, nts;
    int32_t gn = mph_side(h, g, &h->g2, hd, &h->g3, &h->gs, &h->capgs, &ngs);
    if (gn < 0) return -1;
    rec[R_GOLD] = ngs;
    if (!t) return 0;
    int32_t tn = mph_side(h, t, &h->t2, hd, &h->t3, &h->ts, &h->capts, &nts);
    if (tn < 0) return -1;
    if (gn != tn || !same_words(h->g3.word, h->t3.word, gn) || too_big(ngs, nts)) { rec[R_STATUS] = ST_DEFER; return 0; }
    rec[R_TEST] = nts;
    rec[R_CROSSING] = crossings(h->gs, ngs, h->ts, nts);
    rec[R_MATCHED] = multiset_matches(h->gs, ngs, h->ts, nts);
    return 0;
}

/* ---- deps: head dependencies with relation labels (trees/dependencies.py) */

typedef struct {
    const int32_t *rules;    /* per rule: relation, side (0 any, 1 before, 2 after), nth, coord, nosubj,
                                parent, head, dependent pattern numbers */
    int32_t nrules, nlabels;
    const unsigned char *pat;   /* pattern p matches label l: pat[l * 3 * nrules + p] */
    const unsigned char *patword;  /* pattern p matches a bare word */
    int32_t empty_rel, root_rel;
} Relations;
enum { RL_REL, RL_SIDE, RL_NTH, RL_COORD, RL_NOSUBJ, RL_PARENT, RL_HEAD, RL_DEP, RL };

static int pmatch(const Relations *rl, int32_t p, const Tree *t, int32_t c) {
    return c < 0 ? rl->patword[p] : rl->pat[(size_t)t->node[c].label * 3 * rl->nrules + p];
}

static int32_t relation(const Relations *rl, const Heads *hd, const Tree *t, int32_t n, int32_t hkx, int32_t k) {
    const Node *nd = &t->node[n];
    const int32_t *kids = t->kid + nd->kid0;
    int32_t hc = kids[hkx], dep = kids[k];
    int side = k < hkx ? 1 : 2;
    for (int32_t i = 0; i < rl->nrules; i++) {
        const int32_t *r = rl->rules + RL * i;
        if (r[RL_SIDE] && r[RL_SIDE] != side) continue;
        if (!(rl->pat[(size_t)nd->label * 3 * rl->nrules + r[RL_PARENT]] && pmatch(rl, r[RL_HEAD], t, hc) &&
              pmatch(rl, r[RL_DEP], t, dep))) continue;
        if (r[RL_COORD]) {
            if (dep < 0 || hc < 0) continue;
            int cc = 0;
            for (int32_t j = 0; j < nd->nkid && !cc; j++) cc = kids[j] >= 0 && (hd->flags[t->node[kids[j]].label] & F_CCONJ);
            if (!cc) continue;
            if (hd->base[t->node[dep].label] != hd->base[t->node[hc].label]) continue;
        }
        if (r[RL_NOSUBJ]) {
            if (dep < 0) continue;
            int subj = 0;
            const Node *dn = &t->node[dep];
            for (int32_t j = 0; j < dn->nkid && !subj; j++) {
                int32_t c = t->kid[dn->kid0 + j];
                subj = c >= 0 && (hd->flags[t->node[c].label] & F_SBJ);
            }
            if (subj) continue;
        }
        if (r[RL_NTH]) {
            int32_t lo = side == 2 ? hkx + 1 : k + 1, hi = side == 2 ? k : hkx, cnt = 1;
            for (int32_t j = lo; j < hi; j++) cnt += pmatch(rl, r[RL_DEP], t, kids[j]);
            if (cnt != r[RL_NTH]) continue;
        }
        return r[RL_REL];
    }
    return rl->empty_rel;
}

/* Heads and relations of every word of t (empty elements removed): gov[i], rel[i]; -1 memory. */
static int32_t dep_side(Handle *h, const Tree *src, Tree *noempty, const Heads *hd, const Tree **out) {
    int32_t kept;
    int r = remove_empty(src, hd->flags, noempty, &h->keep, &h->capkeep, &kept);
    if (r < 0) return -1;
    const Tree *t = r ? noempty : src;
    *out = t;
    if (!kept) return 0;
    int32_t nn = t->nnode;
    if (GROW(h, a, capa, nn) || GROW(h, b, capb, nn)) return -1;
    if (heads(hd, t, 0, h->a, h->b, &h->sc)) return -1;
    return kept;
}

static int score_deps(Handle *h, const Tree *g, const Tree *t, const Heads *hd, const Relations *rl, int32_t *rec) {
    const Tree *gt, *tt;
    int32_t gn = dep_side(h, g, &h->g2, hd, &gt);
    if (gn < 0) return -1;
    /* gold arcs into c (governor) and d (relation), scored flags into keep of g3 */
    if (GROW(h, c, capc, gn + 1) || GROW(h, d, capd, gn + 1) || GROW(&h->g3, word, capword, gn + 1) ||
        GROW(&h->g3, kid, capkid, gn + 1)) return -1;
    int32_t *ggov = h->c, *grel = h->d, *scored = h->g3.kid;
    for (int32_t i = 0; i < gn; i++) scored[i] = 1;
    for (int32_t n = 0; n < (gn ? gt->nnode : 0); n++) {
        const Node *nd = &gt->node[n];
        if (is_pre(gt, n)) { if (hd->flags[nd->label] & F_PUNCT) scored[~gt->kid[nd->kid0]] = 0; continue; }
        for (int32_t k = 0; k < nd->nkid; k++) {
            if (k == h->a[n]) continue;
            int32_t c = gt->kid[nd->kid0 + k], dw = c < 0 ? ~c : h->b[c];
            ggov[dw] = h->b[n];
            grel[dw] = relation(rl, hd, gt, n, h->a[n], k);
        }
    }
    if (gn) { ggov[h->b[0]] = -1; grel[h->b[0]] = rl->root_rel; }
    int32_t ns = 0;
    for (int32_t i = 0; i < gn; i++) ns += scored[i];
    rec[R_GOLD] = ns; rec[R_TGOLD] = ns;
    if (!t) return 0;
    if (gn) memcpy(h->g3.word, gt->word, (size_t)gn * sizeof(Str));
    int32_t tn = dep_side(h, t, &h->t2, hd, &tt);
    if (tn < 0) return -1;
    if (tn != gn || !same_words(h->g3.word, tt->word, gn)) { rec[R_STATUS] = ST_DEFER; return 0; }
    int32_t m = 0, tm = 0;
    if (GROW(h, e, cape, tn + 1)) return -1;
    int32_t *tgov = h->e;
    for (int32_t n = 0; n < (tn ? tt->nnode : 0); n++) {
        const Node *nd = &tt->node[n];
        if (is_pre(tt, n)) continue;
        for (int32_t k = 0; k < nd->nkid; k++) {
            if (k == h->a[n]) continue;
            int32_t c = tt->kid[nd->kid0 + k], dw = c < 0 ? ~c : h->b[c];
            tgov[dw] = h->b[n];
            if (scored[dw] && ggov[dw] == h->b[n]) {
                m++;
                if (grel[dw] == relation(rl, hd, tt, n, h->a[n], k)) tm++;
            }
        }
    }
    if (tn) {
        int32_t top = h->b[0];
        if (scored[top] && ggov[top] == -1) { m++; if (grel[top] == rl->root_rel) tm++; }
    }
    rec[R_TEST] = ns; rec[R_MATCHED] = m; rec[R_TTEST] = ns; rec[R_TMATCHED] = tm;
    return 0;
}

/* ---- parseval: Black et al.'s erasures (trees/black.py) and constituent spans (parseval.py) */


static int words_room(Words *w, int32_t n) {
    if (n <= w->cap) return 0;
    int32_t c = w->cap ? w->cap : 64;
    while (c < n) c *= 2;
    void *a = realloc(w->holder, (size_t)c * 4), *b = realloc(w->kind, (size_t)c * 4);
    if (a) w->holder = a;
    if (b) w->kind = b;
    void *x = realloc(w->er, (size_t)c), *y = realloc(w->vb, (size_t)c), *z = realloc(w->st, (size_t)c);
    if (x) w->er = x;
    if (y) w->vb = y;
    if (z) w->st = z;
    if (!a || !b || !x || !y || !z) return -1;
    w->cap = c;
    return 0;
}

static void holders(const Tree *t, int32_t *holder) {
    for (int32_t n = 0; n < t->nnode; n++)
        for (int32_t k = 0; k < t->node[n].nkid; k++) {
            int32_t c = t->kid[t->node[n].kid0 + k];
            if (c < 0) holder[~c] = n;
        }
}

/* Form kinds of every word (lower-cased); 1 when a word is not ASCII (the pair is deferred). */
static int word_kinds(const Handle *h, const Tree *t, int32_t *kind) {
    char buf[64];
    for (int32_t i = 0; i < t->nword; i++) {
        Str w = t->word[i];
        kind[i] = 0;
        for (int32_t k = 0; k < w.n; k++) if ((unsigned char)w.p[k] >= 0x80) return 1;
        if (w.n > 63) continue;
        for (int32_t k = 0; k < w.n; k++) buf[k] = (char)((w.p[k] >= 'A' && w.p[k] <= 'Z') ? w.p[k] + 32 : w.p[k]);
        int32_t id = sym_find(&h->forms, buf, w.n);
        if (id >= 0) kind[i] = h->formkind[id];
    }
    return 0;
}

/* erased_words of trees/black.py over the gold tree: er and vb per word. */
static void erased_words(const Handle *h, const Tree *t, const int32_t *flags, const int32_t *base, Words *w) {
    int32_t n = t->nword;
    holders(t, w->holder);
#define LAB(i) base[t->node[w->holder[i]].label]
#define FL(i) flags[LAB(i)]
#define TAGGED(i) is_pre(t, w->holder[i])
#define PTB(i) (TAGGED(i) && (FL(i) & F_PTB))
    for (int32_t i = 0; i < n; i++) { w->er[i] = 0; w->vb[i] = 0; }
    for (int32_t i = 0; i < n; i++) {
        int32_t kind = w->kind[i], f = FL(i), ptb = PTB(i);
        int verbal_word = 0, aux = ptb ? ((f & F_MD) || ((f & F_VERB) && (kind & W_AUX))) : (kind & W_AUX) != 0;
        if (kind & W_NOT) { w->vb[i] = 1; continue; }
        int to = (kind & W_TO) && ((f & F_TO) || !ptb);
        if (aux || to) {
            /* verb_follows: scope = the word's phrase, outer = the phrase above it */
            int32_t hn = w->holder[i], phrase = hn;
            if (TAGGED(i)) phrase = t->node[hn].parent >= 0 ? t->node[hn].parent : hn;
            int32_t above = t->node[phrase].parent >= 0 ? t->node[phrase].parent : phrase;
            int32_t end = t->node[phrase].end;
            if (i + 1 >= end) end = t->node[above].end;
            int32_t j = i + 1;
            while (j < end) {
                int32_t fj = FL(j), kj = w->kind[j];
                int adverb = (kj & W_NOT) || (PTB(j) ? (fj & F_ADVTAG) != 0 : (fj & F_ADVPFX) != 0);
                if (!adverb) break;
                j++;
            }
            if (j < end) {
                int32_t fj = FL(j);
                verbal_word = PTB(j) ? (fj & F_VERB) != 0 : ((TAGGED(j) && (fj & F_VPFX)) || (w->kind[j] & W_AUX));
            }
            if (verbal_word) { w->vb[i] = 1; continue; }
        }
        if ((f & F_NONE) || ((kind & W_ZERO) && TAGGED(i) && !ptb)) { w->er[i] = 1; continue; }
        if ((f & F_POS) || (!ptb && (kind & W_POSS))) { w->er[i] = 1; continue; }
        if (ptb) { if (f & F_BPUNCT) w->er[i] = 1; continue; }
        Str s = t->word[i];
        int all = 1;
        for (int32_t k = 0; k < s.n && all; k++) all = h->punctchar[(unsigned char)s.p[k]];
        if (all) w->er[i] = 1;
    }
    for (int32_t i = 0; i < n; i++) if (w->vb[i]) w->er[i] = 1;
}

/* The distinct spans of more than one word of black_erase(t, erasure): sorted into sp. */
static int parseval_spans(Handle *h, const Tree *t, const int32_t *flags, const int32_t *base, Words *w,
                          const unsigned char *er, const unsigned char *vb, Tree *d, Span **sp, int32_t *capsp,
                          int32_t *nsp) {
    *nsp = 0;
    int32_t n = t->nword;
    holders(t, w->holder);
    unsigned char *keep = w->st;          /* reused below for the stranded flags of d's words */
    if (GROW(h, f, capf, n + 1)) return -1;
    int32_t *stranded_old = h->f;
    for (int32_t i = 0; i < n; i++) {
        int32_t fl = FL(i);
        int adverb = (fl & F_ADVTAG) || (!PTB(i) && (fl & F_ADVPFX));
        stranded_old[i] = !er[i] && adverb && ((i > 0 && vb[i - 1]) || (i + 1 < n && vb[i + 1]));
    }
    for (int32_t i = 0; i < n; i++) keep[i] = !er[i];
    int32_t kept = delete_words(t, keep, d);
    if (kept < 0) return -1;
    if (!kept) return 0;
    /* stranded, by d's word numbers */
    if (GROW(h, e, cape, kept + 1)) return -1;
    for (int32_t i = 0, j = 0; i < n; i++) if (keep[i]) h->e[j++] = stranded_old[i];
    int32_t *stranded = h->e;
    int32_t nn = d->nnode;
    if (GROW(h, a, capa, nn + 1) || GROW(h, b, capb, nn + 1) || grow((void **)sp, capsp, nn + 1, sizeof(Span))) return -1;
    int32_t *start = h->a;                /* span start of each chain top, after adverb attachment */
    for (int32_t x = 0; x < nn; x++) start[x] = d->node[x].start;
    /* the R-children of each chain top are the children of its chain's bottom; walk every node
     * with two or more children (a bottom) and attach a stranded word to the verbal node after it */
    for (int32_t x = 0; x < nn; x++) {
        const Node *b = &d->node[x];
        if (b->nkid < 2) continue;
        for (int32_t k = 0; k + 1 < b->nkid; k++) {
            int32_t c = d->kid[b->kid0 + k], y = d->kid[b->kid0 + k + 1];
            int32_t cw = c < 0 ? ~c : (d->node[c].end - d->node[c].start == 1 ? d->node[c].start : -1);
            if (cw < 0 || !stranded[cw]) continue;
            if (y < 0 || d->node[y].end - d->node[y].start < 2) continue;        /* a word, not a node */
            if (!(flags[base[d->node[y].label]] & F_VPFX)) continue;
            start[y] = cw;
            k++;                          /* y is taken: the scan goes on after it */
        }
    }
    for (int32_t x = 0; x < nn; x++) {
        const Node *nd = &d->node[x];
        int top = x == 0 || d->node[nd->parent].nkid >= 2;
        if (!top || nd->end - start[x] < 2) continue;
        (*sp)[*nsp].s = start[x]; (*sp)[*nsp].e = nd->end; (*nsp)++;
    }
    qsort(*sp, (size_t)*nsp, sizeof(Span), span_cmp);
    int32_t u = 0;
    for (int32_t i = 0; i < *nsp; i++)
        if (!u || span_cmp(&(*sp)[u - 1], &(*sp)[i])) (*sp)[u++] = (*sp)[i];
    *nsp = u;
    return 0;
#undef LAB
#undef FL
#undef TAGGED
#undef PTB
}

static int score_parseval(Handle *h, const Tree *g, const Tree *t, const int32_t *flags, const int32_t *base,
                          int32_t *rec) {
    Words w = h->w;
    int32_t n = g->nword, ngs, nts;
    if (t && (t->nword != n || !same_words(g->word, t->word, n))) { rec[R_STATUS] = ST_DEFER; return 0; }
    int room = words_room(&w, n + 1);
    h->w = w;
    if (room) return -1;
    if (word_kinds(h, g, w.kind)) { rec[R_STATUS] = ST_DEFER; return 0; }
    erased_words(h, g, flags, base, &w);
    if (GROW(&h->g3, kid, capkid, n + 1) || GROW(&h->t3, kid, capkid, n + 1)) return -1;
    unsigned char *er = (unsigned char *)h->g3.kid, *vb = (unsigned char *)h->t3.kid;
    memcpy(er, w.er, (size_t)n);
    memcpy(vb, w.vb, (size_t)n);
    if (parseval_spans(h, g, flags, base, &w, er, vb, &h->g2, &h->gs, &h->capgs, &ngs)) return -1;
    rec[R_GOLD] = ngs;
    if (!t) return 0;
    if (parseval_spans(h, t, flags, base, &w, er, vb, &h->t2, &h->ts, &h->capts, &nts)) return -1;
    if (too_big(ngs, nts)) { rec[R_STATUS] = ST_DEFER; return 0; }
    rec[R_TEST] = nts;
    int32_t i = 0, j = 0, m = 0;
    while (i < ngs && j < nts) {
        int c = span_cmp(&h->gs[i], &h->ts[j]);
        if (c == 0) { m++; i++; j++; } else if (c < 0) i++; else j++;
    }
    rec[R_MATCHED] = m;
    rec[R_CROSSING] = crossings(h->gs, ngs, h->ts, nts);
    return 0;
}

/* ---- flat: Gaizauskas et al.'s flattened keys (trees/flatten.py) and constituents (flat.py) */

/* A tree being rewritten: nodes with child lists in an arena (kid entries: >= 0 a node, < 0 the
 * word ~i, i its position in the gold line). Rewrites append new lists; nothing is freed per pair. */
typedef struct { int32_t label, kid0, nk; } PNode;
typedef struct {
    PNode *node; int32_t n, cap;
    int32_t *kid; int32_t nkid, capkid;
    int32_t *ser[2]; int32_t nser[2], capser[2];    /* serialisations of the last two trees */
    int32_t *stack; int32_t capstack;
    unsigned char *dp; int32_t capdp;
    int32_t *scr; int32_t nscr, capscr;             /* a stack of the kid lists being rewritten */
    int32_t *abuf; int32_t capabuf;                 /* apply_rules' labels and marks */
    int32_t *nb; int32_t capnb;                     /* apply_rules' new kid list */
} Flat;

typedef struct {
    const int32_t *rules;   /* per rule: parent, form (1 child marked, 2 parent marked, 3 X^), marked,
                               number of child patterns, offset of the patterns in pats */
    const int32_t *pats;    /* label ids; -1 "_", -2 "*" */
    int32_t nrules, with_root, as_given;
} FlatRules;
enum { FR_PARENT, FR_FORM, FR_MARKED, FR_NPAT, FR_OFF, FR };
#define P_ANY (-1)
#define P_RUN (-2)
#define FLAT_DEPTH 2000           /* deeper trees are deferred to the reference */

/* A new node whose kids are kids[0..nk), or (kids NULL) the arena's own f->kid[off..off+nk). */
static int32_t pnode_from(Flat *f, int32_t label, const int32_t *kids, int32_t off, int32_t nk) {
    if (grow((void **)&f->node, &f->cap, f->n + 1, sizeof(PNode)) ||
        grow((void **)&f->kid, &f->capkid, (int64_t)f->nkid + nk + 1, sizeof(int32_t))) return -1;
    memmove(f->kid + f->nkid, kids ? kids : f->kid + off, (size_t)nk * sizeof(int32_t));
    f->node[f->n].label = label; f->node[f->n].kid0 = f->nkid; f->node[f->n].nk = nk;
    f->nkid += nk;
    return f->n++;
}

static int32_t pnode(Flat *f, int32_t label, const int32_t *kids, int32_t nk) {
    return pnode_from(f, label, kids, 0, nk);
}

/* _matches: do labels[0..nl) match patterns[0..np) ("_" one child, "*" any run)? */
static int pat_match(Flat *f, const int32_t *pat, int32_t np, const int32_t *labels, int32_t nl) {
    int32_t w = nl + 1;
    if (grow((void **)&f->dp, &f->capdp, (int64_t)(np + 1) * w, 1)) return -1;
    unsigned char *m = f->dp;
    for (int32_t p = np; p >= 0; p--)
        for (int32_t k = nl; k >= 0; k--) {
            unsigned char r;
            if (p == np) r = k == nl;
            else if (pat[p] == P_RUN) r = m[(p + 1) * w + k] || (k < nl && m[p * w + k + 1]);
            else if (k < nl && (pat[p] == P_ANY || (labels[k] >= 0 && pat[p] == labels[k]))) r = m[(p + 1) * w + k + 1];
            else r = 0;
            m[p * w + k] = r;
        }
    return m[0];
}

/* The labels of a kid list (-3 for a word: no pattern label equals it). */
static void kid_labels(const Flat *f, const int32_t *kids, int32_t nk, int32_t *out) {
    for (int32_t k = 0; k < nk; k++) out[k] = kids[k] < 0 ? -3 : f->node[kids[k]].label;
}

/* _apply_rules at one node whose children are already rewritten: kids (in/out, in scratch).
 * Returns 1 when the node's bracket is removed (its kids go to the parent), 0 kept, -1 memory. */
static int apply_rules(Flat *f, const FlatRules *fr, int32_t label, int is_root, int32_t **kids, int32_t *nk,
                       int32_t **buf, int32_t *capbuf) {
    for (int32_t i = 0; i < fr->nrules; i++) {
        const int32_t *r = fr->rules + FR * i;
        if (r[FR_PARENT] != label) continue;
        if (r[FR_FORM] == 3) { if (!is_root) return 1; continue; }
        int32_t need = 3 * (*nk) + 3;
        if (grow((void **)buf, capbuf, need, sizeof(int32_t))) return -1;
        int32_t *labels = *buf, *out = *buf + *nk + 1;
        kid_labels(f, *kids, *nk, labels);
        const int32_t *pat = fr->pats + r[FR_OFF];
        int32_t np = r[FR_NPAT];
        if (r[FR_FORM] == 2) {
            int m = pat_match(f, pat, np, labels, *nk);
            if (m < 0) return -1;
            if (!is_root && m) return 1;
            continue;
        }
        int32_t mk = r[FR_MARKED], target = pat[mk], wild = 0;
        for (int32_t j = 0; j < np; j++) wild |= pat[j] < 0;
        /* which children are marked; then the marked ones give way to their children */
        unsigned char any = 0;
        int32_t nout = 0;
        unsigned char *marked = (unsigned char *)(*buf + 2 * (*nk) + 2);
        for (int32_t k = 0; k < *nk; k++) marked[k] = 0;
        if (!wild) {
            if (*nk == np) {
                int eq = 1;
                for (int32_t j = 0; j < np && eq; j++) eq = labels[j] == pat[j];
                if (eq) { marked[mk] = 1; any = 1; }
            }
        } else {
            for (int32_t k = 0; k < *nk; k++) {
                if (labels[k] != target) continue;
                int a = pat_match(f, pat, mk, labels, k);
                if (a < 0) return -1;
                if (!a) continue;
                int b = pat_match(f, pat + mk + 1, np - mk - 1, labels + k + 1, *nk - k - 1);
                if (b < 0) return -1;
                if (b) { marked[k] = 1; any = 1; }
            }
        }
        if (!any) continue;
        int32_t total = 0;
        for (int32_t k = 0; k < *nk; k++) total += marked[k] ? f->node[(*kids)[k]].nk : 1;
        if (grow((void **)&f->nb, &f->capnb, (int64_t)total + 1, sizeof(int32_t))) return -1;
        int32_t *nb = f->nb;
        for (int32_t k = 0; k < *nk; k++) {
            int32_t c = (*kids)[k];
            if (marked[k]) { memcpy(nb + nout, f->kid + f->node[c].kid0, (size_t)f->node[c].nk * 4); nout += f->node[c].nk; }
            else nb[nout++] = c;
        }
        (void)out;
        /* the new list replaces kids: kept in the arena so that later rules read it */
        if (grow((void **)&f->kid, &f->capkid, (int64_t)f->nkid + nout + 1, sizeof(int32_t))) return -1;
        memcpy(f->kid + f->nkid, nb, (size_t)nout * 4);
        *kids = f->kid + f->nkid;      /* caller reads it before the arena grows again */
        *nk = nout;
        f->nkid += nout;
    }
    return 0;
}

/* One rewrite pass over the tree rooted at x: rules (pass 0), empty elements (pass 1: `none` is
 * the -NONE- label), unary nodes (pass 2). The result's kids are appended to out. Returns 0, or -1
 * memory, -2 too deep. A node's kid list is built on the scratch stack f->scr (its children push
 * their results above its start, then it pops them), so no pair allocates per node. */
static int rewrite(Flat *f, const FlatRules *fr, int32_t x, int is_root, int pass, int32_t none, int32_t depth,
                   int32_t **out, int32_t *nout, int32_t *capout) {
    if (depth > FLAT_DEPTH) return -2;
    PNode nd = f->node[x];
    int32_t base = f->nscr;
    for (int32_t k = 0; k < nd.nk; k++) {
        int32_t c = f->kid[nd.kid0 + k];
        if (c < 0) {
            if (grow((void **)&f->scr, &f->capscr, (int64_t)f->nscr + 1, sizeof(int32_t))) return -1;
            f->scr[f->nscr++] = c;
            continue;
        }
        int e = rewrite(f, fr, c, 0, pass, none, depth + 1, &f->scr, &f->nscr, &f->capscr);
        if (e) return e;
    }
    int32_t *use = f->scr + base, nuse = f->nscr - base;
    int splice = 0;
    if (pass == 0) {
        int r = apply_rules(f, fr, nd.label, is_root, &use, &nuse, &f->abuf, &f->capabuf);
        if (r < 0) return -1;
        splice = r;
    } else if (pass == 1) {
        if (nd.label == none && nd.nk == 1 && f->kid[nd.kid0] < 0) nuse = 0;   /* an empty element */
    }
    /* the kids: still on the stack at base, or a list the rules appended to the arena */
    int in_arena = use != f->scr + base;
    int32_t off = in_arena ? (int32_t)(use - f->kid) : 0;
    f->nscr = base;                                      /* popped; the values stay until pushed over */
    if (!nuse) return 0;                                 /* left with no word: dropped */
    if (splice) {
        if (grow((void **)out, capout, (int64_t)*nout + nuse, sizeof(int32_t))) return -1;
        memmove(*out + *nout, in_arena ? f->kid + off : f->scr + base, (size_t)nuse * 4);
        *nout += nuse;
        return 0;
    }
    int32_t first = in_arena ? f->kid[off] : f->scr[base], y;
    if (pass == 2 && !is_root && nuse == 1 && first >= 0) y = first;     /* unary: the child stands */
    else y = pnode_from(f, nd.label, in_arena ? NULL : f->scr + base, off, nuse);
    if (y < 0) return -1;
    if (grow((void **)out, capout, (int64_t)*nout + 1, sizeof(int32_t))) return -1;
    (*out)[(*nout)++] = y;
    return 0;
}

/* The tree's serialisation (labels, child counts, words in order) for the fixpoint test. */
static int serialise(Flat *f, int32_t root, int slot) {
    int32_t n = 0, sp = 0;
    if (grow((void **)&f->stack, &f->capstack, 1, 4)) return -1;
    f->stack[sp++] = root;
    while (sp) {
        int32_t x = f->stack[--sp];
        if (grow((void **)&f->ser[slot], &f->capser[slot], n + 3, 4)) return -1;
        if (x < 0) { f->ser[slot][n++] = x; continue; }
        f->ser[slot][n++] = f->node[x].label;
        f->ser[slot][n++] = f->node[x].nk;
        if (grow((void **)&f->stack, &f->capstack, sp + f->node[x].nk + 1, 4)) return -1;
        for (int32_t k = f->node[x].nk - 1; k >= 0; k--) f->stack[sp++] = f->kid[f->node[x].kid0 + k];
    }
    f->nser[slot] = n;
    return 0;
}

/* The spans of the non-preterminal nodes of the tree at root (words numbered in order), distinct,
 * the whole-sentence span left out unless with_root; the words into w (original positions). */
static int flat_spans(Flat *f, int32_t root, int with_root, Span **sp, int32_t *capsp, int32_t *nsp,
                      int32_t **w, int32_t *capw, int32_t *nw) {
    *nsp = 0; *nw = 0;
    /* iterative pre-order with end markers: node spans from the running word count */
    int32_t sp_ = 0;
    if (grow((void **)&f->stack, &f->capstack, 2, 4)) return -1;
    f->stack[sp_++] = root;
    int32_t *open = NULL, nopen = 0, capopen = 0;
    while (sp_) {
        int32_t x = f->stack[--sp_];
        if (x == INT32_MIN) {                            /* the end of a node */
            int32_t s = open[--nopen];
            int32_t y = open[--nopen];
            if (!(f->node[y].nk == 1 && f->kid[f->node[y].kid0] < 0)) {
                if (grow((void **)sp, capsp, *nsp + 1, sizeof(Span))) { free(open); return -1; }
                (*sp)[*nsp].s = s; (*sp)[*nsp].e = *nw; (*nsp)++;
            }
            continue;
        }
        if (x < 0) {
            if (grow((void **)w, capw, *nw + 1, 4)) { free(open); return -1; }
            (*w)[(*nw)++] = ~x;
            continue;
        }
        if (grow((void **)&open, &capopen, nopen + 2, 4) ||
            grow((void **)&f->stack, &f->capstack, sp_ + f->node[x].nk + 2, 4)) { free(open); return -1; }
        open[nopen++] = x; open[nopen++] = *nw;
        f->stack[sp_++] = INT32_MIN;
        for (int32_t k = f->node[x].nk - 1; k >= 0; k--) f->stack[sp_++] = f->kid[f->node[x].kid0 + k];
    }
    free(open);
    qsort(*sp, (size_t)*nsp, sizeof(Span), span_cmp);
    int32_t u = 0;
    for (int32_t i = 0; i < *nsp; i++) {
        Span s = (*sp)[i];
        if (!with_root && s.s == 0 && s.e == *nw) continue;
        if (!u || span_cmp(&(*sp)[u - 1], &s)) (*sp)[u++] = s;
    }
    *nsp = u;
    return 0;
}

/* A Tree into the arena (labels by `map`: base labels for keys, as read otherwise); its root. */
static int32_t to_arena(Flat *f, const Tree *t, const int32_t *map) {
    f->n = 0; f->nkid = 0;
    for (int32_t x = 0; x < t->nnode; x++)
        if (pnode(f, map ? map[t->node[x].label] : t->node[x].label, t->kid + t->node[x].kid0, t->node[x].nkid) < 0) return -1;
    return 0;                                            /* pre-order ids are kept: the root is 0 */
}

/* flatten(): the key's root in the arena; -1 memory, -2 deferred (too deep), -3 no word left. */
static int32_t flatten_key(Flat *f, const FlatRules *fr, int32_t none) {
    int32_t root = 0, *out = NULL, nout = 0, capout = 0;
    f->nscr = 0;                                         /* an earlier pair may have stopped mid-way */
    if (serialise(f, root, 0)) return -1;
    for (int iter = 0; iter < 1000; iter++) {
        for (int pass = 0; pass < 3; pass++) {
            nout = 0;
            int e = rewrite(f, fr, root, 1, pass, none, 0, &out, &nout, &capout);
            if (e) { free(out); return e; }
            if (!nout) { free(out); return -3; }
            if (out[0] < 0 || nout != 1) {               /* the root spliced or a bare word: rebuild */
                int32_t y = pnode(f, f->node[root].label, out, nout);
                if (y < 0) { free(out); return -1; }
                root = y;
            } else root = out[0];
        }
        if (serialise(f, root, 1)) { free(out); return -1; }
        if (f->nser[0] == f->nser[1] && !memcmp(f->ser[0], f->ser[1], (size_t)f->nser[0] * 4)) { free(out); return root; }
        int32_t *tmp = f->ser[0]; f->ser[0] = f->ser[1]; f->ser[1] = tmp;
        int32_t c = f->capser[0]; f->capser[0] = f->capser[1]; f->capser[1] = c;
        f->nser[0] = f->nser[1];
    }
    free(out);
    return -2;
}

static int score_flat(Handle *h, Flat *f, const Tree *g, const Tree *t, const FlatRules *fr, const int32_t *base,
                      int32_t none, int32_t *rec) {
    int32_t ngs, nts, gw, tw;
    if (to_arena(f, g, fr->as_given ? NULL : base)) return -1;
    int32_t root;
    if (fr->as_given) {
        /* the key as given: its empty elements removed (one pass) */
        int32_t *out = NULL, nout = 0, capout = 0;
        int e = rewrite(f, fr, 0, 1, 1, none, 0, &out, &nout, &capout);
        if (e == -2 || (!e && !nout)) { free(out); rec[R_STATUS] = ST_DEFER; return 0; }
        if (e) { free(out); return -1; }
        root = out[0];
        free(out);
    } else {
        root = flatten_key(f, fr, none);
        if (root == -2 || root == -3) { rec[R_STATUS] = ST_DEFER; return 0; }
        if (root < 0) return -1;
    }
    if (flat_spans(f, root, fr->with_root, &h->gs, &h->capgs, &ngs, &h->c, &h->capc, &gw)) return -1;
    rec[R_GOLD] = ngs;
    if (!t) return 0;
    if (to_arena(f, t, NULL)) return -1;
    int32_t *out = NULL, nout = 0, capout = 0;
    int e = rewrite(f, fr, 0, 1, 1, none, 0, &out, &nout, &capout);
    if (e == -2) { free(out); rec[R_STATUS] = ST_DEFER; return 0; }
    if (e) { free(out); return -1; }
    if (!nout) { free(out); return 0; }                  /* nothing but empty elements: nothing proposed */
    root = out[0];
    free(out);
    if (flat_spans(f, root, fr->with_root, &h->ts, &h->capts, &nts, &h->d, &h->capd, &tw)) return -1;
    /* the words (empty elements removed) must be the key's */
    if (gw != tw) { rec[R_STATUS] = ST_DEFER; return 0; }
    for (int32_t i = 0; i < gw; i++) {
        Str a = g->word[h->c[i]], b = t->word[h->d[i]];
        if (a.n != b.n || memcmp(a.p, b.p, (size_t)a.n)) { rec[R_STATUS] = ST_DEFER; return 0; }
    }
    if (too_big(ngs, nts)) { rec[R_STATUS] = ST_DEFER; return 0; }
    rec[R_TEST] = nts;
    int32_t i = 0, j = 0, m = 0;
    while (i < ngs && j < nts) {
        int c = span_cmp(&h->gs[i], &h->ts[j]);
        if (c == 0) { m++; i++; j++; } else if (c < 0) i++; else j++;
    }
    rec[R_MATCHED] = m;
    rec[R_CROSSING] = crossings(h->ts, nts, h->gs, ngs);   /* key constituents violated */
    return 0;
}

/* Score line pairs under `scheme` into rec (REC int32 each), from the state {line, gold offset,
 * test offset} to `lines`. A line that brings a label the tables do not cover yet (the tables are
 * for labels 0..nlabels-1) stops the call with the state at that line: its labels are interned,
 * the caller extends the tables and calls again. Returns the lines done so far, -1 memory. */
long sk_score(void *hp, int scheme, const char *gold, long glen, const char *test, long tlen, long lines,
              int64_t *state, int32_t nlabels,
              const int32_t *flags, const int32_t *base, const int32_t *hoff, const int32_t *hprog,
              const int32_t *cut, const int32_t *eq, int32_t neq, int32_t labeled,
              const int32_t *rules, int32_t nrules, const unsigned char *pat, const unsigned char *patword,
              int32_t empty_rel, int32_t root_rel, const int32_t *frules, const int32_t *fpats, int32_t nfrules,
              int32_t flat_opts, int32_t none, int32_t *rec) {
    Handle *h = hp;
    Heads hd = { hoff, hprog, flags, base };
    Evalb ev = { flags, cut, eq, neq, labeled };
    Relations rl = { rules, nrules, nlabels, pat, patword, empty_rel, root_rel };
    FlatRules fr = { frules, fpats, nfrules, flat_opts & 1, (flat_opts & 2) != 0 };
    if (scheme == SCHEME_FLAT && !h->flat && !(h->flat = calloc(1, sizeof(Flat)))) return -1;
    const char *gp = gold + state[1], *ge = gold + glen, *tp = test + state[2], *te = test + tlen;
    init_classes();
    for (long i = state[0]; i < lines; i++) {
        int32_t *r = rec + REC * i;
        memset(r, 0, REC * sizeof(int32_t));
        const char *gl = line_end(gp, ge), *tl = line_end(tp, te);
        int a = read_tree(&h->g, gp, gl, &h->labels);
        int b = read_tree(&h->t, tp, tl, &h->labels);
        if (a < 0 || b < 0) return -1;
        if (h->labels.n > nlabels) {
            state[0] = i; state[1] = gp - gold; state[2] = tp - test;
            return i;
        }
        gp = gl < ge ? gl + 1 : ge;
        tp = tl < te ? tl + 1 : te;
        if (a != 0 || b == 1) { r[R_STATUS] = ST_DEFER; continue; }
        const Tree *t = b == 2 ? NULL : &h->t;
        if (!t) r[R_STATUS] = ST_NOPARSE;
        int err = scheme == SCHEME_EVALB ? score_evalb(h, &h->g, t, &ev, r)
                : scheme == SCHEME_MPH ? score_mph(h, &h->g, t, &hd, r)
                : scheme == SCHEME_PARSEVAL ? score_parseval(h, &h->g, t, flags, base, r)
                : scheme == SCHEME_FLAT ? score_flat(h, h->flat, &h->g, t, &fr, base, none, r)
                : score_deps(h, &h->g, t, &hd, &rl, r);
        if (err) return -1;
    }
    state[0] = lines; state[1] = gp - gold; state[2] = tp - test;
    return lines;
}

/* out[0]: the newlines of p[0..n), out[1]: 1 when a byte is not ASCII (the file is then checked as
 * UTF-8 in Python). One pass over a mapped file instead of Python reading it block by block. */
void sk_scan(const char *p, long n, int64_t *out) {
    int64_t lines = 0;
    uint64_t high = 0;
    long i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        high |= w;
        uint64_t x = w ^ 0x0A0A0A0A0A0A0A0AULL;           /* a zero byte where a newline was */
        uint64_t y = (x & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL;   /* no carry between bytes */
        y = ~(y | x | 0x7F7F7F7F7F7F7F7FULL);             /* 0x80 exactly at the zero bytes */
        lines += (int64_t)(((y >> 7) * 0x0101010101010101ULL) >> 56);   /* the 0x80s, summed */
    }
    for (; i < n; i++) { high |= (unsigned char)p[i]; lines += p[i] == '\n'; }
    out[0] = lines;
    out[1] = (high & 0x8080808080808080ULL) != 0;
}

/* The offset just past the n-th newline of p[0..len) (len when it has fewer): where line n starts. */
long sk_skip_lines(const char *p, long len, long n) {
    const char *q = p, *e = p + len;
    for (long i = 0; i < n; i++) {
        const char *r = memchr(q, '\n', (size_t)(e - q));
        if (!r) return len;
        q = r + 1;
    }
    return q - p;
}

/* Corpus sums of the records of decided pairs (status OK or no parse), as BracketAccumulator adds
 * them: sentences, no parse, gold, test, matched, crossing, complete, no crossing, two or fewer;
 * out[9..17] the same over the typed fields (deps). Returns how many pairs were deferred. */
long sk_totals(const int32_t *rec, long n, int64_t *out) {
    long deferred = 0;
    memset(out, 0, 18 * sizeof(int64_t));
    for (long i = 0; i < n; i++) {
        const int32_t *r = rec + REC * i;
        if (r[R_STATUS] == ST_DEFER) { deferred++; continue; }
        int parsed = r[R_STATUS] == ST_OK;
        for (int typed = 0; typed < 2; typed++) {
            int64_t *o = out + 9 * typed;
            int32_t g = r[typed ? R_TGOLD : R_GOLD], t = r[typed ? R_TTEST : R_TEST];
            int32_t m = r[typed ? R_TMATCHED : R_MATCHED], x = typed ? 0 : r[R_CROSSING];
            o[0]++; o[1] += !parsed; o[2] += g; o[3] += t; o[4] += m; o[5] += x;
            o[6] += parsed && g == t && t == m; o[7] += x == 0; o[8] += x <= 2;
        }
    }
    return deferred;
}

void sk_free(void *hp) {
    Handle *h = hp;
    if (!h) return;
    free(h->labels.text); free(h->labels.off); free(h->labels.len); free(h->labels.slot);
    free(h->forms.text); free(h->forms.off); free(h->forms.len); free(h->forms.slot);
    free_tree(&h->g); free_tree(&h->t); free_tree(&h->g2); free_tree(&h->t2); free_tree(&h->g3); free_tree(&h->t3);
    free(h->keep); free(h->a); free(h->b); free(h->c); free(h->d); free(h->e); free(h->f);
    if (h->flat) {
        Flat *f = h->flat;
        free(f->node); free(f->kid); free(f->ser[0]); free(f->ser[1]); free(f->stack); free(f->dp);
        free(f->scr); free(f->abuf); free(f->nb);
        free(f);
    }
    free(h->w.holder); free(h->w.kind); free(h->w.er); free(h->w.vb); free(h->w.st);
    free(h->gs); free(h->ts); free(h->sc.cat); free(h->sc.pre);
    free(h);
}
