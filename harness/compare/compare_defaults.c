/* compare_defaults.c - the default between-run spread of each kind of
 * point (compare_defaults.h), as scripts/record/compare_defaults.py derives
 * it from tests/data: the rows of `table` are its output (`--c-rows`),
 * checked against it by tests/py/test_compare_aa.py. Per row: kind, BASE
 * medians below, sd, df, run-wide sd, its df, processes, points, trusted. */
#include "compare_defaults.h"

#include <math.h>
#include <stdio.h>

static const cb_kind_default table[] = {
    {CB_CMP_KIND_DEVICE, 16.384e-6, 0.0181, 63.1, 0.0094, 12, 10, 356, true},
    {CB_CMP_KIND_DEVICE, 65.536e-6, 0.0044, 338.4, 0.0015, 12, 10, 135, true},
    {CB_CMP_KIND_DEVICE, INFINITY, 0.0027, 128.5, 0.0005, 4, 10, 138, true},
    {CB_CMP_KIND_HOST_COPY, INFINITY, 0.1126, 34.9, 0.0342, 1, 2, 109, false},
    {CB_CMP_KIND_HOST, INFINITY, 0.2793, 81.1, 0.1098, 10, 10, 24, true},
    {CB_CMP_KIND_PYTHON, INFINITY, 0.0219, 17.0, NAN, 0, 2, 17, false},
    {CB_CMP_KIND_MULTI_GPU, INFINITY, 0.0765, 10.1, 0.0324, 1, 2, 24, false},
};

const cb_kind_default *cb_kind_defaults(int *n)
{
    *n = CB_ARRAY_LEN(table);
    return table;
}

bool cb_kind_default_spread(cb_cmp_kind kind, double median_s, cb_spread *out, const char **why)
{
    *why = NULL;
    for (int i = 0; i < CB_ARRAY_LEN(table); i++) {
        const cb_kind_default *d = &table[i];
        if (d->kind != kind || !(median_s < d->below_s || isinf(d->below_s))) continue;
        if (!d->trusted) {
            *why = "no default between-run spread for this kind: recorded in 2 processes only";
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
