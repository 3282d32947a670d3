/* matmul_tc.cu - the tensor-core ladder's public entry points
 * (matmul_tc_kernels.h): what a rung can run, read from its facts; how a
 * product's operands are laid out for it (staging); and plan / run /
 * destroy, which call the rung's own prepare and launch. */
#include "matmul_tc_plan.h"

#include <new>
#include <stdarg.h>

namespace
{

bool cb_tc_refuse(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return false;
}

const char *cb_tc_prec_name(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? "BF16" : prec == CB_TC_TF32 ? "TF32" : "FP8";
}

/* The device and the build, from the rung's facts. */
bool cb_tc_device_ok(const cb_tc_rung *rung, int cc_major, int cc_minor, char *why, size_t len)
{
    const int cc = cc_major * 10 + cc_minor;
    if (cc < rung->min_cc || (rung->max_cc && cc > rung->max_cc))
        return cb_tc_refuse(why, len, "%s needs compute capability %s%d.%d; device is %d.%d",
                            rung->feature,
                            rung->max_cc == rung->min_cc ? "" : ">= ", rung->min_cc / 10,
                            rung->min_cc % 10, cc_major, cc_minor);
    if (rung->sm90a && !cb_tc_sm90a_built())
        return cb_tc_refuse(why, len, "built without sm_90a (CMAKE_CUDA_ARCHITECTURES has no 90)");
    return true;
}

/* The row pitches of a packed product, from the rung's facts. */
bool cb_tc_rows_ok(const cb_tc_rung *rung, cb_tc_precision prec, int n, int k, char *why,
                   size_t len)
{
    if (rung->rows == CB_TC_ROWS_ANY || rung->rows == CB_TC_ROWS_STAGED) return true;
    const int vec = 16 / cb_tc_element_bytes(prec);
    const char *pname = cb_tc_prec_name(prec);
    /* TF32 on a B^T-reading rung: B's rows are the transpose's business. */
    const bool n_too = rung->rows == CB_TC_ROWS_CP_ASYNC || prec != CB_TC_TF32 || !rung->tf32_bt;
    if (k % vec == 0 && (!n_too || n % vec == 0)) return true;
    if (n_too)
        return cb_tc_refuse(why, len,
                            "k=%d n=%d: this %s rung needs k and n multiples of %d (rows of "
                            "16-byte chunks for %s)",
                            k, n, pname, vec,
                            rung->rows == CB_TC_ROWS_CP_ASYNC ? "cp.async" : "TMA");
    return cb_tc_refuse(why, len,
                        "k=%d: the TF32 wgmma rungs need k a multiple of 4 (TMA rows of A and "
                        "B^T in 16-byte steps)",
                        k);
}

/* The grid: 128-row tiles along grid.y, or a persistent grid's tile count. */
bool cb_tc_tiles_ok(const cb_tc_rung *rung, int m, int n, char *why, size_t len)
{
    if (!rung->persistent && (m + 127) / 128 > 65535)
        return cb_tc_refuse(why, len, "m=%d: more than 65535 tile rows of 128", m);
    if (rung->persistent && (long long)((m + 127) / 128) * ((n + 127) / 128) > 0x3fffffff)
        return cb_tc_refuse(why, len, "m=%d n=%d: too many tiles", m, n);
    return true;
}

/* Elements in a row pitch of `cols` elements rounded up to 16 bytes. */
long long cb_tc_padded_pitch(int cols, int esize)
{
    const long long bytes = ((long long)cols * esize + 15) / 16 * 16;
    return bytes / esize;
}

/* Can TMA address rows of `pitch` elements starting at `base`? */
bool cb_tc_tma_rows_ok(const void *base, long long pitch, int esize)
{
    return pitch * esize % 16 == 0 && (uintptr_t)base % 16 == 0;
}

} // namespace

extern "C" int cb_tc_element_bytes(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? 2 : prec == CB_TC_TF32 ? 4 : 1;
}

extern "C" bool cb_tc_supported(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k,
                                int cc_major, int cc_minor, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if (!rung || prec < CB_TC_BF16 || prec >= CB_TC_PRECISIONS)
        return cb_tc_refuse(why, why_len, "no such tensor-core rung or precision");
    if (!(rung->precisions & CB_TC_PREC_BIT(prec)))
        return cb_tc_refuse(why, why_len, "the %s rung has no %s kernel", rung->name,
                            cb_tc_prec_name(prec));
    if (m < 1 || n < 1 || k < 1)
        return cb_tc_refuse(why, why_len, "m=%d n=%d k=%d: each must be at least 1", m, n, k);
    return cb_tc_device_ok(rung, cc_major, cc_minor, why, why_len) &&
           cb_tc_rows_ok(rung, prec, n, k, why, why_len) &&
           cb_tc_tiles_ok(rung, m, n, why, why_len);
}

/* The layout rules (matmul_tc_kernels.h, cb_tc_layout):
 *   - leading dimensions are at least a row; 0 means packed;
 *   - a rung that does not stage takes packed A and B only (its loads
 *     index with k and n);
 *   - a staging rung copies A, or B, when TMA cannot address its rows (a
 *     pitch that is not a multiple of 16 bytes, or a base that is not
 *     16-byte aligned) into rows padded to 16 bytes; the tensor map keeps
 *     the real k and n, so TMA still zero-fills past them and the padding
 *     is never read;
 *   - a rung that reads TF32 B^T has each run transpose B into a workspace
 *     whose rows are padded the same way, from any ldb, so B is never
 *     staged there. */
namespace
{

/* A strict rung: packed A and B, and (cp.async, TMA) 16-byte aligned bases. */
bool cb_tc_strict_ok(const cb_tc_rung *rung, const cb_tc_args *args, const cb_tc_layout *l,
                     int b_cols, char *why, size_t len)
{
    if (l->lda != args->k || l->ldb != b_cols)
        return cb_tc_refuse(why, len,
                            "lda=%d ldb=%d: the %s rung reads packed A and B only (lda=%d, ldb=%d)",
                            l->lda, l->ldb, rung->name, args->k, b_cols);
    /* cp.async and TMA rungs read whole 16-byte chunks from the bases. */
    const bool chunks = rung->rows == CB_TC_ROWS_CP_ASYNC || rung->rows == CB_TC_ROWS_TMA;
    const bool b_read = !l->b_transposed; /* a B^T rung reads B element by element */
    if (chunks && ((uintptr_t)args->a % 16 || (b_read && (uintptr_t)args->b % 16)))
        return cb_tc_refuse(why, len, "the %s rung needs A and B 16-byte aligned", rung->name);
    return true;
}

/* A staging rung: copy each operand TMA cannot address into padded rows. */
void cb_tc_plan_staging(const cb_tc_args *args, int es, int b_rows, int b_cols, cb_tc_layout *l)
{
    if (!cb_tc_tma_rows_ok(args->a, l->lda, es)) {
        l->stage_a = true;
        l->lda_read = (int)cb_tc_padded_pitch(args->k, es);
        l->stage_a_bytes = (size_t)args->m * l->lda_read * es;
    }
    if (!l->b_transposed && !cb_tc_tma_rows_ok(args->b, l->ldb, es)) {
        l->stage_b = true;
        l->ldb_read = (int)cb_tc_padded_pitch(b_cols, es);
        l->stage_b_bytes = (size_t)b_rows * l->ldb_read * es;
    }
}

} // namespace

extern "C" bool cb_tc_layout_plan(const cb_tc_rung *rung, cb_tc_precision prec,
                                  const cb_tc_args *args, cb_tc_layout *out, char *why,
                                  size_t why_len)
{
    *out = cb_tc_layout{};
    const int n = args->n, k = args->k, es = cb_tc_element_bytes(prec);
    const bool fp8 = prec == CB_TC_FP8;
    const int b_rows = fp8 ? n : k, b_cols = fp8 ? k : n; /* FP8: B^T as given */
    out->lda = args->lda ? args->lda : k;
    out->ldb = args->ldb ? args->ldb : b_cols;
    out->ldc = args->ldc ? args->ldc : n;
    if (out->lda < k || out->ldb < b_cols || out->ldc < n)
        return cb_tc_refuse(why, why_len,
                            "lda=%d ldb=%d ldc=%d: each must be at least a row (%d, %d, %d)",
                            out->lda, out->ldb, out->ldc, k, b_cols, n);
    out->lda_read = out->lda;
    out->ldb_read = out->ldb;
    out->b_transposed = prec == CB_TC_TF32 && rung->tf32_bt;
    if (out->b_transposed) {
        out->ldb_read = (int)cb_tc_padded_pitch(k, es);
        out->bt_bytes = (size_t)n * out->ldb_read * es;
    }
    if (rung->rows != CB_TC_ROWS_STAGED)
        return cb_tc_strict_ok(rung, args, out, b_cols, why, why_len);
    cb_tc_plan_staging(args, es, b_rows, b_cols, out);
    return true;
}

extern "C" size_t cb_tc_workspace_bytes(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n,
                                        int k)
{
    cb_tc_args args = {};
    args.m = m, args.n = n, args.k = k;
    cb_tc_layout l;
    if (!rung || !cb_tc_layout_plan(rung, prec, &args, &l, nullptr, 0)) return 0;
    return l.stage_a_bytes + l.stage_b_bytes + l.bt_bytes;
}

namespace
{

/* Allocate what the layout asks for and point the kernel's reads at it. */
cudaError_t cb_tc_plan_buffers(cb_tc_plan *p)
{
    cudaError_t err = cudaSuccess;
    p->a = p->args.a;
    p->b = p->args.b;
    if (p->layout.stage_a_bytes) err = cudaMalloc(&p->stage_a, p->layout.stage_a_bytes);
    if (err == cudaSuccess && p->layout.stage_b_bytes)
        err = cudaMalloc(&p->stage_b, p->layout.stage_b_bytes);
    if (err == cudaSuccess && p->layout.bt_bytes) err = cudaMalloc(&p->bt, p->layout.bt_bytes);
    if (p->stage_a) p->a = p->stage_a;
    if (p->stage_b) p->b = p->stage_b;
    if (p->bt) p->b = p->bt;
    return err;
}

} // namespace

extern "C" cudaError_t cb_tc_plan_create(const cb_tc_rung *rung, cb_tc_precision prec,
                                         const cb_tc_args *args, cb_tc_plan **out,
                                         cb_matmul_launch_info *info)
{
    *out = nullptr;
    int dev = 0, major = 0, minor = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (err != cudaSuccess) return err;
    cb_tc_layout layout;
    if (!cb_tc_supported(rung, prec, args->m, args->n, args->k, major, minor, nullptr, 0) ||
        !cb_tc_layout_plan(rung, prec, args, &layout, nullptr, 0))
        return cudaErrorInvalidValue;
    cb_tc_plan *p = new (std::nothrow) cb_tc_plan();
    if (!p) return cudaErrorMemoryAllocation;
    p->rung = rung;
    p->prec = prec;
    p->args = *args;
    p->layout = layout;
    p->args.lda = layout.lda, p->args.ldb = layout.ldb, p->args.ldc = layout.ldc;
    cb_matmul_launch_info scratch;
    err = cb_tc_plan_buffers(p);
    if (err == cudaSuccess) err = rung->prepare(p, info ? info : &scratch);
    if (err != cudaSuccess) {
        cb_tc_plan_destroy(p);
        return err;
    }
    *out = p;
    return cudaSuccess;
}

extern "C" cudaError_t cb_tc_plan_run(const cb_tc_plan *p, cudaStream_t stream)
{
    if (!p) return cudaErrorInvalidValue;
    const cb_tc_layout &l = p->layout;
    const cb_tc_args &g = p->args;
    const int es = cb_tc_element_bytes(p->prec);
    cudaError_t err = cudaSuccess;
    if (l.stage_a) err = cb_tc_stage_rows(g.a, l.lda, p->stage_a, l.lda_read, g.m, g.k, es, stream);
    if (err == cudaSuccess && l.stage_b) {
        const bool fp8 = p->prec == CB_TC_FP8;
        err = cb_tc_stage_rows(g.b, l.ldb, p->stage_b, l.ldb_read, fp8 ? g.n : g.k, fp8 ? g.k : g.n,
                               es, stream);
    }
    if (err == cudaSuccess && l.b_transposed)
        err = cb_tc_transpose_tf32(static_cast<const float *>(g.b), l.ldb,
                                   static_cast<float *>(p->bt), l.ldb_read, g.k, g.n, stream);
    if (err != cudaSuccess) return err;
    return p->rung->launch(p, stream);
}

extern "C" void cb_tc_plan_destroy(cb_tc_plan *plan)
{
    if (!plan) return;
    /* NULL is fine; errors cannot be acted on here */
    cudaFree(plan->stage_a);
    cudaFree(plan->stage_b);
    cudaFree(plan->bt);
    delete plan;
}
