/* test_cpu_reference.c - the CPU baselines say what they ran on: the BLAS
 * behind matmul/host_cblas as the process really loaded it (vendor,
 * version, kernels, live thread count, library), the vector ISA and cores
 * of host_blocked and vecadd/host, and meta.json's `cpu_baselines` and
 * `build` blocks carrying the same facts. With OpenBLAS found at configure
 * time (scripts/setup.sh installs it) the reference must be OpenBLAS and
 * optimized: a build that fell back to the netlib reference fails here. */
/* test links: cubench_engine cubench_bench cubench_build_info */
#include "blas_info.h"
#include "build_info.h"
#include "cpu_isa.h"
#include "families.h"
#include "gpu_test_util.h"
#include "meta.h"

#include <stdlib.h>
#include <unistd.h>

/* setup -> run -> verify of a host benchmark at one point; the note back. */
static cb_status run_host(const char *name, const char *const *values, int threads, char *note,
                          size_t len)
{
    const cb_bench *b = cb_registry_find(name);
    CB_CHECK(b != NULL);
    if (!b) return CB_FAIL;
    cb_point p;
    if (!cb_test_point(b, NULL, values, &p)) return CB_FAIL;
    cb_bench_ctx ctx = {.seed = 7, .host_threads = threads};
    cb_point_info info = {.occupancy = -1};
    void *state = NULL;
    cb_msg why = {{0}};
    double err = 0;
    cb_status st = b->setup(&p, &ctx, &state, &info, &why);
    if (st == CB_OK) st = b->run(state, NULL, &why);
    if (st == CB_OK) st = b->verify(state, &err, &why);
    if (state) b->teardown(state);
    snprintf(note, len, "%s", st == CB_OK ? info.note : why.text);
    printf("  %s threads=%d: %s, note \"%s\"\n", name, threads, cb_status_name(st), note);
    return st;
}

static void test_isa(void)
{
    char features[128];
    cb_cpu_isa_features(features, sizeof features);
    const char *isa = cb_cpu_isa_dispatched();
    printf("  CPU ISA: dispatched %s, supported {%s}\n", isa, features);
#if defined(__x86_64__)
    CB_CHECK(strstr(features, "sse2") != NULL); /* every x86-64 CPU */
    /* The clone in use is one the CPU supports. */
    CB_CHECK(strstr(features, isa) != NULL);
    CB_CHECK(strcmp(isa, "avx512f") == 0 || strcmp(isa, "avx2") == 0 || strcmp(isa, "sse2") == 0);
#else
    CB_CHECK(isa[0] != '\0');
#endif
}

static void test_notes(void)
{
    char note[160], want[64];
    snprintf(want, sizeof want, "of %ld cores, %s code", sysconf(_SC_NPROCESSORS_ONLN),
             cb_cpu_isa_dispatched());
    const char *mm[] = {"128", "m", "m"};
    CB_CHECK_EQ_INT(run_host("matmul/host_blocked", mm, 2, note, sizeof note), CB_OK);
    CB_CHECK(strstr(note, want) != NULL);
    const char *va[] = {"300000", "2"};
    CB_CHECK_EQ_INT(run_host("vecadd/host", va, 2, note, sizeof note), CB_OK);
    CB_CHECK(strstr(note, "2 threads") != NULL && strstr(note, want) != NULL);
}

static void test_blas(void)
{
    /* The BLAS is opened when a host BLAS benchmark first needs it, not at
     * start-up: a process that multiplies nothing on the CPU never starts
     * its thread pool (blas_info.h). */
    cb_blas_info before;
    cb_blas_info_read(&before);
    CB_CHECK(!before.loaded);
    char note[160];
    const char *mm[] = {"64", "m", "m"};
    cb_status st = run_host("matmul/host_cblas", mm, 2, note, sizeof note);
    cb_blas_info b;
    cb_blas_info_read(&b);
    printf("  BLAS: %s %s, core %s, %d threads, %s (linked at build: %s)\n", b.vendor, b.version,
           b.core, b.threads, b.library, CB_BLAS_LIBRARIES);
    if (strcmp(CB_BLAS_VENDOR_FOUND, "none") != 0) {
        CB_CHECK_EQ_INT(st, CB_OK);
        CB_CHECK(b.loaded);
        CB_CHECK(b.library[0] == '/');
        char what[128];
        cb_blas_describe(&b, what, sizeof what);
        CB_CHECK(strstr(note, what) != NULL || strstr(note, b.vendor) != NULL);
        if (strcmp(CB_BLAS_VENDOR_FOUND, "OpenBLAS") == 0) {
            CB_CHECK_STR(b.vendor, "OpenBLAS");
            CB_CHECK(b.optimized);
            CB_CHECK(strncmp(b.version, "OpenBLAS", 8) == 0);
            CB_CHECK(b.core[0] != '\0');
            CB_CHECK(strstr(note, "OpenBLAS") != NULL);
            /* The thread count is read live: host_cblas set it to 2 above. */
            CB_CHECK_EQ_INT(b.threads, 2);
            CB_CHECK(cb_blas_set_threads(1));
            cb_blas_info_read(&b);
            CB_CHECK_EQ_INT(b.threads, 1);
            cb_blas_describe(&b, what, sizeof what);
            CB_CHECK(strstr(what, "1 thread)") != NULL);
        }
    } else {
        CB_CHECK_EQ_INT(st, CB_SKIP);
        CB_CHECK(!b.loaded);
    }
    /* Described faithfully whatever it is. */
    cb_blas_info fake = {.loaded = true, .optimized = false};
    snprintf(fake.vendor, sizeof fake.vendor, "netlib reference");
    char line[128];
    cb_blas_describe(&fake, line, sizeof line);
    CB_CHECK_STR(line, "netlib reference BLAS (unoptimized, 1 thread)");
    fake = (cb_blas_info){.loaded = true, .optimized = true, .threads = 8};
    snprintf(fake.vendor, sizeof fake.vendor, "OpenBLAS");
    snprintf(fake.version, sizeof fake.version, "OpenBLAS 0.3.26 DYNAMIC_ARCH SkylakeX");
    snprintf(fake.core, sizeof fake.core, "SkylakeX");
    cb_blas_describe(&fake, line, sizeof line);
    CB_CHECK_STR(line, "OpenBLAS 0.3.26 (SkylakeX kernels, 8 threads)");
    fake = (cb_blas_info){.loaded = false};
    cb_blas_describe(&fake, line, sizeof line);
    CB_CHECK_STR(line, "no BLAS loaded");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_meta(const char *dir)
{
    cb_run_config cfg;
    cb_run_config_defaults(&cfg);
    cfg.host_threads = 3;
    cb_meta m = {.started = 1700000000, .cfg = &cfg};
    cb_msg err = {{0}};
    CB_CHECK(cb_meta_write(dir, &m, &err));
    char path[600];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    const char *json = slurp(path);
    CB_CHECK(json != NULL);
    if (!json) return;
    cb_blas_info b;
    cb_blas_info_read(&b);
    char want[700];
    CB_CHECK(strstr(json, "\"cpu_baselines\": {") != NULL);
    CB_CHECK(strstr(json, "\"threads\": 3") != NULL);
    snprintf(want, sizeof want, "\"isa\": \"%s\"", cb_cpu_isa_dispatched());
    CB_CHECK(strstr(json, want) != NULL);
    snprintf(want, sizeof want, "\"vendor\": \"%s\"", b.vendor);
    CB_CHECK(strstr(json, want) != NULL);
    snprintf(want, sizeof want, "\"optimized\": %s", b.optimized ? "true" : "false");
    CB_CHECK(strstr(json, want) != NULL);
    if (b.library[0]) {
        snprintf(want, sizeof want, "\"library\": \"%s\"", b.library);
        CB_CHECK(strstr(json, want) != NULL);
    }
    /* The build block: configured list, its SASS / PTX split, the toolkit. */
    snprintf(want, sizeof want, "\"cuda_architectures\": \"%s\"", CB_CUDA_ARCHITECTURES);
    CB_CHECK(strstr(json, want) != NULL);
    CB_CHECK(strstr(json, "\"sass_architectures\": [") != NULL);
    CB_CHECK(strstr(json, "\"ptx_architectures\": [") != NULL);
    snprintf(want, sizeof want, "\"cuda_toolkit_version\": \"%s\"", CB_CUDA_TOOLKIT_VERSION);
    CB_CHECK(strstr(json, want) != NULL);
    const char *first = CB_CUDA_SASS_ARCHS;
    if (first[0]) {
        snprintf(want, sizeof want, "\"sm_%.*s\"", (int)strcspn(first, ","), first);
        CB_CHECK(strstr(json, want) != NULL);
    }
}

int main(void)
{
    char dir[] = "/tmp/cb_test_cpu_reference_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    test_isa();
    test_notes();
    test_blas();
    test_meta(dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CB_CHECK(system(cmd) == 0);
    return cb_test_finish("test_cpu_reference");
}
