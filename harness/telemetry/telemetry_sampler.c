/* telemetry_sampler.c - NVML readings and the thread that takes them. */
#include "telemetry_sampler.h"

#include "cb_common.h" /* cb_now_s: CLOCK_MONOTONIC, the runner's clock */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cb_power_source_name(cb_power_source s)
{
    /* CB_POWER_NONE has no name: meta.json writes null. */
    static const char *const names[] = {
        [CB_POWER_INSTANT] = "instant", [CB_POWER_AVERAGE] = "average"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)s, NULL);
}

const char *cb_telemetry_field_name(int field)
{
    static const char *const names[CB_N_FIELDS] = {"sm_clock", "mem_clock", "power", "temperature",
                                                   "clock_event_reasons"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), field, "?");
}

cb_status cb_telemetry_readings_append(cb_telemetry_readings *dst, const cb_telemetry_reading *src,
                                       int n, cb_msg *why)
{
    if (n <= 0) return CB_OK;
    if (dst->n + n > dst->cap) {
        int cap = dst->cap ? dst->cap : 256;
        while (cap < dst->n + n)
            cap *= 2;
        cb_telemetry_reading *v = realloc(dst->v, sizeof *v * (size_t)cap);
        if (!v) {
            cb_msg_set(why, "out of host memory for %d telemetry readings", dst->n + n);
            return CB_FAIL;
        }
        dst->v = v;
        dst->cap = cap;
    }
    memcpy(dst->v + dst->n, src, sizeof *src * (size_t)n);
    dst->n += n;
    return CB_OK;
}

void cb_telemetry_readings_free(cb_telemetry_readings *r)
{
    free(r->v);
    memset(r, 0, sizeof *r);
}

static void note_error(const cb_nvml *n, cb_sampler_errors *e, int field, cb_nvmlReturn_t rc)
{
    if (!e) return;
    if (e->count[field]++ == 0) cb_nvml_error_text(n, rc, e->first[field], sizeof e->first[field]);
}

/* Board power in watts by the instant field; NAN with *rc when unavailable. */
static double read_power_instant(const cb_nvml *n, cb_nvmlDevice_t dev, cb_nvmlReturn_t *rc)
{
    cb_nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof fv);
    fv.fieldId = CB_NVML_FI_DEV_POWER_INSTANT;
    *rc = CB_NVML_CALL(n, DeviceGetFieldValues, dev, 1, &fv);
    if (*rc == CB_NVML_SUCCESS) *rc = fv.nvmlReturn;
    if (*rc != CB_NVML_SUCCESS) return NAN;
    /* Milliwatts, as an unsigned int on every driver so far; take the
     * declared type to be safe. */
    switch (fv.valueType) {
    case CB_NVML_VALUE_TYPE_DOUBLE:
        return fv.value.dVal / 1e3;
    case CB_NVML_VALUE_TYPE_UNSIGNED_LONG:
        return (double)fv.value.ulVal / 1e3;
    case CB_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
        return (double)fv.value.ullVal / 1e3;
    case CB_NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return (double)fv.value.sllVal / 1e3;
    case CB_NVML_VALUE_TYPE_SIGNED_INT:
        return fv.value.siVal / 1e3;
    default:
        return fv.value.uiVal / 1e3;
    }
}

cb_power_source cb_sampler_probe_power(const cb_nvml *n, cb_nvmlDevice_t dev,
                                       cb_sampler_errors *errors)
{
    cb_nvmlReturn_t rc;
    if (isfinite(read_power_instant(n, dev, &rc))) return CB_POWER_INSTANT;
    unsigned int mw = 0;
    cb_nvmlReturn_t rc2 = CB_NVML_CALL(n, DeviceGetPowerUsage, dev, &mw);
    if (rc2 == CB_NVML_SUCCESS) return CB_POWER_AVERAGE;
    note_error(n, errors, CB_FIELD_POWER, rc2);
    return CB_POWER_NONE;
}

static double clock_mhz(const cb_nvml *n, cb_nvmlDevice_t dev, int type, int field,
                        cb_sampler_errors *e)
{
    unsigned int mhz = 0;
    cb_nvmlReturn_t rc = CB_NVML_CALL(n, DeviceGetClockInfo, dev, type, &mhz);
    if (rc == CB_NVML_SUCCESS) return mhz;
    note_error(n, e, field, rc);
    return NAN;
}

void cb_sampler_read(const cb_nvml *n, cb_nvmlDevice_t dev, cb_power_source power,
                     cb_telemetry_reading *r, cb_sampler_errors *e)
{
    double t0 = cb_now_s();
    r->sm_clock_mhz = clock_mhz(n, dev, CB_NVML_CLOCK_SM, CB_FIELD_SM_CLOCK, e);
    r->mem_clock_mhz = clock_mhz(n, dev, CB_NVML_CLOCK_MEM, CB_FIELD_MEM_CLOCK, e);
    r->power_w = NAN;
    cb_nvmlReturn_t rc;
    if (power == CB_POWER_INSTANT) {
        r->power_w = read_power_instant(n, dev, &rc);
        if (!isfinite(r->power_w)) note_error(n, e, CB_FIELD_POWER, rc);
    } else if (power == CB_POWER_AVERAGE) {
        unsigned int mw = 0;
        rc = CB_NVML_CALL(n, DeviceGetPowerUsage, dev, &mw);
        if (rc == CB_NVML_SUCCESS)
            r->power_w = mw / 1e3;
        else
            note_error(n, e, CB_FIELD_POWER, rc);
    }
    unsigned int temp = 0;
    rc = CB_NVML_CALL(n, DeviceGetTemperature, dev, CB_NVML_TEMPERATURE_GPU, &temp);
    r->temp_c = rc == CB_NVML_SUCCESS ? (double)temp : NAN;
    if (rc != CB_NVML_SUCCESS) note_error(n, e, CB_FIELD_TEMP, rc);
    unsigned long long reasons = 0;
    rc = CB_NVML_CALL(n, DeviceGetClocksEventReasons, dev, &reasons);
    r->reasons_valid = rc == CB_NVML_SUCCESS;
    r->reasons = r->reasons_valid ? (uint64_t)reasons : 0;
    if (rc != CB_NVML_SUCCESS) note_error(n, e, CB_FIELD_REASONS, rc);
    r->t_s = 0.5 * (t0 + cb_now_s());
    if (e) e->readings++;
}

/* ---- the thread ---- */

enum { SAMPLER_IDLE, SAMPLER_RUNNING, SAMPLER_QUIT };

struct cb_sampler {
    const cb_nvml *nvml;
    cb_nvmlDevice_t dev;
    cb_power_source power;
    double period_s;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    int state;
    bool busy;           /* a reading is in flight (outside the lock) */
    unsigned generation; /* bumped by every begin: a stale reading is dropped */
    cb_telemetry_readings buf;
    cb_sampler_errors errors;
};

static void add_seconds(struct timespec *ts, double s)
{
    double whole = floor(s);
    ts->tv_sec = (time_t)whole;
    ts->tv_nsec = (long)((s - whole) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void merge_errors(cb_sampler_errors *into, const cb_sampler_errors *from)
{
    for (int f = 0; f < CB_N_FIELDS; f++) {
        if (from->count[f] && !into->count[f]) memcpy(into->first[f], from->first[f], 96);
        into->count[f] += from->count[f];
    }
    into->readings += from->readings;
}

static void *sampler_main(void *arg)
{
    cb_sampler *s = arg;
    double deadline = 0;
    unsigned seen_generation = 0;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->state == SAMPLER_IDLE)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->state == SAMPLER_QUIT) break;
        unsigned gen = s->generation;
        if (gen != seen_generation) { /* a new span: read at once */
            seen_generation = gen;
            deadline = cb_now_s();
        }
        s->busy = true;
        cb_nvmlDevice_t dev = s->dev;
        cb_power_source power = s->power;
        pthread_mutex_unlock(&s->mu);

        cb_telemetry_reading r;
        cb_sampler_errors e;
        memset(&e, 0, sizeof e);
        cb_sampler_read(s->nvml, dev, power, &r, &e);

        pthread_mutex_lock(&s->mu);
        s->busy = false;
        merge_errors(&s->errors, &e);
        if (s->state == SAMPLER_RUNNING && gen == s->generation) {
            if (s->buf.n >= CB_SAMPLER_MAX_READINGS ||
                cb_telemetry_readings_append(&s->buf, &r, 1, NULL) != CB_OK)
                s->errors.dropped++;
        }
        pthread_cond_broadcast(&s->cv); /* an end() may wait for this reading */
        /* Drift-free period; after a late wake-up, start over from now. */
        deadline += s->period_s;
        double now = cb_now_s();
        if (deadline < now) deadline = now + s->period_s;
        struct timespec ts;
        add_seconds(&ts, deadline);
        while (s->state == SAMPLER_RUNNING && gen == s->generation && cb_now_s() < deadline)
            if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

cb_status cb_sampler_create(cb_sampler **out, const cb_nvml *n, cb_nvmlDevice_t dev,
                            cb_power_source power, double period_s, cb_msg *why)
{
    *out = NULL;
    cb_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        cb_msg_set(why, "out of host memory for the telemetry sampler");
        return CB_FAIL;
    }
    s->nvml = n;
    s->dev = dev;
    s->power = power;
    s->period_s = period_s;
    pthread_condattr_t ca;
    int e = pthread_condattr_init(&ca);
    if (!e) e = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (!e) e = pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (e) {
        cb_msg_set(why, "telemetry sampler: pthread_cond_init: %s", strerror(e));
        free(s);
        return CB_FAIL;
    }
    pthread_mutex_init(&s->mu, NULL);
    /* The thread starts with every signal blocked, so Ctrl-C always reaches
     * the runner's thread (signals.c), never the sampler. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    e = pthread_create(&s->thread, NULL, sampler_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) {
        cb_msg_set(why, "telemetry sampler: pthread_create: %s", strerror(e));
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        free(s);
        return CB_FAIL;
    }
    *out = s;
    return CB_OK;
}

void cb_sampler_set_device(cb_sampler *s, cb_nvmlDevice_t dev, cb_power_source power)
{
    pthread_mutex_lock(&s->mu);
    s->dev = dev;
    s->power = power;
    pthread_mutex_unlock(&s->mu);
}

void cb_sampler_begin(cb_sampler *s)
{
    pthread_mutex_lock(&s->mu);
    s->buf.n = 0;
    s->generation++;
    s->state = SAMPLER_RUNNING;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

cb_status cb_sampler_end(cb_sampler *s, cb_telemetry_readings *out, cb_msg *why)
{
    pthread_mutex_lock(&s->mu);
    struct timespec ts;
    add_seconds(&ts, cb_now_s() + 1.0);
    while (s->state == SAMPLER_RUNNING && (s->busy || s->buf.n == 0))
        if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT) break;
    s->state = SAMPLER_IDLE;
    cb_status st = cb_telemetry_readings_append(out, s->buf.v, s->buf.n, why);
    s->buf.n = 0;
    pthread_mutex_unlock(&s->mu);
    return st;
}

bool cb_sampler_latest(cb_sampler *s, cb_telemetry_reading *out)
{
    pthread_mutex_lock(&s->mu);
    bool have = s->state == SAMPLER_RUNNING && s->buf.n > 0;
    if (have) *out = s->buf.v[s->buf.n - 1];
    pthread_mutex_unlock(&s->mu);
    return have;
}

void cb_sampler_errors_get(cb_sampler *s, cb_sampler_errors *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->errors;
    pthread_mutex_unlock(&s->mu);
}

void cb_sampler_destroy(cb_sampler *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    s->state = SAMPLER_QUIT;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    cb_telemetry_readings_free(&s->buf);
    free(s);
}
