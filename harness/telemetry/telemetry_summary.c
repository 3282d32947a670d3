/* telemetry_summary.c - readings -> per-point and per-sample fields. */
#include "telemetry_summary.h"

#include "cb_common.h"
#include "telemetry_reasons.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the finite values of one field; NAN when there are none. */
static double median_of(const cb_telemetry_reading *r, int n, size_t offset)
{
    double *v = malloc(sizeof *v * (size_t)n);
    if (!v) return NAN;
    int m = 0;
    for (int i = 0; i < n; i++) {
        double x;
        memcpy(&x, (const char *)&r[i] + offset, sizeof x);
        if (isfinite(x)) v[m++] = x;
    }
    double med = NAN;
    if (m > 0) {
        qsort(v, (size_t)m, sizeof *v, cmp_double);
        med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    }
    free(v);
    return med;
}

void cb_telemetry_summarise(const cb_telemetry_reading *r, int n, cb_point_telemetry *out)
{
    memset(out, 0, sizeof *out);
    out->sm_clock_min_mhz = out->sm_clock_median_mhz = out->sm_clock_max_mhz = NAN;
    out->mem_clock_median_mhz = out->power_mean_w = out->temp_max_c = NAN;
    if (n <= 0) return;
    out->valid = true;
    double power_sum = 0;
    int power_n = 0;
    uint64_t reasons = 0;
    bool any_reasons = false;
    for (int i = 0; i < n; i++) {
        double c = r[i].sm_clock_mhz;
        if (isfinite(c)) {
            if (!(out->sm_clock_min_mhz <= c)) out->sm_clock_min_mhz = c;
            if (!(out->sm_clock_max_mhz >= c)) out->sm_clock_max_mhz = c;
        }
        if (isfinite(r[i].power_w)) power_sum += r[i].power_w, power_n++;
        if (isfinite(r[i].temp_c) && !(out->temp_max_c >= r[i].temp_c))
            out->temp_max_c = r[i].temp_c;
        if (r[i].reasons_valid) reasons |= r[i].reasons, any_reasons = true;
    }
    out->sm_clock_median_mhz = median_of(r, n, offsetof(cb_telemetry_reading, sm_clock_mhz));
    out->mem_clock_median_mhz = median_of(r, n, offsetof(cb_telemetry_reading, mem_clock_mhz));
    if (power_n > 0) out->power_mean_w = power_sum / power_n;
    /* Empty (unknown) when no reading had the reasons; "none" when all did
     * and none was set. */
    if (any_reasons) cb_reasons_format(reasons, out->throttle, sizeof out->throttle);
}

/* A time against a reading's time, for cb_lower_bound. */
static int cmp_time(const void *t, const void *reading)
{
    double a = *(const double *)t, b = ((const cb_telemetry_reading *)reading)->t_s;
    return (a > b) - (a < b);
}

/* Index of the first reading at or after t (n when none). */
static int first_at_or_after(const cb_telemetry_reading *r, int n, double t)
{
    return (int)cb_lower_bound(&t, r, (size_t)n, sizeof *r, cmp_time);
}

static int nearest(const cb_telemetry_reading *r, int n, double t)
{
    int i = first_at_or_after(r, n, t);
    if (i == n) return n - 1;
    if (i > 0 && t - r[i - 1].t_s < r[i].t_s - t) return i - 1;
    return i;
}

void cb_telemetry_per_sample(const cb_telemetry_reading *r, int n, const double *t0_s,
                             const double *time_s, int batch, int n_samples, double *sm_clock_mhz,
                             const char **throttle)
{
    for (int s = 0; s < n_samples; s++) {
        sm_clock_mhz[s] = NAN;
        throttle[s] = NULL;
        if (n <= 0) continue;
        double len = isfinite(time_s[s]) && time_s[s] > 0 ? time_s[s] * (batch > 0 ? batch : 1) : 0;
        double t0 = t0_s[s], t1 = t0 + len;
        int near = nearest(r, n, 0.5 * (t0 + t1));
        sm_clock_mhz[s] = r[near].sm_clock_mhz;
        uint64_t reasons = 0;
        bool any = false;
        for (int i = first_at_or_after(r, n, t0); i < n && r[i].t_s <= t1; i++)
            if (r[i].reasons_valid) reasons |= r[i].reasons, any = true;
        if (!any && r[near].reasons_valid) reasons = r[near].reasons, any = true;
        if (any) throttle[s] = cb_reasons_text(reasons);
    }
}
