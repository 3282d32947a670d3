/* test_cupti_records.c - joining CUPTI activity records per sample, on
 * synthetic buffers built the way CUPTI builds them (records back to back,
 * each its struct's size, 8-byte aligned), and kernel-name demangling. */
/* test links: cubench_timing */
#include "cb_test.h"
#include "cupti_records.h"

#include <cupti.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS         1e-9
#define NEAR(a, b) (fabs((a) - (b)) <= 1e-15 + 1e-12 * fabs(b))

/* ---- synthetic records ---------------------------------------------------- */

/* A buffer as CUPTI hands it over: records back to back. Every activity
 * struct is declared packed with 8-byte alignment and a size that is a
 * multiple of 8, so appending keeps each record aligned. */
typedef struct buf {
    _Alignas(8) uint8_t bytes[1 << 14];
    size_t used;
    CUpti_Activity *recs[256]; /* the same records, for the array walker */
    int n;
} buf;

static void put(buf *b, const void *rec, size_t size)
{
    if (b->used + size > sizeof b->bytes || b->n == CB_ARRAY_LEN(b->recs)) abort();
    memcpy(b->bytes + b->used, rec, size);
    b->recs[b->n++] = (CUpti_Activity *)(b->bytes + b->used);
    b->used += size;
}

/* Append one record of type T: zero but for the fields named. */
#define PUT(b, T, ...) put((b), &(T){__VA_ARGS__}, sizeof(T))

static void kernel(buf *b, uint32_t corr, uint64_t start, uint64_t end, const char *name)
{
    PUT(b, CUpti_ActivityKernel10, .kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        .correlationId = corr, .start = start, .end = end, .name = name, .gridX = 1, .gridY = 1,
        .gridZ = 1, .blockX = 256, .blockY = 1, .blockZ = 1);
}

static void memcpy_rec(buf *b, uint32_t corr, uint32_t rt_corr, uint64_t start, uint64_t end,
                       int src, int dst)
{
    PUT(b, CUpti_ActivityMemcpy6, .kind = CUPTI_ACTIVITY_KIND_MEMCPY,
        .copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, .srcKind = (uint8_t)src,
        .dstKind = (uint8_t)dst, .bytes = 4096, .correlationId = corr,
        .runtimeCorrelationId = rt_corr, .start = start, .end = end, .copyCount = 1);
}

static void memset_rec(buf *b, uint32_t corr, uint64_t start, uint64_t end)
{
    PUT(b, CUpti_ActivityMemset4, .kind = CUPTI_ACTIVITY_KIND_MEMSET, .correlationId = corr,
        .start = start, .end = end, .memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
}

static void ext_kind(buf *b, uint32_t corr, uint64_t id, CUpti_ExternalCorrelationKind kind)
{
    PUT(b, CUpti_ActivityExternalCorrelation, .kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        .externalKind = kind, .externalId = id, .correlationId = corr);
}

static void ext(buf *b, uint32_t corr, uint64_t id)
{
    ext_kind(b, corr, id, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
}

static void api(buf *b, CUpti_ActivityKind kind, uint32_t corr)
{
    PUT(b, CUpti_ActivityAPI, .kind = kind, .correlationId = corr, .start = 1, .end = 2);
}

static void marker(buf *b, CUpti_ActivityFlag flags, const char *name)
{
    PUT(b, CUpti_ActivityMarker2, .kind = CUPTI_ACTIVITY_KIND_MARKER, .flags = flags,
        .timestamp = 5, .id = 1, .name = name, .domain = "cubench");
}

/* The array walker: what a test feeds when it wants an exact order, and an
 * iterator with the shape of cuptiActivityGetNextRecord. */
static buf *g_walk;
static int g_walk_i;
static int g_walk_fail_at = -1;

static CUptiResult CUPTIAPI array_next(uint8_t *buffer, size_t valid, CUpti_Activity **rec)
{
    (void)buffer;
    (void)valid;
    if (*rec == NULL) g_walk_i = 0;
    if (g_walk_i == g_walk_fail_at) return CUPTI_ERROR_INVALID_KIND;
    if (g_walk_i >= g_walk->n) return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *rec = g_walk->recs[g_walk_i++];
    return CUPTI_SUCCESS;
}

static int add_with_array(cb_cupti_records *r, buf *b)
{
    g_walk = b;
    return cb_cupti_records_add_buffer(r, b->bytes, b->used, array_next);
}

static int add_with_cupti(cb_cupti_records *r, buf *b)
{
    return cb_cupti_records_add_buffer(r, b->bytes, b->used, cuptiActivityGetNextRecord);
}

/* `b` read by `add` into fresh records (every record of it taken), joined
 * for samples first_id .. first_id + n - 1 with `dropped` lost. The records
 * are freed; the point is the caller's to free. */
static cb_status join_buffer(buf *b, int (*add)(cb_cupti_records *, buf *), uint64_t first_id,
                             int n, long dropped, cb_cupti_point *p, cb_msg *why)
{
    cb_cupti_records *r = cb_cupti_records_new();
    CB_CHECK(add(r, b) == b->n);
    cb_status s = cb_cupti_records_join(r, first_id, n, dropped, p, why);
    cb_cupti_records_free(r);
    return s;
}

/* ---- tests ----------------------------------------------------------------- */

static void test_demangle(void)
{
    char out[128];
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"_Z13vecadd_kernelPKfS0_Pfi", "vecadd_kernel"},
        {"_Z12vecadd_kernelPKfS0_Pfi", "vecadd_kerne"}, /* the length rules, not the eye */
        {"_ZN7cubench6detail11sgemm_naiveEPKfS2_Pfiii", "cubench::detail::sgemm_naive"},
        {"_ZN7cubench5sgemmILi32EEEvPKfS2_Pf", "cubench::sgemm"},
        {"_Z11tiled_sgemmILi32ELi8ELb1EEvPKfS1_Pfiii", "tiled_sgemm"},
        {"_Z6kernelIfLi4EEvPT_S1_", "kernel"},
        {"_ZN2ns3fooIiE3barEv", "ns::foo::bar"},
        {"_ZL10local_kernPf", "local_kern"},
        {"_ZNSt6vectorIiSaIiEE4sizeEv", "std::vector::size"},
        {"_ZN7cutlass6KernelINS_4gemm6kernel4GemmIfEEEEvNT_6ParamsE", "cutlass::Kernel"},
        {"_Z3fooIDv4_fEvT_", "foo"},
        {"vecadd_grid_stride", "vecadd_grid_stride"}, /* extern "C" __global__ */
        {"_Z99tooshort", "_Z99tooshort"},             /* malformed: unchanged   */
        {"_ZN3fooC1Ev", "_ZN3fooC1Ev"},               /* a constructor: unchanged */
        {"_ZN3foo", "_ZN3foo"},                       /* truncated: unchanged   */
        {"", ""},
    };
    for (int i = 0; i < CB_ARRAY_LEN(cases); i++) {
        size_t n = cb_cupti_demangle(cases[i].in, out, sizeof out);
        CB_CHECK_STR(out, cases[i].want);
        CB_CHECK(n == strlen(out));
    }
    /* Every truncation of every case, in a buffer of exactly its size (so
     * AddressSanitizer sees any read past the end): no crash, a result. */
    for (int i = 0; i < CB_ARRAY_LEN(cases); i++) {
        size_t len = strlen(cases[i].in);
        for (size_t cut = 0; cut <= len; cut++) {
            char *part = malloc(cut + 1);
            if (!part) abort();
            memcpy(part, cases[i].in, cut);
            part[cut] = '\0';
            size_t n = cb_cupti_demangle(part, out, sizeof out);
            CB_CHECK(n == strlen(out) && (cut == 0 || n > 0));
            free(part);
        }
    }
    char tiny[8];
    cb_cupti_demangle("_Z13vecadd_kernelPKfS0_Pfi", tiny, sizeof tiny);
    CB_CHECK_STR(tiny, "vecadd_");
    CB_CHECK(cb_cupti_demangle(NULL, out, sizeof out) == 0 && out[0] == '\0');
}

/* `b` emptied, then three samples (ids 100..102): kernels, a memcpy and a
 * memset, with work before and after them that belongs to no sample. */
static void fill_point(buf *b)
{
    memset(b, 0, sizeof *b);
    /* warm-up kernel: no external id at all */
    api(b, CUPTI_ACTIVITY_KIND_RUNTIME, 1);
    kernel(b, 1, 10, 20, "_Z13vecadd_kernelPKfS0_Pfi");
    /* sample 100: two launches of 1000 ns and 1500 ns */
    api(b, CUPTI_ACTIVITY_KIND_RUNTIME, 2);
    ext(b, 2, 100);
    kernel(b, 2, 1000, 2000, "_Z13vecadd_kernelPKfS0_Pfi");
    ext(b, 3, 100);
    api(b, CUPTI_ACTIVITY_KIND_DRIVER, 3);
    kernel(b, 3, 2000, 3500, "_Z13vecadd_kernelPKfS0_Pfi");
    /* sample 101: a pinned H2D copy of 700 ns + a memset of 300 ns */
    ext(b, 4, 101);
    memcpy_rec(b, 4, 4, 5000, 5700, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
               CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ext(b, 5, 101);
    memset_rec(b, 5, 6000, 6300);
    /* sample 102: a kernel of 2 us */
    ext(b, 6, 102);
    kernel(b, 6, 8000, 10000, "_Z13vecadd_kernelPKfS0_Pfi");
    /* a sample of another point (id 103) and one of an earlier point (99) */
    ext(b, 7, 103);
    kernel(b, 7, 11000, 12000, "_Z5otherv");
    ext(b, 8, 99);
    kernel(b, 8, 500, 900, "_Z5otherv");
    /* an id pushed by someone else's layer, same correlation as nothing */
    ext_kind(b, 9, 101, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);
    kernel(b, 9, 13000, 14000, "_Z5otherv");
}

static void check_point(const cb_cupti_point *p)
{
    CB_CHECK(p->n_samples == 3);
    CB_CHECK(p->records[0] == 2 && p->records[1] == 2 && p->records[2] == 1);
    CB_CHECK(NEAR(p->gpu_s[0], 2500 * NS));
    CB_CHECK(NEAR(p->gpu_s[1], 1000 * NS));
    CB_CHECK(NEAR(p->gpu_s[2], 2000 * NS));
    CB_CHECK_STR(p->kernels, "vecadd_kernel");
    CB_CHECK(p->kernel_count == 3);
    CB_CHECK(p->memcpy_count == 1 && p->memset_count == 1);
    CB_CHECK(p->memcpy_src_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
    CB_CHECK(p->memcpy_dst_kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    CB_CHECK(p->dropped == 0);
}

/* The filled point, read into the records by `add`, joins to what
 * check_point expects; freeing the point clears it. */
static void check_filled_point_joins(int (*add)(cb_cupti_records *, buf *))
{
    static buf b;
    fill_point(&b);
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(join_buffer(&b, add, 100, 3, 0, &p, &why) == CB_OK);
    check_point(&p);
    cb_cupti_point_free(&p);
    CB_CHECK(p.gpu_s == NULL && p.records == NULL);
}

static void test_join_in_order(void)
{
    check_filled_point_joins(add_with_array);
}

/* What cuptiActivityGetNextRecord reads from a packed buffer is what the
 * array holds: the packing matches CUPTI's. */
static void test_real_walker(void)
{
    check_filled_point_joins(add_with_cupti);
}

/* Reversed, and split over three buffers so that GPU records come before the
 * correlation records that attribute them. */
static void test_join_out_of_order_across_buffers(void)
{
    static buf all, parts[3];
    fill_point(&all);
    for (int i = 0; i < 3; i++)
        memset(&parts[i], 0, sizeof parts[i]);
    for (int i = all.n - 1, k = 0; i >= 0; i--, k++) {
        const CUpti_Activity *rec = all.recs[i];
        size_t size = rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                          ? sizeof(CUpti_ActivityKernel10)
                      : rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY ? sizeof(CUpti_ActivityMemcpy6)
                      : rec->kind == CUPTI_ACTIVITY_KIND_MEMSET ? sizeof(CUpti_ActivityMemset4)
                      : rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
                          ? sizeof(CUpti_ActivityExternalCorrelation)
                          : sizeof(CUpti_ActivityAPI);
        put(&parts[k % 3], rec, size);
    }
    cb_cupti_records *r = cb_cupti_records_new();
    int n = 0;
    for (int i = 0; i < 3; i++)
        n += add_with_cupti(r, &parts[i]);
    CB_CHECK(n == all.n);
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(cb_cupti_records_join(r, 100, 3, 0, &p, &why) == CB_OK);
    check_point(&p);
    cb_cupti_point_free(&p);
    cb_cupti_records_free(r);
}

static void test_dropped_fails(void)
{
    static buf b;
    fill_point(&b);
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(join_buffer(&b, add_with_array, 100, 3, 5, &p, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "dropped") != NULL);
    CB_CHECK(p.dropped == 5);
    CB_CHECK(p.records[0] == 2); /* still filled, for the log */
    cb_cupti_point_free(&p);
}

/* A buffer that cannot be walked to its end loses records: fail too. */
static void test_unreadable_buffer_fails(void)
{
    static buf b;
    fill_point(&b);
    cb_cupti_records *r = cb_cupti_records_new();
    g_walk_fail_at = 4;
    CB_CHECK(add_with_array(r, &b) == 4);
    g_walk_fail_at = -1;
    CB_CHECK(cb_cupti_records_lost(r) == 1);
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(cb_cupti_records_join(r, 100, 3, 0, &p, &why) == CB_FAIL);
    CB_CHECK(p.dropped == 1);
    cb_cupti_point_free(&p);
    /* clear starts the next point clean */
    cb_cupti_records_clear(r);
    CB_CHECK(cb_cupti_records_lost(r) == 0);
    CB_CHECK(cb_cupti_records_join(r, 100, 3, 0, &p, &why) == CB_OK);
    CB_CHECK(p.records[0] == 0 && isnan(p.gpu_s[0]) && p.kernels[0] == '\0');
    cb_cupti_point_free(&p);
    cb_cupti_records_free(r);
}

static void test_untimed_fails(void)
{
    static buf b;
    memset(&b, 0, sizeof b);
    ext(&b, 1, 7);
    kernel(&b, 1, 0, 0, "k");
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(join_buffer(&b, add_with_array, 7, 1, 0, &p, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "timestamps") != NULL);
    cb_cupti_point_free(&p);
}

/* Memcpy attributed through its runtime correlation id; mixed kinds; a
 * sample with nothing; NVTX markers counted (starts only); names in order
 * of first execution, one entry per demangled name. */
static void test_kinds_names_markers(void)
{
    static buf b;
    memset(&b, 0, sizeof b);
    ext(&b, 50, 1);                         /* runtime call 50 ...      */
    memcpy_rec(&b, 51, 50, 100, 200, 1, 3); /* ... its driver copy, 51  */
    ext(&b, 52, 1);
    memcpy_rec(&b, 52, 52, 300, 500, 2, 3);
    ext(&b, 53, 3); /* sample 2 stays empty     */
    kernel(&b, 53, 900, 1000, "_Z4latePf");
    ext(&b, 54, 3);
    kernel(&b, 54, 600, 700, "_Z5earlyPf");
    ext(&b, 55, 3);
    kernel(&b, 55, 800, 850, "_Z5earlyPi"); /* same name, other overload */
    marker(&b, CUPTI_ACTIVITY_FLAG_MARKER_START, "vecadd/x n=1");
    marker(&b, CUPTI_ACTIVITY_FLAG_MARKER_END, NULL);
    marker(&b, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, "mark");
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(join_buffer(&b, add_with_cupti, 1, 3, 0, &p, &why) == CB_OK);
    CB_CHECK(p.records[0] == 2 && NEAR(p.gpu_s[0], 300 * NS));
    CB_CHECK(p.memcpy_src_kind == -1 && p.memcpy_dst_kind == 3);
    CB_CHECK(p.records[1] == 0 && isnan(p.gpu_s[1]));
    CB_CHECK(p.records[2] == 3 && NEAR(p.gpu_s[2], 250 * NS));
    CB_CHECK_STR(p.kernels, "early|late");
    CB_CHECK(p.nvtx_ranges == 2);
    cb_cupti_point_free(&p);
}

/* More kernel names than fit in 256 characters: cut at a name, marked. */
static void test_kernel_list_overflow(void)
{
    static buf b;
    memset(&b, 0, sizeof b);
    static char names[40][40];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "kernel_number_%02d", i);
        ext(&b, (uint32_t)(i + 1), 1);
        kernel(&b, (uint32_t)(i + 1), (uint64_t)(100 + i), (uint64_t)(101 + i), names[i]);
    }
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(join_buffer(&b, add_with_array, 1, 1, 0, &p, &why) == CB_OK);
    size_t n = strlen(p.kernels);
    CB_CHECK(n < sizeof p.kernels);
    CB_CHECK(n >= 4 && strcmp(p.kernels + n - 4, "|...") == 0);
    CB_CHECK(strncmp(p.kernels, "kernel_number_00|kernel_number_01|", 34) == 0);
    CB_CHECK(p.records[0] == 40 && NEAR(p.gpu_s[0], 40 * NS));
    cb_cupti_point_free(&p);
}

/* Many samples and records: the store grows past its first allocation. */
static void test_many_records(void)
{
    cb_cupti_records *r = cb_cupti_records_new();
    enum { SAMPLES = 500, PER = 20 };
    uint32_t corr = 1;
    for (int s = 0; s < SAMPLES; s++) {
        static buf b;
        memset(&b, 0, sizeof b);
        for (int k = 0; k < PER; k++, corr++) {
            ext(&b, corr, 1000 + (uint64_t)s);
            kernel(&b, corr, 10 * (uint64_t)corr, 10 * (uint64_t)corr + 7, "_Z1kv");
        }
        add_with_cupti(r, &b);
    }
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(cb_cupti_records_join(r, 1000, SAMPLES, 0, &p, &why) == CB_OK);
    int good = 0;
    for (int s = 0; s < SAMPLES; s++)
        good += p.records[s] == PER && NEAR(p.gpu_s[s], PER * 7 * NS);
    CB_CHECK(good == SAMPLES);
    CB_CHECK(p.kernel_count == SAMPLES * PER);
    CB_CHECK_STR(p.kernels, "k");
    cb_cupti_point_free(&p);
    cb_cupti_records_free(r);
}

int main(void)
{
    test_demangle();
    test_join_in_order();
    test_real_walker();
    test_join_out_of_order_across_buffers();
    test_dropped_fails();
    test_unreadable_buffer_fails();
    test_untimed_fails();
    test_kinds_names_markers();
    test_kernel_list_overflow();
    test_many_records();
    return cb_test_finish("test_cupti_records");
}
