/* history_export.c - the history as one JSON document for the dashboard
 * (`cubench history export`, read by `python3 -m reports --history`):
 * runs, changes of conditions, every series with its values and its
 * learned spread, and the change points history_check found. Compact (a
 * value per array, no indentation): 1,000 runs x 700 points is 700,000
 * values. docs/history.md lists the fields. */
#include "history_impl.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

/* Version of this document's layout. */
#define CB_HIST_EXPORT_VERSION 1

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.7g", v);
    else
        fputs("null", f);
}

static void write_run(FILE *f, const cb_hist_run *r)
{
    fprintf(f, "{\"id\":%lld,\"started\":", r->id);
    cb_hist_json_string(f, r->started);
    fputs(",\"git_sha\":", f);
    cb_hist_json_string(f, r->git_sha);
    fputs(",\"machine\":", f);
    cb_hist_json_string(f, r->machine);
    fputs(",\"gpu_name\":", f);
    cb_hist_json_string(f, r->gpu_name);
    fputs(",\"gpu_uuid\":", f);
    cb_hist_json_string(f, r->gpu_uuid);
    fputs(",\"driver\":", f);
    cb_hist_json_string(f, r->driver);
    fputs(",\"driver_api\":", f);
    cb_hist_json_string(f, r->driver_api);
    fputs(",\"runtime\":", f);
    cb_hist_json_string(f, r->runtime);
    fputs(",\"host\":", f);
    cb_hist_json_string(f, r->host);
    fprintf(f, ",\"complete\":%s}", r->complete ? "true" : "false");
}

/* [run, status, median_s, ci_lo_s, ci_hi_s, sm_clock_mhz, power_w, temp_c, throttle] */
static void write_value(FILE *f, const cb_hist_value *v)
{
    fprintf(f, "[%d,", v->run);
    cb_hist_json_string(f, v->status);
    const double nums[] = {v->median_s,     v->ci_lo_s, v->ci_hi_s,
                           v->sm_clock_mhz, v->power_w, v->temp_c};
    for (int i = 0; i < CB_ARRAY_LEN(nums); i++) {
        fputc(',', f);
        num(f, nums[i]);
    }
    fputc(',', f);
    if (v->throttle)
        cb_hist_json_string(f, v->throttle);
    else
        fputs("null", f);
    fputc(']', f);
}

static bool write_series(FILE *f, const cb_hist_data *d, int i, const cb_hist_check_opts *o,
                         cb_msg *err)
{
    const cb_hist_series *s = &d->series[i];
    cb_hist_spread sp;
    if (!cb_hist_series_spread(d, i, o, &sp, err)) return false;
    fputs("{\"benchmark\":", f);
    cb_hist_json_string(f, s->benchmark);
    fputs(",\"axes\":", f);
    cb_hist_json_string(f, s->axes);
    fputs(",\"device\":", f);
    cb_hist_json_string(f, s->device);
    fputs(",\"kind\":", f);
    cb_hist_json_string(f, s->kind);
    fputs(",\"machine\":", f);
    cb_hist_json_string(f, s->machine);
    fputs(",\"spread\":{\"sd\":", f);
    num(f, sp.df > 0 ? sp.sd : NAN);
    fprintf(f, ",\"df\":%g,\"runs\":%d},\"values\":[", sp.df, sp.runs);
    for (int k = 0; k < s->n; k++) {
        if (k) fputc(',', f);
        write_value(f, &s->v[k]);
    }
    fputs("]}", f);
    return true;
}

static void write_change(FILE *f, const cb_hist_change *c)
{
    fprintf(f, "{\"series\":%d,\"run\":%d,\"before\":%d,\"after\":%d,\"ratio\":", c->series, c->run,
            c->before, c->after);
    num(f, c->ratio);
    fputs(",\"ci_lo\":", f);
    num(f, c->ci_lo);
    fputs(",\"ci_hi\":", f);
    num(f, c->ci_hi);
    fputs(",\"p\":", f);
    num(f, c->p);
    fprintf(f,
            ",\"n_before\":%d,\"n_after\":%d,\"throttled_near\":%d,\"cause\":\"%s\","
            "\"open\":%s,\"regression\":%s}",
            c->n_before, c->n_after, c->throttled_near, cb_hist_cause_name(c->cause),
            c->open ? "true" : "false", c->regression ? "true" : "false");
}

static void write_head(FILE *f, const cb_hist_check_opts *o)
{
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f,
            "{\"format\":\"cubench-history\",\"version\":%d,\"schema\":%d,\"generated\":\"%s\","
            "\"options\":{\"method\":\"%s\",\"delta\":%g,\"alpha\":%g,\"p_split\":%g,"
            "\"p_merge\":%g,\"window\":%d,\"min_runs\":%d,\"recent\":%d},\n",
            CB_HIST_EXPORT_VERSION, CB_HIST_SCHEMA, now,
            o->method == CB_HIST_METHOD_HUNTER ? "hunter" : "cubench", o->delta, o->alpha,
            o->p_split, o->p_merge, o->window, o->min_runs, o->recent);
}

bool cb_history_write_json(FILE *f, const cb_hist_data *d, const cb_hist_check *c,
                           const cb_hist_check_opts *o)
{
    cb_msg err;
    write_head(f, o);
    fputs("\"runs\":[", f);
    for (int i = 0; i < d->n_runs; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_run(f, &d->runs[i]);
    }
    fputs("],\n\"events\":[", f);
    for (int i = 0; i < c->n_events; i++) {
        fprintf(f, "%s{\"run\":%d,\"cause\":\"%s\",\"what\":", i ? ",\n" : "\n", c->events[i].run,
                cb_hist_cause_name(c->events[i].cause));
        cb_hist_json_string(f, c->events[i].what);
        fputc('}', f);
    }
    fputs("],\n\"series\":[", f);
    for (int i = 0; i < d->n_series; i++) {
        fputs(i ? ",\n" : "\n", f);
        if (!write_series(f, d, i, o, &err)) return false;
    }
    fputs("],\n\"outliers\":[", f);
    for (int i = 0; i < c->n_outliers; i++)
        fprintf(f, "%s[%d,%d]", i ? "," : "", c->outliers[i].series, c->outliers[i].value);
    fputs("],\n\"changes\":[", f);
    for (int i = 0; i < c->n_changes; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_change(f, &c->changes[i]);
    }
    fputs("]}\n", f);
    return !ferror(f);
}
