/* blas_info.c - the BLAS in this process, from the vendors' own queries. */
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr */
#include "blas_info.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef char *(*cb_str_fn)(void);
typedef int (*cb_int_fn)(void);
typedef void (*cb_set_int_fn)(int);
typedef void (*cb_version_buf_fn)(char *, int);

bool cb_blas_load(char *why, size_t len)
{
#ifdef CB_BLAS_LIBRARY
    /* The library the build found, then the sonames a machine running a
     * copied binary is likely to have. */
    static const char *const candidates[] = {CB_BLAS_LIBRARY, "libopenblas.so.0", "libblas.so.3"};
    static void *handle;
    static bool tried;
    static char error[256];
    if (!tried) {
        tried = true;
        for (size_t i = 0; !handle && i < sizeof candidates / sizeof *candidates; i++) {
            handle = dlopen(candidates[i], RTLD_NOW | RTLD_GLOBAL);
            if (!handle && i == 0)
                snprintf(error, sizeof error, "cannot load %s: %s", candidates[0], dlerror());
        }
    }
    if (!handle && why) snprintf(why, len, "%s", error);
    return handle != NULL;
#else
    if (why) snprintf(why, len, "built without a BLAS (scripts/setup.sh installs OpenBLAS)");
    return false;
#endif
}

cb_cblas_sgemm_fn cb_blas_sgemm(void)
{
    return (cb_cblas_sgemm_fn)dlsym(RTLD_DEFAULT, "cblas_sgemm");
}

/* A function of the loaded libraries by name; NULL when none has it. */
static void *lookup(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

static void copy_trimmed(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
    size_t n = strlen(dst);
    while (n > 0 && (dst[n - 1] == ' ' || dst[n - 1] == '\n'))
        dst[--n] = '\0';
}

static void read_openblas(cb_blas_info *b, cb_str_fn config)
{
    snprintf(b->vendor, sizeof b->vendor, "OpenBLAS");
    b->optimized = true;
    copy_trimmed(b->version, sizeof b->version, config());
    cb_str_fn core = (cb_str_fn)lookup("openblas_get_corename");
    if (core) copy_trimmed(b->core, sizeof b->core, core());
    cb_int_fn threads = (cb_int_fn)lookup("openblas_get_num_threads");
    if (threads) b->threads = threads();
}

void cb_blas_info_read(cb_blas_info *b)
{
    memset(b, 0, sizeof *b);
    void *sgemm = lookup("cblas_sgemm");
    if (!sgemm) {
        snprintf(b->vendor, sizeof b->vendor, "none");
        return;
    }
    b->loaded = true;
    Dl_info where;
    if (dladdr(sgemm, &where) && where.dli_fname)
        snprintf(b->library, sizeof b->library, "%s", where.dli_fname);

    cb_str_fn openblas = (cb_str_fn)lookup("openblas_get_config");
    cb_version_buf_fn mkl = (cb_version_buf_fn)lookup("mkl_get_version_string");
    cb_str_fn blis = (cb_str_fn)lookup("bli_info_get_version_str");
    if (openblas) {
        read_openblas(b, openblas);
    } else if (mkl) {
        snprintf(b->vendor, sizeof b->vendor, "Intel MKL");
        b->optimized = true;
        mkl(b->version, (int)sizeof b->version);
        cb_int_fn threads = (cb_int_fn)lookup("mkl_get_max_threads");
        if (threads) b->threads = threads();
    } else if (blis) {
        snprintf(b->vendor, sizeof b->vendor, "BLIS");
        b->optimized = true;
        copy_trimmed(b->version, sizeof b->version, blis());
    } else if (strstr(b->library, "/blas/") || strstr(b->library, "libblas.so") ||
               strstr(b->library, "libcblas.so")) {
        /* No tuned vendor's query function in a plain libblas / libcblas
         * (Debian's .../blas/libblas.so.3): the netlib reference, a
         * single-threaded triple loop. */
        snprintf(b->vendor, sizeof b->vendor, "netlib reference");
        snprintf(b->version, sizeof b->version, "reference BLAS/CBLAS (unoptimized)");
        b->threads = 1;
    } else {
        snprintf(b->vendor, sizeof b->vendor, "unknown");
    }
}

bool cb_blas_set_threads(int threads)
{
    if (threads < 1) return false;
    cb_set_int_fn set = (cb_set_int_fn)lookup("openblas_set_num_threads");
    if (!set) set = (cb_set_int_fn)lookup("MKL_Set_Num_Threads");
    if (set) {
        set(threads);
        return true;
    }
    /* BLIS takes a dim_t (64-bit). */
    void (*blis)(long long) = (void (*)(long long))lookup("bli_thread_set_num_threads");
    if (blis) blis(threads);
    return blis != NULL;
}

void cb_blas_describe(const cb_blas_info *b, char *buf, size_t len)
{
    if (!b->loaded) {
        snprintf(buf, len, "no BLAS loaded");
        return;
    }
    if (!b->optimized) {
        if (strcmp(b->vendor, "netlib reference") == 0)
            snprintf(buf, len, "netlib reference BLAS (unoptimized, 1 thread)");
        else
            snprintf(buf, len, "unknown BLAS %.100s", b->library);
        return;
    }
    /* OpenBLAS's config starts with its name and version: keep those two
     * words ("OpenBLAS 0.3.21"); the build options follow. */
    char head[64];
    int words = 0;
    size_t i = 0;
    for (; b->version[i] && i + 1 < sizeof head; i++) {
        if (b->version[i] == ' ' && ++words == 2) break;
        head[i] = b->version[i];
    }
    head[i] = '\0';
    const char *name = head[0] ? head : b->vendor;
    char threads[32] = "";
    if (b->threads > 0)
        snprintf(threads, sizeof threads, "%d thread%s", b->threads, b->threads == 1 ? "" : "s");
    if (b->core[0])
        snprintf(buf, len, "%s (%s kernels%s%s)", name, b->core, threads[0] ? ", " : "", threads);
    else if (threads[0])
        snprintf(buf, len, "%s (%s)", name, threads);
    else
        snprintf(buf, len, "%s", name);
}
