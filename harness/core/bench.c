/* bench.c - what follows from a descriptor alone: its points' kind and the
 * key figure a point stands for (bench.h). */
#include "bench.h"

#include <string.h>

const char *cb_point_kind_name(cb_point_kind kind)
{
    /* CB_KIND_AUTO, a kind still to be worked out, has no name. */
    static const char *const names[] = {
        [CB_KIND_DEVICE] = "device",           [CB_KIND_HOST_COPY] = "host_copy",
        [CB_KIND_STAGED_COPY] = "staged_copy", [CB_KIND_HOST] = "host",
        [CB_KIND_PYTHON] = "python",           [CB_KIND_MULTI_GPU] = "multi_gpu"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)kind, "");
}

cb_bench_needs cb_bench_needs_of(const cb_bench *b)
{
    cb_bench_needs n = b->needs;
    if (n.from_param) n.from_param(b->param, &n.min_cc, &n.max_cc, &n.feature);
    return n;
}

cb_point_kind cb_bench_kind(const cb_bench *b)
{
    if (b->kind != CB_KIND_AUTO) return b->kind;
    if (b->target == CB_TARGET_HOST) return CB_KIND_HOST;
    if (b->devices > 1) return CB_KIND_MULTI_GPU;
    return b->timer == CB_TIMER_HOST ? CB_KIND_HOST_COPY : CB_KIND_DEVICE;
}

/* Does the point hold `token` ("memory=pinned", len bytes) as one axis? */
static bool point_has(const cb_point *p, const char *token, size_t len)
{
    const char *eq = memchr(token, '=', len);
    if (!eq) return false;
    size_t name_len = (size_t)(eq - token), value_len = len - name_len - 1;
    for (int i = 0; i < p->n_axes; i++)
        if (strlen(p->defs[i].name) == name_len && strncmp(p->defs[i].name, token, name_len) == 0)
            return strlen(p->values[i].text) == value_len &&
                   strncmp(p->values[i].text, eq + 1, value_len) == 0;
    return false;
}

static bool point_matches(const cb_point *p, const char *where)
{
    if (!where) return true;
    for (const char *t = where; *t;) {
        size_t len = strcspn(t, ";");
        if (len && !point_has(p, t, len)) return false;
        t += len + (t[len] == ';');
    }
    return true;
}

const cb_key_figure *cb_bench_key_figure(const cb_bench *b, const cb_point *p)
{
    if (!b->key_figures || !p->expanded) return NULL;
    for (const cb_key_figure *k = b->key_figures; k->name; k++)
        if (point_matches(p, k->where)) return k;
    return NULL;
}
