/* compare_groups.c - the per-benchmark groups of a comparison: counts and
 * geometric means, by sorting the names (n log n, not n x groups). */
#include "compare_geomean.h"

#include <stdlib.h>
#include <string.h>

typedef struct name_ref {
    const char *name;
    int row; /* index into rows, identity order */
} name_ref;

static int cmp_name_ref(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int s = strcmp(x->name, y->name);
    return s ? s : (x->row > y->row) - (x->row < y->row);
}

/* Place each group at the rank of its first row (identity order). */
static bool order_groups(cb_compare_result *out, const cb_compare_group *tmp, const int *first,
                         int g)
{
    int n = out->n_rows;
    out->groups = calloc((size_t)(g ? g : 1), sizeof *out->groups);
    int *rank = malloc((size_t)(n ? n : 1) * sizeof *rank);
    if (!out->groups || !rank) {
        free(rank);
        return false;
    }
    for (int i = 0; i < n; i++)
        rank[i] = -1;
    for (int k = 0; k < g; k++)
        rank[first[k]] = k;
    for (int i = 0; i < n; i++)
        if (rank[i] >= 0) out->groups[out->n_groups++] = tmp[rank[i]];
    free(rank);
    return true;
}

/* The group of refs[s .. e) (one benchmark): counts and geometric mean. */
static cb_compare_group group_of(const cb_compare_result *out, const name_ref *refs, int s, int e,
                                 int *idx, const cb_offsets *ob, const cb_offsets *on,
                                 const cb_compare_opts *o)
{
    cb_compare_group grp = {.benchmark = refs[s].name};
    for (int i = s; i < e; i++) {
        idx[i - s] = refs[i].row;
        grp.counts[out->rows[refs[i].row].verdict]++;
    }
    grp.geomean = cb_geomean_of(out->rows, idx, e - s, ob, on, o);
    return grp;
}

bool cb_compare_groups(cb_compare_result *out, const cb_offsets *ob, const cb_offsets *on,
                       const cb_compare_opts *o, cb_msg *err)
{
    int n = out->n_rows, g = 0;
    size_t m = (size_t)(n ? n : 1);
    name_ref *refs = malloc(m * sizeof *refs);
    int *idx = malloc(m * sizeof *idx), *first = malloc(m * sizeof *first);
    cb_compare_group *tmp = calloc(m, sizeof *tmp);
    bool ok = refs && idx && first && tmp;
    for (int i = 0; ok && i < n; i++)
        refs[i] = (name_ref){out->rows[i].benchmark, i};
    if (ok) qsort(refs, (size_t)n, sizeof *refs, cmp_name_ref);
    for (int s = 0, e = 0; ok && s < n; s = e) {
        while (e < n && strcmp(refs[e].name, refs[s].name) == 0)
            e++;
        tmp[g] = group_of(out, refs, s, e, idx, ob, on, o);
        first[g++] = refs[s].row; /* the smallest row index of the group */
    }
    ok = ok && order_groups(out, tmp, first, g);
    if (!ok) cb_msg_set(err, "out of memory");
    free(refs), free(idx), free(first), free(tmp);
    return ok;
}
