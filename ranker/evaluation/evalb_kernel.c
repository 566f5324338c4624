/* EVALB's per-line counts over two whole files, for ranker.evaluation.evalb_native.
 *
 * Written for ranker from EVALB's documented semantics (the rules listed in evalb.py and
 * evalb_line.py); the reference stays ranker/evaluation/evalb.py, and tests compare the two.
 * Why C: a Python process that imports numpy already takes longer than evalb.c needs for a
 * whole file, so the fast path of `ranker evalb` is this file, compiled once and cached
 * (evalb_native.py), called through ctypes.
 *
 * One record of REC int32 per line pair: status, length, words, gold, test, matched, crossing,
 * correct tags, defer, and four fields for an error sentence's message. defer is DEFER_REFERENCE
 * when this code does not decide a line alone and the Python reference must: text EVALB's
 * read_line reports an error on (the reference refuses it with file:line:column), a length
 * difference when QUOTE_LABEL is set (the reference re-inserts quotes), and a pair so large that
 * EVALB's quadratic loops would take long (the reference's are not quadratic). An error sentence
 * is decided here and says which message it prints: DEFER_LENGTH (a, b = the two word counts) or
 * DEFER_WORDS (a, b = offset and length of the gold word in its text, c, d = the test word's).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_OK = 0, ST_ERROR = 1, ST_SKIP = 2 };
enum { R_STATUS, R_LENGTH, R_WORDS, R_GOLD, R_TEST, R_MATCHED, R_CROSSING, R_CORRECT, R_DEFER,
       R_A, R_B, R_C, R_D, REC };
enum { DEFER_NONE = 0, DEFER_REFERENCE = 1, DEFER_LENGTH = 2, DEFER_WORDS = 3 };
#define QUADRATIC_LIMIT (1L << 22)   /* gold x test brackets above which a pair is deferred */

typedef struct { const char *p; int32_t n; } Str;
typedef struct { Str word, tag; } Term;
typedef struct { int32_t start, end, res; Str label; } Brk;

typedef struct {
    int labeled;
    int n_delete, n_length, n_eq_label, n_eq_word, has_quote;
    Str *delete_, *length, *eq_label, *eq_word;   /* eq lists hold pairs: 2 entries each */
} Params;

typedef struct {
    Term *term; int32_t nterm, capterm;
    Brk *brk; int32_t nbrk, capbrk;
    int32_t *stack; int32_t capstack;
    int32_t length;
} Side;

static int is_ws(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
static int is_terminator(unsigned char c) { return is_ws(c) || c == '(' || c == ')'; }

static int str_eq(Str a, Str b) { return a.n == b.n && memcmp(a.p, b.p, (size_t)a.n) == 0; }

static int in_list(Str s, const Str *list, int n) {
    for (int i = 0; i < n; i++)
        if (str_eq(s, list[i])) return 1;
    return 0;
}

/* EVALB's label_comp / word_comp: equal, or a declared pair either way round. */
static int pair_eq(Str a, Str b, const Str *pairs, int n) {
    if (str_eq(a, b)) return 1;
    for (int i = 0; i < n; i++)
        if ((str_eq(a, pairs[2 * i]) && str_eq(b, pairs[2 * i + 1])) ||
            (str_eq(a, pairs[2 * i + 1]) && str_eq(b, pairs[2 * i])))
            return 1;
    return 0;
}

static int grow(void **buf, int32_t *cap, int32_t need, size_t size) {
    if (need <= *cap) return 0;
    int32_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *nb = realloc(*buf, (size_t)c * size);
    if (!nb) return -1;
    *buf = nb;
    *cap = c;
    return 0;
}

/* read_line of evalb.c over [p, end): 0 when read, 1 where EVALB reports an error, -1 out of memory. */
static int read_side(Side *s, const char *p, const char *end, const Params *pr) {
    int32_t sp = 0;
    s->nterm = s->nbrk = s->length = 0;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (is_ws(c)) { p++; continue; }
        if (c == '(') {
            Str label;
            label.p = ++p;
            while (p < end && !is_terminator((unsigned char)*p)) p++;
            label.n = (int32_t)(p - label.p);
            const char *q = p;
            if (q < end && is_ws((unsigned char)*q)) {
                while (q < end && is_ws((unsigned char)*q)) q++;
                Str word;
                word.p = q;
                while (q < end && !is_terminator((unsigned char)*q)) q++;
                word.n = (int32_t)(q - word.p);
                if (q < end && *q == ')') {              /* a terminal */
                    if (!in_list(label, pr->length, pr->n_length)) s->length++;
                    p = q + 1;
                    if (in_list(label, pr->delete_, pr->n_delete)) continue;
                    if (grow((void **)&s->term, &s->capterm, s->nterm + 1, sizeof(Term))) return -1;
                    s->term[s->nterm].word = word;
                    s->term[s->nterm].tag = label;
                    s->nterm++;
                    continue;
                }
                if (!(q < end && *q == '(')) return 1;     /* more than two elements */
            }
            if (grow((void **)&s->brk, &s->capbrk, s->nbrk + 1, sizeof(Brk))) return -1;
            if (grow((void **)&s->stack, &s->capstack, sp + 1, sizeof(int32_t))) return -1;
            s->brk[s->nbrk].start = s->nterm;
            s->brk[s->nbrk].end = -1;
            s->brk[s->nbrk].label = label;
            s->stack[sp++] = s->nbrk++;
        } else if (c == ')') {
            if (sp == 0) return 1;                       /* too many close brackets */
            s->brk[s->stack[--sp]].end = s->nterm;
            p++;
        } else {
            return 1;                                    /* a word outside a terminal */
        }
    }
    return sp != 0;                                      /* too many open brackets */
}

/* massage_data: drop empty brackets, cut labels at '-' or '=', drop DELETE_LABEL ones; count the rest. */
static int32_t massage(Side *s, const Params *pr) {
    int32_t kept = 0;
    for (int32_t i = 0; i < s->nbrk; i++) {
        Brk *b = &s->brk[i];
        b->res = 0;
        if (b->start == b->end) { b->res = 5; continue; }
        for (int32_t k = 0; k < b->label.n; k++)
            if (b->label.p[k] == '-' || b->label.p[k] == '=') { b->label.n = k; break; }
        for (int d = 0; d < pr->n_delete; d++)
            if (pair_eq(b->label, pr->delete_[d], pr->eq_label, pr->n_eq_label)) { b->res = 5; break; }
        kept += b->res != 5;
    }
    return kept;
}

/* calc_result for one pair whose sides were read from texts starting at gbase and tbase. */
static void score_pair(Side *g, Side *t, const Params *pr, int32_t *rec, const char *gbase,
                       const char *tbase) {
    memset(rec, 0, REC * sizeof(int32_t));
    rec[R_LENGTH] = g->length;
    if (t->nterm == 0) { rec[R_STATUS] = ST_SKIP; return; }
    if (g->nterm != t->nterm) {
        if (pr->has_quote) { rec[R_DEFER] = DEFER_REFERENCE; return; }   /* fix_quote's work */
        rec[R_STATUS] = ST_ERROR;
        rec[R_DEFER] = DEFER_LENGTH;
        rec[R_A] = g->nterm;
        rec[R_B] = t->nterm;
        return;
    }
    for (int32_t i = 0; i < g->nterm; i++)
        if (!pair_eq(g->term[i].word, t->term[i].word, pr->eq_word, pr->n_eq_word)) {
            rec[R_STATUS] = ST_ERROR;
            rec[R_DEFER] = DEFER_WORDS;
            rec[R_A] = (int32_t)(g->term[i].word.p - gbase);
            rec[R_B] = g->term[i].word.n;
            rec[R_C] = (int32_t)(t->term[i].word.p - tbase);
            rec[R_D] = t->term[i].word.n;
            return;
        }
    if ((long)g->nbrk * (long)t->nbrk > QUADRATIC_LIMIT) { rec[R_DEFER] = DEFER_REFERENCE; return; }
    int32_t kg = massage(g, pr), kt = massage(t, pr);
    int32_t match = 0, crossing = 0, correct = 0;
    for (int32_t i = 0; i < g->nbrk; i++) {
        Brk *a = &g->brk[i];
        if (a->res == 5) continue;
        for (int32_t j = 0; j < t->nbrk; j++) {
            Brk *b = &t->brk[j];
            if (b->res == 0 && a->start == b->start && a->end == b->end &&
                (!pr->labeled || pair_eq(a->label, b->label, pr->eq_label, pr->n_eq_label))) {
                b->res = 1;
                match++;
                break;
            }
        }
    }
    for (int32_t j = 0; j < t->nbrk; j++) {
        Brk *b = &t->brk[j];
        if (b->res == 5) continue;
        for (int32_t i = 0; i < g->nbrk; i++) {
            Brk *a = &g->brk[i];
            if (a->res != 5 &&
                ((a->start < b->start && a->end > b->start && a->end < b->end) ||
                 (a->start > b->start && a->start < b->end && a->end > b->end))) {
                crossing++;
                break;
            }
        }
    }
    for (int32_t i = 0; i < g->nterm; i++)
        correct += pair_eq(g->term[i].tag, t->term[i].tag, pr->eq_label, pr->n_eq_label);
    rec[R_STATUS] = ST_OK;
    rec[R_WORDS] = g->nterm;
    rec[R_GOLD] = kg;
    rec[R_TEST] = kt;
    rec[R_MATCHED] = match;
    rec[R_CROSSING] = crossing;
    rec[R_CORRECT] = correct;
}

/* Split a NUL-separated list of `n` strings into Str entries. */
static Str *split_list(const char *blob, int n) {
    Str *out = calloc((size_t)(n > 0 ? n : 1), sizeof(Str));
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        out[i].p = blob;
        out[i].n = (int32_t)strlen(blob);
        blob += out[i].n + 1;
    }
    return out;
}

/* Score every line pair; `counts` = labeled, #delete, #length, #eq_label pairs, #eq_word pairs,
 * has_quote, and `lists` holds those strings in that order, each NUL-terminated. Returns the number
 * of line pairs scored (at most `nlines`), or -1 when memory ran out. */
long evalb_score(const char *gold, long glen, const char *test, long tlen,
                 const int32_t *counts, const char *lists, int32_t *out, long nlines) {
    Params pr;
    pr.labeled = counts[0];
    pr.n_delete = counts[1];
    pr.n_length = counts[2];
    pr.n_eq_label = counts[3];
    pr.n_eq_word = counts[4];
    pr.has_quote = counts[5];
    int total = pr.n_delete + pr.n_length + 2 * pr.n_eq_label + 2 * pr.n_eq_word;
    Str *all = split_list(lists, total);
    if (!all) return -1;
    pr.delete_ = all;
    pr.length = pr.delete_ + pr.n_delete;
    pr.eq_label = pr.length + pr.n_length;
    pr.eq_word = pr.eq_label + 2 * pr.n_eq_label;
    Side g = {0}, t = {0};
    const char *gp = gold, *gend = gold + glen, *tp = test, *tend = test + tlen;
    long line = 0, status = 0;
    while (line < nlines && (gp < gend || tp < tend)) {
        const char *ge = memchr(gp, '\n', (size_t)(gend - gp));
        const char *te = memchr(tp, '\n', (size_t)(tend - tp));
        if (!ge) ge = gend;
        if (!te) te = tend;
        int32_t *rec = out + line * REC;
        int rg = read_side(&g, gp, ge, &pr), rt = read_side(&t, tp, te, &pr);
        if (rg < 0 || rt < 0) { status = -1; break; }
        if (rg || rt) {
            memset(rec, 0, REC * sizeof(int32_t));
            rec[R_DEFER] = DEFER_REFERENCE;
        } else {
            score_pair(&g, &t, &pr, rec, gold, test);
        }
        gp = ge < gend ? ge + 1 : gend;
        tp = te < tend ? te + 1 : tend;
        line++;
    }
    free(all);
    free(g.term); free(g.brk); free(g.stack);
    free(t.term); free(t.brk); free(t.stack);
    return status < 0 ? -1 : line;
}

/* EVALB's per-sentence lines (individual_result's printf) for records [0, n), numbered from
 * first_id; `buf` must hold 160 bytes a line. Returns the number of bytes written. */
long evalb_format(const int32_t *rec, long n, long first_id, char *buf) {
    char *p = buf;
    for (long i = 0; i < n; i++, rec += REC) {
        int32_t gold = rec[R_GOLD], test = rec[R_TEST], m = rec[R_MATCHED], w = rec[R_WORDS];
        p += sprintf(p, "%4ld  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n",
                     first_id + i, rec[R_LENGTH], rec[R_STATUS],
                     gold == 0 ? 0.0 : 100.0 * m / gold, test == 0 ? 0.0 : 100.0 * m / test,
                     m, gold, test, rec[R_CROSSING], w, rec[R_CORRECT],
                     w == 0 ? 0.0 : 100.0 * rec[R_CORRECT] / w);
    }
    return (long)(p - buf);
}

/* individual_result's totals over records [0, n): out[0..11] every sentence, out[12..23] those of
 * length <= cutoff; in the order sentences, errors, skipped, gold, test, matched, complete, words,
 * crossing, no crossing, two or fewer crossings, correct tags. */
void evalb_totals(const int32_t *rec, long n, long cutoff, int64_t *out) {
    memset(out, 0, 24 * sizeof(int64_t));
    for (long i = 0; i < n; i++, rec += REC) {
        for (int block = 0; block < 2; block++) {
            if (block == 1 && rec[R_LENGTH] > cutoff) break;
            int64_t *o = out + 12 * block;
            o[0]++;
            if (rec[R_STATUS] == ST_ERROR) { o[1]++; continue; }
            if (rec[R_STATUS] == ST_SKIP) { o[2]++; continue; }
            o[3] += rec[R_GOLD];
            o[4] += rec[R_TEST];
            o[5] += rec[R_MATCHED];
            o[6] += rec[R_GOLD] == rec[R_TEST] && rec[R_TEST] == rec[R_MATCHED];
            o[7] += rec[R_WORDS];
            o[8] += rec[R_CROSSING];
            o[9] += rec[R_CROSSING] == 0;
            o[10] += rec[R_CROSSING] <= 2;
            o[11] += rec[R_CORRECT];
        }
    }
}
