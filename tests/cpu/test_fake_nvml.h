/* test_fake_nvml.h - what the telemetry tests share against tests/fake_nvml:
 * the fake's call counter, from the same loaded copy of the library that
 * the telemetry opens; a sampler on the fake's default device; and a JSON
 * block the telemetry writes, as text. */
#ifndef CB_TEST_FAKE_NVML_H
#define CB_TEST_FAKE_NVML_H

#include "cb_test.h"
#include "json_writer.h"
#include "telemetry.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one device the fake shows unless a script names others. */
#define FAKE_UUID "GPU-00000000-fake-0000-0000-000000000000"

/* How often the fake's NAME was called (fake_nvml_load sets it). */
static long (*fake_calls)(const char *);

/* Load the fake and find its call counter: the handle for dlclose, or NULL
 * (a failed check) where the fake or its counter is missing. */
static inline void *fake_nvml_load(void)
{
    void *h = dlopen(CB_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    void *sym = h ? dlsym(h, "cb_fake_nvml_calls") : NULL;
    CB_CHECK(sym != NULL);
    if (!sym) return NULL;
    memcpy(&fake_calls, &sym, sizeof fake_calls);
    return h;
}

/* The telemetry's options on the fake, a reading every period_s. */
static inline cb_telemetry_options fake_nvml_options(double period_s)
{
    cb_telemetry_options o;
    cb_telemetry_options_defaults(&o);
    o.library = CB_FAKE_NVML;
    o.period_s = period_s;
    return o;
}

/* A sampler on FAKE_UUID, the fake following `script`; checked to sample. */
static inline cb_telemetry *fake_nvml_open(const char *script, double period_s)
{
    setenv("CUBENCH_FAKE_NVML", script, 1);
    cb_telemetry_options o = fake_nvml_options(period_s);
    cb_telemetry *t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(cb_telemetry_sampling(t));
    return t;
}

/* What `write` puts in a JSON document for `t`, as text (caller frees;
 * NULL where no memory stream could be opened). */
static inline char *fake_nvml_json(void (*write)(cb_json *, const cb_telemetry *),
                                   const cb_telemetry *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    cb_json j;
    cb_json_begin(&j, f);
    write(&j, t);
    cb_json_end(&j);
    fclose(f);
    return buf;
}

#endif
