/* cupti_records.c - storing, joining and naming CUPTI activity records. */
#include "cupti_records.h"

#include "cb_common.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CB_ACT_KERNEL, CB_ACT_MEMCPY, CB_ACT_MEMSET };

/* One GPU activity, reduced to what the join needs. Buffers go back to
 * CUPTI's allocator after each callback, so nothing may point into them. */
typedef struct cb_gpu_activity {
    uint64_t start, end; /* ns, CUPTI's clock                                  */
    uint32_t corr;       /* correlationId of the API call that enqueued it    */
    uint32_t rt_corr;    /* memcpy: runtimeCorrelationId; 0 otherwise          */
    int32_t name;        /* kernels: index into names[]; -1 otherwise          */
    uint8_t kind;        /* CB_ACT_*                                           */
    uint8_t src_kind, dst_kind;
} cb_gpu_activity;

typedef struct cb_correlation {
    uint32_t corr;
    uint64_t ext;
} cb_correlation;

#define CB_NAME_LEN 128

/* A kernel name, demangled once. CUPTI shares one name string among all
 * records of a kernel, so the pointer is a cheap first key. */
typedef struct cb_kernel_name {
    const char *raw;
    char text[CB_NAME_LEN];
} cb_kernel_name;

struct cb_cupti_records {
    cb_gpu_activity *acts;
    size_t n_acts, cap_acts;
    cb_correlation *corrs;
    size_t n_corrs, cap_corrs;
    cb_kernel_name *names;
    size_t n_names, cap_names;
    long lost;
    int markers;
};

cb_cupti_records *cb_cupti_records_new(void)
{
    return calloc(1, sizeof(cb_cupti_records));
}

void cb_cupti_records_free(cb_cupti_records *r)
{
    if (!r) return;
    free(r->acts);
    free(r->corrs);
    free(r->names);
    free(r);
}

void cb_cupti_records_clear(cb_cupti_records *r)
{
    /* Keep the allocations (the next point needs about as much) and the
     * names (kernels repeat from point to point). */
    r->n_acts = 0;
    r->n_corrs = 0;
    r->lost = 0;
    r->markers = 0;
}

long cb_cupti_records_lost(const cb_cupti_records *r)
{
    return r->lost;
}

/* Make room for one more element of `size` bytes; false when out of memory. */
static bool cb_grow(void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return true;
    size_t new_cap = *cap ? *cap * 2 : 1024;
    void *p = realloc(*arr, new_cap * size);
    if (!p) return false;
    *arr = p;
    *cap = new_cap;
    return true;
}

static int32_t cb_intern_name(cb_cupti_records *r, const char *raw)
{
    if (!raw) raw = "?";
    for (size_t i = 0; i < r->n_names; i++)
        if (r->names[i].raw == raw) return (int32_t)i;
    char text[CB_NAME_LEN];
    cb_cupti_demangle(raw, text, sizeof text);
    for (size_t i = 0; i < r->n_names; i++)
        if (strcmp(r->names[i].text, text) == 0) return (int32_t)i;
    if (!cb_grow((void **)&r->names, &r->cap_names, r->n_names, sizeof *r->names)) return -1;
    cb_kernel_name *n = &r->names[r->n_names];
    n->raw = raw;
    memcpy(n->text, text, sizeof text);
    return (int32_t)r->n_names++;
}

static void cb_add_activity(cb_cupti_records *r, const cb_gpu_activity *a)
{
    if (!cb_grow((void **)&r->acts, &r->cap_acts, r->n_acts, sizeof *r->acts)) {
        r->lost++;
        return;
    }
    r->acts[r->n_acts++] = *a;
}

void cb_cupti_records_add(cb_cupti_records *r, const CUpti_Activity *record)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
        cb_gpu_activity a = {
            .start = k->start, .end = k->end, .corr = k->correlationId, .kind = CB_ACT_KERNEL};
        a.name = cb_intern_name(r, k->name);
        cb_add_activity(r, &a);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)record;
        cb_gpu_activity a = {.start = m->start,
                             .end = m->end,
                             .corr = m->correlationId,
                             .rt_corr = m->runtimeCorrelationId,
                             .name = -1,
                             .kind = CB_ACT_MEMCPY,
                             .src_kind = m->srcKind,
                             .dst_kind = m->dstKind};
        cb_add_activity(r, &a);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
        cb_gpu_activity a = {.start = m->start,
                             .end = m->end,
                             .corr = m->correlationId,
                             .name = -1,
                             .kind = CB_ACT_MEMSET};
        cb_add_activity(r, &a);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *e =
            (const CUpti_ActivityExternalCorrelation *)record;
        /* CUSTOM0 is ours; other kinds belong to other layers (OpenACC...). */
        if (e->externalKind != CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) break;
        if (!cb_grow((void **)&r->corrs, &r->cap_corrs, r->n_corrs, sizeof *r->corrs)) {
            r->lost++;
            break;
        }
        r->corrs[r->n_corrs++] = (cb_correlation){.corr = e->correlationId, .ext = e->externalId};
        break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
        const CUpti_ActivityMarker2 *m = (const CUpti_ActivityMarker2 *)record;
        if (m->flags &
            (CUPTI_ACTIVITY_FLAG_MARKER_START | CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS))
            r->markers++;
        break;
    }
    default: /* RUNTIME, DRIVER and anything else: only needed by CUPTI */
        break;
    }
}

int cb_cupti_records_add_buffer(cb_cupti_records *r, uint8_t *buffer, size_t valid_bytes,
                                cb_cupti_next_record_fn next)
{
    int n = 0;
    CUpti_Activity *rec = NULL;
    if (!buffer || valid_bytes == 0) return 0;
    for (;;) {
        CUptiResult st = next(buffer, valid_bytes, &rec);
        if (st == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
        if (st != CUPTI_SUCCESS) {
            /* The rest of the buffer cannot be read: how many records it
             * held is unknown, but the point must not pass as complete. */
            r->lost++;
            break;
        }
        cb_cupti_records_add(r, rec);
        n++;
    }
    return n;
}

static int cb_corr_cmp(const void *a, const void *b)
{
    const cb_correlation *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return (x->ext > y->ext) - (x->ext < y->ext);
}

static int cmp_corr_key(const void *corr, const void *c)
{
    uint32_t a = *(const uint32_t *)corr, b = ((const cb_correlation *)c)->corr;
    return (a > b) - (a < b);
}

/* The external id of correlation id `corr` (the first recorded, the lowest
 * of several); false when none was recorded. */
static bool cb_lookup_ext(const cb_correlation *sorted, size_t n, uint32_t corr, uint64_t *ext)
{
    size_t lo = cb_lower_bound(&corr, sorted, n, sizeof *sorted, cmp_corr_key);
    if (lo < n && sorted[lo].corr == corr) {
        *ext = sorted[lo].ext;
        return true;
    }
    return false;
}

/* Merge a memory kind into the point's summary: 0 none yet, -1 mixed. */
static void cb_merge_kind(int *summary, int kind)
{
    if (*summary == 0)
        *summary = kind;
    else if (*summary != kind)
        *summary = -1;
}

/* The kernel not yet listed that ran first; SIZE_MAX when none is left. */
static size_t earliest_unlisted(const cb_cupti_records *r, const uint64_t *first_start,
                                const bool *done)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < r->n_names; i++)
        if (!done[i] && first_start[i] != UINT64_MAX &&
            (best == SIZE_MAX || first_start[i] < first_start[best]))
            best = i;
    return best;
}

/* Append "|name" (or "name" first) to buf; when it does not fit, end the
 * list with "..." and return false. */
static bool append_kernel_name(char *buf, size_t len, size_t *used, const char *name)
{
    size_t u = *used;
    size_t need = strlen(name) + (u ? 1 : 0);
    if (u + need + 4 >= len) { /* room for "|..." and the NUL */
        if (u + 4 < len) memcpy(buf + u, u ? "|..." : "...", u ? 5 : 4);
        return false;
    }
    if (u) buf[u++] = '|';
    memcpy(buf + u, name, strlen(name) + 1);
    *used = u + strlen(name);
    return true;
}

/* Kernel names of the point in order of first execution, '|'-separated;
 * ends with "..." when they do not fit. */
static void cb_format_kernels(const cb_cupti_records *r, const uint64_t *first_start, char *buf,
                              size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    bool *done = calloc(r->n_names ? r->n_names : 1, sizeof *done);
    if (!done) return;
    for (;;) {
        size_t best = earliest_unlisted(r, first_start, done);
        if (best == SIZE_MAX) break;
        done[best] = true;
        if (!append_kernel_name(buf, len, &used, r->names[best].text)) break;
    }
    free(done);
}

/* The work arrays of one join. */
typedef struct cb_join_scratch {
    uint64_t *sum_ns;       /* per sample: GPU ns of its timed records      */
    cb_correlation *sorted; /* the correlations, sorted for lookup          */
    uint64_t *first_start;  /* per kernel name: its earliest start, or MAX  */
} cb_join_scratch;

static void join_scratch_free(cb_join_scratch *js)
{
    free(js->sum_ns);
    free(js->sorted);
    free(js->first_start);
}

/* Allocate the point's per-sample arrays and the scratch; false (all freed)
 * when out of memory. */
static bool join_alloc(const cb_cupti_records *r, size_t ns, cb_cupti_point *out,
                       cb_join_scratch *js)
{
    js->sum_ns = calloc(ns, sizeof *js->sum_ns);
    out->gpu_s = calloc(ns, sizeof *out->gpu_s);
    out->records = calloc(ns, sizeof *out->records);
    js->sorted = malloc((r->n_corrs ? r->n_corrs : 1) * sizeof *js->sorted);
    js->first_start = malloc((r->n_names ? r->n_names : 1) * sizeof *js->first_start);
    if (!js->sum_ns || !out->gpu_s || !out->records || !js->sorted || !js->first_start) {
        join_scratch_free(js);
        cb_cupti_point_free(out);
        return false;
    }
    for (size_t i = 0; i < r->n_names; i++)
        js->first_start[i] = UINT64_MAX;
    if (r->n_corrs) memcpy(js->sorted, r->corrs, r->n_corrs * sizeof *js->sorted);
    qsort(js->sorted, r->n_corrs, sizeof *js->sorted, cb_corr_cmp);
    return true;
}

/* The sample an activity belongs to, through its external id; false when
 * it has none or one outside [first_id, first_id + n_samples). */
static bool sample_of(const cb_cupti_records *r, const cb_correlation *sorted,
                      const cb_gpu_activity *a, uint64_t first_id, int n_samples, size_t *s)
{
    uint64_t ext;
    /* A memcpy carries the driver call's correlation id and the runtime
     * call's; the external id may have been recorded for either. */
    if (!cb_lookup_ext(sorted, r->n_corrs, a->corr, &ext) &&
        !(a->rt_corr && cb_lookup_ext(sorted, r->n_corrs, a->rt_corr, &ext)))
        return false;
    if (ext < first_id || ext - first_id >= (uint64_t)n_samples) return false;
    *s = (size_t)(ext - first_id);
    return true;
}

/* Count an activity by its kind into the point's summary. */
static void count_activity(const cb_gpu_activity *a, cb_cupti_point *out, uint64_t *first_start)
{
    switch (a->kind) {
    case CB_ACT_KERNEL:
        out->kernel_count++;
        if (a->name >= 0 && a->start < first_start[a->name]) first_start[a->name] = a->start;
        break;
    case CB_ACT_MEMCPY:
        out->memcpy_count++;
        cb_merge_kind(&out->memcpy_src_kind, a->src_kind);
        cb_merge_kind(&out->memcpy_dst_kind, a->dst_kind);
        break;
    default:
        out->memset_count++;
        break;
    }
}

/* Attribute every activity to its sample; the number without timestamps. */
static long attribute_activities(const cb_cupti_records *r, uint64_t first_id, int n_samples,
                                 cb_cupti_point *out, cb_join_scratch *js)
{
    long untimed = 0;
    for (size_t i = 0; i < r->n_acts; i++) {
        const cb_gpu_activity *a = &r->acts[i];
        size_t s;
        if (!sample_of(r, js->sorted, a, first_id, n_samples, &s)) continue;
        out->records[s]++;
        if (a->end < a->start || (a->start == 0 && a->end == 0))
            untimed++;
        else
            js->sum_ns[s] += a->end - a->start;
        count_activity(a, out, js->first_start);
    }
    return untimed;
}

/* The point is complete only when no record was lost and all were timed. */
static cb_status join_verdict(const cb_cupti_point *out, long dropped, long lost, long untimed,
                              cb_msg *why)
{
    if (out->dropped > 0) {
        cb_msg_set(why,
                   "CUPTI lost %ld activity records (%ld dropped for lack of buffer space, %ld "
                   "unreadable or not stored): the CUPTI times of this point are incomplete",
                   out->dropped, dropped, lost);
        return CB_FAIL;
    }
    if (untimed > 0) {
        cb_msg_set(why,
                   "CUPTI gave %ld records without timestamps (device out of memory for "
                   "tracing, or work still running at the flush)",
                   untimed);
        return CB_FAIL;
    }
    return CB_OK;
}

cb_status cb_cupti_records_join(const cb_cupti_records *r, uint64_t first_id, int n_samples,
                                long dropped, cb_cupti_point *out, cb_msg *why)
{
    memset(out, 0, sizeof *out);
    out->dropped = dropped + r->lost;
    if (n_samples < 0) n_samples = 0;
    out->n_samples = n_samples;
    out->nvtx_ranges = r->markers;
    cb_join_scratch js = {0};
    if (!join_alloc(r, n_samples ? (size_t)n_samples : 1, out, &js)) {
        cb_msg_set(why, "out of memory joining CUPTI records");
        return CB_FAIL;
    }
    long untimed = attribute_activities(r, first_id, n_samples, out, &js);
    for (int s = 0; s < n_samples; s++)
        out->gpu_s[s] = out->records[s] ? (double)js.sum_ns[s] * 1e-9 : NAN;
    cb_format_kernels(r, js.first_start, out->kernels, sizeof out->kernels);
    join_scratch_free(&js);
    return join_verdict(out, dropped, r->lost, untimed, why);
}

void cb_cupti_point_free(cb_cupti_point *p)
{
    if (!p) return;
    free(p->gpu_s);
    free(p->records);
    p->gpu_s = NULL;
    p->records = NULL;
    p->n_samples = 0;
}

/* ---- demangling ---------------------------------------------------------- */

typedef struct cb_dm {
    char *out;
    size_t len, used;
    bool full;
} cb_dm;

static void cb_dm_append(cb_dm *d, const char *s, size_t n)
{
    if (d->used + n >= d->len) {
        n = d->len - 1 - d->used;
        d->full = true;
    }
    memcpy(d->out + d->used, s, n);
    d->used += n;
    d->out[d->used] = '\0';
}

/* <source-name> ::= <length> <identifier>. Returns the end, NULL if bad. */
static const char *cb_dm_source_name(const char *s, const char **id, size_t *id_len)
{
    size_t n = 0;
    if (!isdigit((unsigned char)*s)) return NULL;
    while (isdigit((unsigned char)*s)) {
        n = n * 10 + (size_t)(*s++ - '0');
        if (n > 4096) return NULL;
    }
    if (n == 0 || strnlen(s, n) < n) return NULL;
    *id = s;
    *id_len = n;
    return s + n;
}

/* Skip to and past the next '_' (substitutions S<seq>_, template params T<n>_,
 * vector types Dv<n>_, DF<n>_). */
static const char *cb_dm_skip_to_underscore(const char *s)
{
    const char *u = strchr(s, '_');
    return u ? u + 1 : NULL;
}

/* Skip a literal inside template arguments, at its 'L': an encoding
 * L _Z <encoding> E opens a level that its 'E' closes; L <type> <value> E
 * is skipped to its 'E'. */
static const char *cb_dm_skip_literal(const char *s, int *depth)
{
    if (s[1] == '_' && s[2] == 'Z') {
        (*depth)++;
        return s + 3;
    }
    const char *e = strchr(s, 'E');
    return e ? e + 1 : NULL;
}

/* Skip a substitution at its 'S': S_, S<seq>_ (digits or capitals), or a
 * two-letter abbreviation (St, Sa, Ss, ...). */
static const char *cb_dm_skip_substitution(const char *s)
{
    if (s[1] == '\0') return NULL;
    if (s[1] == '_') return s + 2;
    if (isdigit((unsigned char)s[1]) || isupper((unsigned char)s[1]))
        return cb_dm_skip_to_underscore(s + 1);
    return s + 2;
}

/* Skip one token of template arguments other than an 'E'; NULL if bad.
 * I, N, X and J open a level that an 'E' closes. */
static const char *cb_dm_skip_arg_token(const char *s, int *depth)
{
    char c = *s;
    if (c == 'I' || c == 'N' || c == 'X' || c == 'J') {
        (*depth)++;
        return s + 1;
    }
    if (c == 'L') return cb_dm_skip_literal(s, depth);
    if (isdigit((unsigned char)c)) {
        const char *id;
        size_t n;
        return cb_dm_source_name(s, &id, &n);
    }
    if (c == 'S') return cb_dm_skip_substitution(s);
    if (c == 'T') return cb_dm_skip_to_underscore(s + 1);
    if (c == 'D' && (s[1] == 'v' || s[1] == 'F')) return cb_dm_skip_to_underscore(s + 2);
    return s + 1;
}

/* Skip <template-args> ::= I <template-arg>+ E, starting at the 'I'. Only
 * needs to find the matching 'E': identifiers are skipped by their length,
 * literals L...E to their end, and everything else is one character. */
static const char *cb_dm_skip_template_args(const char *s)
{
    int depth = 0;
    while (s && *s) {
        if (*s != 'E') {
            s = cb_dm_skip_arg_token(s, &depth);
            continue;
        }
        s++;
        if (--depth == 0) return s;
    }
    return NULL;
}

/* <unscoped-name> [<template-args>]: St for std::, then a source name. */
static bool cb_dm_unscoped_name(const char *s, cb_dm *d)
{
    const char *id;
    size_t n;
    if (s[0] == 'S' && s[1] == 't') {
        cb_dm_append(d, "std::", 5);
        s += 2;
    }
    if (!cb_dm_source_name(s, &id, &n)) return false;
    cb_dm_append(d, id, n);
    return true;
}

/* One component of a nested name: appended when it is part of the name,
 * skipped when not (template arguments, substitutions, ABI tags). Returns
 * the end; NULL for what this reader does not understand (constructors,
 * lambdas, operators: not kernels). */
static const char *cb_dm_nested_component(const char *s, cb_dm *d, bool *any)
{
    const char *id;
    size_t n;
    if (*s == 'I') return cb_dm_skip_template_args(s);
    if (s[0] == 'S' && s[1] == 't') {
        cb_dm_append(d, *any ? "::std" : "std", *any ? 5 : 3);
        *any = true;
        return s + 2;
    }
    if (*s == 'S') /* a substitution of an earlier prefix: unknown text */
        return s[1] == '_' ? s + 2 : cb_dm_skip_to_underscore(s + 1);
    if (*s == 'B') return cb_dm_source_name(s + 1, &id, &n); /* ABI tag: not the name */
    if (*s == 'L') return s + 1;
    if (!isdigit((unsigned char)*s)) return NULL;
    s = cb_dm_source_name(s, &id, &n);
    if (!s) return NULL;
    if (*any) cb_dm_append(d, "::", 2);
    cb_dm_append(d, id, n);
    *any = true;
    return s;
}

/* The qualified name of an Itanium <encoding> (after "_Z"); false when it is
 * not something this reader understands. */
static bool cb_dm_encoding(const char *s, cb_dm *d)
{
    if (*s == 'L') s++; /* internal linkage (static function) */
    if (*s != 'N') return cb_dm_unscoped_name(s, d);
    s++; /* N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E */
    while (*s == 'r' || *s == 'V' || *s == 'K')
        s++;
    if (*s == 'R' || *s == 'O') s++;
    bool any = false;
    while (*s && *s != 'E') {
        s = cb_dm_nested_component(s, d, &any);
        if (!s) return false;
    }
    return *s == 'E' && any;
}

size_t cb_cupti_demangle(const char *name, char *out, size_t len)
{
    if (!out || len == 0) return 0;
    out[0] = '\0';
    if (!name) return 0;
    cb_dm d = {.out = out, .len = len};
    if (strncmp(name, "_Z", 2) == 0 && cb_dm_encoding(name + 2, &d)) return d.used;
    d.used = 0;
    out[0] = '\0';
    cb_dm_append(&d, name, strlen(name));
    return d.used;
}
