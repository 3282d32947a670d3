/* blas_info.h - which BLAS the CPU reference (matmul/host_cblas) runs on.
 *
 * Asked of the running process, not of the build: on Debian/Ubuntu the
 * libblas.so.3 a binary loads is an alternatives link that may point at
 * OpenBLAS or at the netlib reference, whatever the build linked. The
 * engine links no BLAS; it looks the vendors' own query functions up in
 * what is loaded (dlsym), so a binary without a BLAS reports none.
 *
 * The build does not link the BLAS either: cb_blas_load opens the one the
 * build found (CB_BLAS_LIBRARY) the first time a host BLAS benchmark or
 * `cubench env` needs it. A process that never multiplies on the CPU then
 * never starts OpenBLAS's thread pool, whose start and shutdown hang a
 * process under a small address-space limit (ulimit -v 1 GiB). */
#ifndef CB_BLAS_INFO_H
#define CB_BLAS_INFO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cb_blas_info {
    bool loaded;       /* cblas_sgemm is in the process                      */
    bool optimized;    /* a tuned BLAS (OpenBLAS, MKL, BLIS), not netlib's    */
    char vendor[32];   /* "OpenBLAS", "Intel MKL", "BLIS", "netlib reference" */
    char version[256]; /* the vendor's own words: openblas_get_config()       */
    char core[64];     /* kernels in use: openblas_get_corename() "Haswell"   */
    int threads;       /* threads it will use: openblas_get_num_threads(); 0 unknown */
    char library[512]; /* the shared object that holds cblas_sgemm           */
} cb_blas_info;

void cb_blas_info_read(cb_blas_info *b);

/* Load the BLAS the build found, once (RTLD_GLOBAL, so the queries above
 * see it). False with the reason when there is none or it cannot load. */
bool cb_blas_load(char *why, size_t len);

/* cblas_sgemm of the loaded BLAS, or NULL (call cb_blas_load first). The
 * CBLAS enums are plain ints here: the engine includes no BLAS header. */
typedef void (*cb_cblas_sgemm_fn)(int order, int trans_a, int trans_b, int m, int n, int k,
                                  float alpha, const float *a, int lda, const float *b, int ldb,
                                  float beta, float *c, int ldc);
cb_cblas_sgemm_fn cb_blas_sgemm(void);

/* Ask the BLAS to use `threads` threads (openblas_set_num_threads, ...);
 * false when it has no such call. */
bool cb_blas_set_threads(int threads);

/* One line for a row's note: "OpenBLAS 0.3.21 (Haswell kernels, 2 threads)",
 * "netlib reference BLAS (unoptimized, 1 thread)", "no BLAS loaded". */
void cb_blas_describe(const cb_blas_info *b, char *buf, size_t len);

#endif
