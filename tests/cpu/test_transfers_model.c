/* test_transfers_model.c - the transfers family as data, without a GPU:
 * names, hooks, timers and peaks; the work model (bytes per direction,
 * bidir and d2d counting both sides, overlap stages); the default sweep
 * staying small; the byte pattern and its CPU check; the overlap function. */
/* test links: cubench_bench */
#include "transfers.h"
#include "transfers_pattern.h"

#include <math.h>
#include "cb_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const cb_family cb_family_transfers;

static const cb_bench *find(const char *name)
{
    for (int i = 0; i < cb_family_transfers.count; i++)
        if (strcmp(cb_family_transfers.benches[i].name, name) == 0)
            return &cb_family_transfers.benches[i];
    fprintf(stderr, "no benchmark %s\n", name);
    exit(1);
}

/* A point of `b` from "name=value;..." text; every axis must be given. */
static cb_point make_point(const cb_bench *b, const char *spec)
{
    cb_point p;
    memset(&p, 0, sizeof p);
    p.n_axes = b->n_axes;
    p.defs = b->axes;
    for (int i = 0; i < b->n_axes; i++) {
        const char *name = b->axes[i].name;
        size_t nl = strlen(name);
        const char *s = spec;
        while (s && !(strncmp(s, name, nl) == 0 && s[nl] == '=')) {
            s = strchr(s, ';');
            if (s) s++;
        }
        if (!s) {
            fprintf(stderr, "make_point: %s lacks axis %s\n", spec, name);
            exit(1);
        }
        size_t vl = strcspn(s + nl + 1, ";");
        cb_axis_value *v = &p.values[i];
        snprintf(v->text, sizeof v->text, "%.*s", (int)vl, s + nl + 1);
        v->i = b->axes[i].kind == CB_AXIS_ENUM ? CB_AXIS_WORD : strtoll(v->text, NULL, 10);
    }
    return p;
}

static void test_table(void)
{
    CB_CHECK(cb_family_transfers.count == 6);
    for (int i = 0; i < cb_family_transfers.count; i++) {
        const cb_bench *b = &cb_family_transfers.benches[i];
        CB_CHECK(strncmp(b->name, "transfers/", 10) == 0);
        CB_CHECK(b->summary && *b->summary);
        CB_CHECK(b->target == CB_TARGET_CUDA);
        CB_CHECK(b->setup && b->run && b->verify && b->teardown && b->bytes);
        CB_CHECK(b->n_axes > 0 && b->n_axes <= CB_MAX_AXES);
        bool has_bytes = false;
        for (int a = 0; a < b->n_axes; a++) {
            CB_CHECK(b->axes[a].help && *b->axes[a].help);
            has_bytes |= strcmp(b->axes[a].name, "bytes") == 0;
        }
        CB_CHECK(has_bytes); /* every curve is a size sweep fit.c can model */
        for (int j = 0; j < i; j++)
            CB_CHECK(strcmp(b->name, cb_family_transfers.benches[j].name) != 0);
    }
    /* Only the blocking API is host-timed. */
    CB_CHECK(find("transfers/memcpy_sync")->timer == CB_TIMER_HOST);
    CB_CHECK(find("transfers/memcpy_async")->timer == CB_TIMER_DEFAULT);
    CB_CHECK(find("transfers/bidir")->timer == CB_TIMER_DEFAULT);
    CB_CHECK(find("transfers/overlap")->timer == CB_TIMER_DEFAULT);
    /* Peaks: PCIe per direction for host transfers, DRAM for d2d, none for
     * the combined directions and the mixed pipeline. */
    CB_CHECK(find("transfers/memcpy_sync")->peak == CB_PEAK_PCIE);
    CB_CHECK(find("transfers/memcpy_async")->peak == CB_PEAK_PCIE);
    CB_CHECK(find("transfers/zero_copy")->peak == CB_PEAK_PCIE);
    CB_CHECK(find("transfers/d2d")->peak == CB_PEAK_DRAM);
    CB_CHECK(find("transfers/bidir")->peak == CB_PEAK_NONE);
    CB_CHECK(find("transfers/overlap")->peak == CB_PEAK_NONE);
}

static void test_work_model(void)
{
    const char *dirs[] = {"h2d", "d2h"};
    const char *mems[] = {"pageable", "pinned", "registered", "wc"};
    char spec[128];
    for (int d = 0; d < 2; d++) {
        for (int m = 0; m < 4; m++) {
            snprintf(spec, sizeof spec, "direction=%s;memory=%s;bytes=1048576", dirs[d], mems[m]);
            const cb_bench *s = find("transfers/memcpy_sync"), *a = find("transfers/memcpy_async");
            cb_point ps = make_point(s, spec), pa = make_point(a, spec);
            CB_CHECK(s->bytes(&ps) == 1048576.0);
            CB_CHECK(a->bytes(&pa) == 1048576.0);
            CB_CHECK(s->flops == NULL && a->flops == NULL);
        }
        snprintf(spec, sizeof spec, "direction=%s;bytes=4096", dirs[d]);
        const cb_bench *z = find("transfers/zero_copy");
        cb_point pz = make_point(z, spec);
        CB_CHECK(z->bytes(&pz) == 4096.0);
    }
    const cb_bench *bi = find("transfers/bidir");
    cb_point pb = make_point(bi, "memory=pinned;bytes=1073741824");
    CB_CHECK(bi->bytes(&pb) == 2.0 * 1073741824.0); /* both directions */
    const cb_bench *dd = find("transfers/d2d");
    cb_point pd = make_point(dd, "bytes=1073741824");
    CB_CHECK(dd->bytes(&pd) == 2.0 * 1073741824.0); /* read + write */

    const cb_bench *ov = find("transfers/overlap");
    cb_point h = make_point(ov, "stage=h2d;streams=4;bytes=4096;fma=100");
    cb_point k = make_point(ov, "stage=kernel;streams=4;bytes=4096;fma=100");
    cb_point o = make_point(ov, "stage=d2h;streams=4;bytes=4096;fma=100");
    cb_point pl = make_point(ov, "stage=pipeline;streams=4;bytes=4096;fma=100");
    CB_CHECK(ov->bytes(&h) == 4096.0 && ov->bytes(&o) == 4096.0);
    CB_CHECK(isnan(ov->bytes(&k)));
    CB_CHECK(ov->bytes(&pl) == 8192.0);
    CB_CHECK(isnan(ov->flops(&h)) && isnan(ov->flops(&o)));
    CB_CHECK(ov->flops(&k) == 2.0 * 100 * 1024 && ov->flops(&pl) == 2.0 * 100 * 1024);
}

/* Expand every axis default as the runner does; returns the point count. */
static long default_points(const cb_bench *b, int64_t *max_bytes)
{
    cb_axis_context ctx = {.sm_count = 132};
    static cb_axis_values vals;
    long points = 1;
    *max_bytes = 0;
    for (int a = 0; a < b->n_axes; a++) {
        cb_msg err = {{0}};
        bool ok = cb_axis_expand(&b->axes[a], b->axes[a].defaults, &ctx, &vals, &err);
        CB_CHECK(ok);
        if (!ok) {
            fprintf(stderr, "%s axis %s: %s\n", b->name, b->axes[a].name, err.text);
            return 0;
        }
        points *= vals.count;
        if (strcmp(b->axes[a].name, "bytes") == 0)
            for (int i = 0; i < vals.count; i++)
                if (vals.v[i].i > *max_bytes) *max_bytes = vals.v[i].i;
    }
    return points;
}

static void test_defaults(void)
{
    long total = 0;
    for (int i = 0; i < cb_family_transfers.count; i++) {
        int64_t max_bytes;
        long n = default_points(&cb_family_transfers.benches[i], &max_bytes);
        printf("  %-24s %4ld default points, up to %lld bytes\n",
               cb_family_transfers.benches[i].name, n, (long long)max_bytes);
        total += n;
        /* Device memory stays moderate: at most 1 GiB per buffer. */
        CB_CHECK(max_bytes <= (int64_t)1 << 30);
    }
    printf("  %-24s %4ld default points\n", "transfers (all)", total);
    CB_CHECK(total > 100 && total <= 200);
    int64_t max_bytes;
    default_points(find("transfers/memcpy_async"), &max_bytes);
    CB_CHECK(max_bytes == (int64_t)1 << 30); /* the >= 256 MiB targets are in */
    default_points(find("transfers/d2d"), &max_bytes);
    CB_CHECK(max_bytes == (int64_t)1 << 30);
    default_points(find("transfers/bidir"), &max_bytes);
    CB_CHECK(max_bytes == (int64_t)1 << 30);
}

static void test_memory_kinds(void)
{
    const char *names[] = {"pageable", "pinned", "registered", "wc"};
    for (int i = 0; i < 4; i++) {
        cb_xfer_mem m;
        CB_CHECK(cb_xfer_mem_parse(names[i], &m));
        CB_CHECK(strcmp(cb_xfer_mem_name(m), names[i]) == 0);
        CB_CHECK(cb_xfer_mem_cupti_kind(m) == (i == 0 ? 1 : 2));
    }
    cb_xfer_mem m;
    CB_CHECK(!cb_xfer_mem_parse("managed", &m));
    CB_CHECK(cb_xfer_host_budget_bytes() > 0);
    cb_msg why = {{0}};
    CB_CHECK(cb_xfer_check_fit((uint64_t)1 << 62, 0, &why) == CB_SKIP);
    CB_CHECK(strstr(why.text, "host memory") != NULL);
    CB_CHECK(cb_xfer_check_fit(4096, 0, &why) == CB_OK);
}

static void test_pattern(void)
{
    CB_CHECK(cb_xfer_bytes_differ(0, 0) == 0);
    CB_CHECK(cb_xfer_bytes_differ(0, ~0ull) == 8);
    CB_CHECK(cb_xfer_bytes_differ(0x0100000000000080ull, 0) == 2);
    CB_CHECK(cb_xfer_bytes_differ(0x00ff00ff00ff00ffull, 0x00fe00ff00ff01ffull) == 2);
    int zeros = 0;
    for (uint64_t i = 0; i < 100000; i++)
        zeros += cb_xfer_word(42, i) == 0;
    CB_CHECK(zeros == 0);
    CB_CHECK(cb_xfer_word(1, 0) != cb_xfer_word(2, 0));
    CB_CHECK(cb_xfer_word(1, 0) != cb_xfer_word(1, 1));
    for (int b = 0; b < 8; b++)
        CB_CHECK(cb_xfer_byte(7, 16 + b) == (uint8_t)(cb_xfer_word(7, 2) >> (8 * b)));

    enum { N = 1003 }; /* not a multiple of 8: the byte tail is covered */
    uint8_t *buf = malloc(N);
    cb_xfer_pattern_fill_cpu(buf, N, 99, false);
    CB_CHECK(cb_xfer_pattern_count_cpu(buf, N, 99) == 0);
    CB_CHECK(cb_xfer_pattern_count_cpu(buf, N, 98) > N - N / 64); /* another seed: ~all differ */
    buf[500] ^= 0x10;
    buf[N - 1] ^= 0x01;
    CB_CHECK(cb_xfer_pattern_count_cpu(buf, N, 99) == 2);
    /* The poison is the complement: every byte of an unwritten output is
     * counted, so a skipped copy reports exactly its size. */
    cb_xfer_pattern_fill_cpu(buf, N, 99, true);
    CB_CHECK(cb_xfer_pattern_count_cpu(buf, N, 99) == N);
    free(buf);
}

static void test_overlap_function(void)
{
    CB_CHECK(cb_xfer_overlap_value(1.5f, 0) == 1.5f);
    CB_CHECK(cb_xfer_overlap_value(1.5f, 1) == fmaf(1.5f, 1.0001f, 0.0001f));
    float prev = -1;
    for (uint64_t i = 0; i < 64; i++) {
        float x = cb_xfer_overlap_input(5, i);
        CB_CHECK(x >= 1.0f && x < 2.0f);
        float y = cb_xfer_overlap_value(x, 2048);
        /* Stays near its input and finite, whatever the chain length. */
        CB_CHECK(isfinite(y) && fabsf(y - x) < 0.01f);
        CB_CHECK(y != prev);
        prev = y;
    }
    CB_CHECK(cb_xfer_overlap_value(1.25f, 2048) != cb_xfer_overlap_value(1.5f, 2048));
    CB_CHECK(isfinite(cb_xfer_overlap_value(1.999f, 1 << 20)));
}

int main(void)
{
    test_table();
    test_work_model();
    test_defaults();
    test_memory_kinds();
    test_pattern();
    test_overlap_function();
    return cb_test_finish("test_transfers_model");
}
