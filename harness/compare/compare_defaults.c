/* compare_defaults.c - the default between-run spread of each kind of
 * point (compare_defaults.h), as scripts/record/compare_defaults.py derives
 * it from tests/data: the rows of `table` are its output (`--c-rows`),
 * checked against it by tests/py/test_compare_aa.py. Per row: kind, BASE
 * medians below, sd, df, run-wide sd, its df, processes, points, trusted,
 * and why a kind has no default whatever its pairs say. */
#include "compare_defaults.h"

#include <math.h>
#include <stdio.h>

static const cb_kind_default table[] = {
    {CB_CMP_KIND_DEVICE, 16.384e-6, 0.0211, 325.7, 0.0104, 64, 10, 652, true, NULL},
    {CB_CMP_KIND_DEVICE, 65.536e-6, 0.0060, 61.0, 0.0047, 61, 10, 213, true, NULL},
    {CB_CMP_KIND_DEVICE, INFINITY, 0.0016, 411.4, 0.0008, 63, 10, 204, true, NULL},
    {CB_CMP_KIND_HOST_COPY, INFINITY, 0.0710, 764.8, 0.0154, 18, 10, 132, true, NULL},
    {CB_CMP_KIND_STAGED_COPY, INFINITY, NAN, NAN, NAN, 0, 0, 0, false,
     "no default between-run spread: copies staged through pageable memory moved by up to 2.5x "
     "between processes of one build"},
    {CB_CMP_KIND_HOST, INFINITY, 0.2088, 422.0, 0.0680, 64, 10, 54, true, NULL},
    {CB_CMP_KIND_PYTHON, INFINITY, 0.0586, 272.9, 0.0132, 14, 10, 49, true, NULL},
    {CB_CMP_KIND_MULTI_GPU, INFINITY, NAN, NAN, NAN, 0, 0, 0, false, NULL},
};

const cb_kind_default *cb_kind_defaults(int *n)
{
    *n = CB_ARRAY_LEN(table);
    return table;
}

bool cb_kind_default_spread(cb_cmp_kind kind, double median_s, cb_spread *out, const char **why)
{
    static const char *const untrusted[] = {
        "no default between-run spread: the recorded H200 runs hold no two processes of one "
        "build on one GPU that measured them",
        "no default between-run spread: the recorded H200 runs hold fewer than 3 processes of "
        "one build on one GPU that measured them",
        "no default between-run spread: the recorded H200 runs measured fewer than 10 of them",
    };
    *why = NULL;
    for (int i = 0; i < CB_ARRAY_LEN(table); i++) {
        const cb_kind_default *d = &table[i];
        if (d->kind != kind || !(median_s < d->below_s || isinf(d->below_s))) continue;
        if (!d->trusted) {
            if (d->no_default) {
                *why = d->no_default;
                return false;
            }
            *why = untrusted[d->processes < 2 ? 0 : d->processes < 3 ? 1 : 2];
            return false;
        }
        *out = (cb_spread){d->sd, d->df, d->run_sd, d->run_df, ""};
        if (isinf(d->below_s))
            snprintf(out->what, sizeof out->what, "the %s default", cb_cmp_kind_name(kind));
        else
            snprintf(out->what, sizeof out->what, "the %s default below %.3g us",
                     cb_cmp_kind_name(kind), 1e6 * d->below_s);
        return true;
    }
    *why = "no default between-run spread for this kind";
    return false;
}
