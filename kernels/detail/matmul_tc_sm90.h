/* matmul_tc_sm90.h - the Hopper building blocks of the WGMMA rungs (CUDA
 * C++, included only by the *_sm90a.cu files): mbarriers, TMA tile loads,
 * wgmma with shared-memory descriptors, setmaxnreg, and the pieces both
 * Hopper kernels share (loading a stage, one k-slice of wgmmas for one
 * consumer warpgroup, the epilogue).
 *
 * Everything that needs sm_90a is compiled only when the device pass has
 * it (__CUDA_ARCH_FEAT_SM90_ALL, set by -gencode arch=compute_90a,...); in
 * any other pass the kernels are empty, and cb_tc_supported refuses them
 * ("built without sm_90a") before they could run.
 *
 * Shared-memory tiles (all 128-byte swizzled, see matmul_tc_layout.h):
 *   A   BM rows of one 128-byte k-slice (64 BF16 or 32 FP32): K-major;
 *   B   BF16: BN / 64 blocks, each BK = 64 rows (k) of 64 columns (n), i.e.
 *       MN-major, read with imm-trans-b = 1 (row-major B as it is);
 *       TF32: BN rows (n) of one 32-float k-slice of B^T: K-major (wgmma
 *       transposes only 16-bit types, so the run transposes B first).
 * One TMA box per operand block lands each of them, and TMA's 128-byte
 * swizzle is the pattern the descriptors declare (mode 1), with every
 * stage 1024-byte aligned so the pattern's phase is 0 (base offset 0).
 */
#ifndef CB_MATMUL_TC_SM90_H
#define CB_MATMUL_TC_SM90_H

#include "matmul_tc_plan.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CB_TC_SM90A_DEVICE 1
#else
#define CB_TC_SM90A_DEVICE 0
#endif

/* ---- mbarriers (count arrivals; TMA adds the bytes it delivers) ---- */

__device__ __forceinline__ void cb_mbar_init(uint64_t *bar, uint32_t count)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(cb_tc_smem_addr(bar)), "r"(count)
                 : "memory");
#endif
}

/* Make the initialised barriers visible to the async proxy (TMA) and to
 * the other threads (with the __syncthreads that follows). */
__device__ __forceinline__ void cb_mbar_init_fence()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* One arrival that also announces `bytes` of TMA traffic for this phase. */
__device__ __forceinline__ void cb_mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
#if CB_TC_SM90A_DEVICE
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cb_tc_smem_addr(bar)),
        "r"(bytes)
        : "memory");
#endif
}

__device__ __forceinline__ void cb_mbar_arrive(uint64_t *bar)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(cb_tc_smem_addr(bar)) : "memory");
#endif
}

/* Wait until the phase of parity `parity` has completed. A fresh barrier
 * is in phase 0, and parity 1 then names the (complete) phase before it:
 * a producer's first wait on an "empty" barrier passes at once. */
__device__ __forceinline__ void cb_mbar_wait(uint64_t *bar, uint32_t parity)
{
#if CB_TC_SM90A_DEVICE
    const uint32_t addr = cb_tc_smem_addr(bar);
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}

/* ---- TMA: a 2D box of `map` at element coordinates (x inner, y outer)
 * into shared memory at `dst`, completing on `bar` ---- */

__device__ __forceinline__ void cb_tma_load_2d(uint32_t dst, const CUtensorMap *map, uint64_t *bar,
                                               int x, int y)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(cb_tc_smem_addr(bar)), "r"(x), "r"(y)
                 : "memory");
#endif
}

/* ---- clusters (rung 5: two CTAs that share B) ---- */

__device__ __forceinline__ uint32_t cb_cluster_ctarank()
{
    uint32_t r = 0;
#if CB_TC_SM90A_DEVICE
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
}

/* Every thread of every CTA of the cluster arrives, then waits for all. */
__device__ __forceinline__ void cb_cluster_sync()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
#endif
}

/* Arrive on the barrier at the same shared-memory offset in CTA `cta` of
 * the cluster. Default (.release.cta) semantics, as the local arrive: what
 * the arrival publishes is that this warp's wgmmas finished reading the
 * stage, and those reads are complete at wgmma.wait_group; an explicit
 * .release.cluster costs a MEMBAR.ALL.GPU per arrival (seen in the SASS). */
__device__ __forceinline__ void cb_mbar_arrive_cluster(uint64_t *bar, uint32_t cta)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .b32 ra;\n"
                 "mapa.shared::cluster.u32 ra, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(cb_tc_smem_addr(bar)),
                 "r"(cta)
                 : "memory");
#endif
}

/* cb_mbar_wait for a barrier that other CTAs of the cluster arrive on. */
__device__ __forceinline__ void cb_mbar_wait_cluster(uint64_t *bar, uint32_t parity)
{
#if CB_TC_SM90A_DEVICE
    const uint32_t addr = cb_tc_smem_addr(bar);
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}

/* cb_tma_load_2d into the same offset of every CTA in `cta_mask`, each
 * copy completing on the barrier at `bar`'s offset in its own CTA. */
__device__ __forceinline__ void cb_tma_load_2d_multicast(uint32_t dst, const CUtensorMap *map,
                                                         uint64_t *bar, int x, int y,
                                                         uint16_t cta_mask)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(cb_tc_smem_addr(bar)), "r"(x), "r"(y),
                 "h"(cta_mask)
                 : "memory");
#endif
}

/* ---- wgmma bookkeeping ---- */

__device__ __forceinline__ void cb_wgmma_fence()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void cb_wgmma_commit()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}

/* Wait until at most N committed groups are still running. */
template <int N> __device__ __forceinline__ void cb_wgmma_wait()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#endif
}

/* Tell the compiler the accumulators may have changed here (wgmma writes
 * them asynchronously): no read of them moves above a wait. */
template <int R> __device__ __forceinline__ void cb_wgmma_fence_regs(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

template <int R> __device__ __forceinline__ void cb_setmaxnreg_inc()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
#endif
}

template <int R> __device__ __forceinline__ void cb_setmaxnreg_dec()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
#endif
}

/* ---- wgmma.mma_async m64nNk16 (BF16) / m64nNk8 (TF32), A and B from
 * shared memory, D (FP32) in registers: D = A B + (scale_d ? D : 0).
 * imm-scale-a/b = 1 (no negation); BF16 A is K-major (imm-trans-a 0) and B
 * K-major (TRANS_B 0) or MN-major (TRANS_B 1). ---- */

template <int TRANS_B>
__device__ __forceinline__ void cb_wgmma_bf16_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1, 0, %67;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_B));
#endif
}

template <int TRANS_B>
__device__ __forceinline__ void cb_wgmma_bf16_n256(float (&d)[128], uint64_t desc_a,
                                                   uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, "
        "%73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
        "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, "
        "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "
        "%122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, %131;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_B));
#endif
}

__device__ __forceinline__ void cb_wgmma_tf32_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, "
                 "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "
                 "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "%64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_tf32_n256(float (&d)[128], uint64_t desc_a,
                                                   uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, "
        "%37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, "
        "%55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, "
        "%73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "
        "%91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, "
        "%107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "
        "%122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
          "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
          "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
          "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

/* ---- the pieces both Hopper kernels share ---- */

template <cb_tc_precision P, int BM, int BN> struct cb_wg_cfg {
    static constexpr int ESIZE = P == CB_TC_BF16 ? 2 : 4;
    static constexpr int BK = 128 / ESIZE;                 /* k per stage: one 128-byte row */
    static constexpr int KSTEP = P == CB_TC_BF16 ? 16 : 8; /* k per wgmma */
    static constexpr int STAGE_A = BM * 128, STAGE_B = BN * 128;
    static constexpr int STAGE = STAGE_A + STAGE_B;
    static_assert(BN % 64 == 0 && BN <= 256 && BM % 64 == 0, "wgmma tile shape");
};

/* Issue the TMA loads of k-slice kt of the tile at (bm, bn) into the stage
 * at (sa, sb), arming `full` with the bytes they will deliver. The byte
 * count is the whole boxes': TMA writes zeros for the parts outside the
 * matrix and counts them too. */
template <cb_tc_precision P, int BM, int BN>
__device__ __forceinline__ void cb_wg_load_stage(uint32_t sa, uint32_t sb, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int bm, int bn, int kt)
{
    typedef cb_wg_cfg<P, BM, BN> C;
    cb_mbar_expect_tx(full, C::STAGE);
    cb_tma_load_2d(sa, map_a, full, kt * C::BK, bm); /* box: BK x BM */
    if constexpr (P == CB_TC_BF16) {
#pragma unroll
        for (int j = 0; j < BN / 64; j++) /* box: 64 n x BK k, one per 64 columns */
            cb_tma_load_2d(sb + j * C::BK * 128, map_b, full, bn + j * 64, kt * C::BK);
    } else {
        cb_tma_load_2d(sb, map_b, full, kt * C::BK, bn); /* B^T, box: 32 k x BN n */
    }
}

/* The wgmmas of one k-slice for one consumer warpgroup: its 64 rows of A
 * (at sa) times the stage's B (at sb). The descriptors step through the
 * slice: 32 bytes along a K-major row per k-step (16 BF16 / 8 TF32), or 16
 * rows of 128 bytes down an MN-major block. `accumulate` false starts the
 * sums (the first slice of a tile). */
template <cb_tc_precision P, int BN>
__device__ __forceinline__ void cb_wg_mma_slice(float (&acc)[BN / 2], uint32_t sa, uint32_t sb,
                                                bool accumulate)
{
    constexpr int BK = P == CB_TC_BF16 ? 64 : 32, KSTEP = P == CB_TC_BF16 ? 16 : 8;
#pragma unroll
    for (int kk = 0; kk < BK / KSTEP; kk++) {
        const uint32_t scale_d = accumulate || kk > 0 ? 1u : 0u;
        const uint64_t da = cb_tc_desc(sa + kk * 32, 16, 1024, CB_TC_SWIZZLE_128B);
        if constexpr (P == CB_TC_BF16) {
            const uint64_t db =
                cb_tc_desc(sb + kk * KSTEP * 128, BK * 128, 1024, CB_TC_SWIZZLE_128B);
            if constexpr (BN == 256)
                cb_wgmma_bf16_n256<1>(acc, da, db, scale_d);
            else
                cb_wgmma_bf16_n128<1>(acc, da, db, scale_d);
        } else {
            const uint64_t db = cb_tc_desc(sb + kk * 32, 16, 1024, CB_TC_SWIZZLE_128B);
            if constexpr (BN == 256)
                cb_wgmma_tf32_n256(acc, da, db, scale_d);
            else
                cb_wgmma_tf32_n128(acc, da, db, scale_d);
        }
    }
}

/* Write one consumer warpgroup's 64 x BN accumulators at (row0, col0):
 * warp w of the group holds rows 16w .. 16w+15, and every 8 columns the
 * m16n8 accumulator layout repeats (acc[4j .. 4j+3] for columns 8j ..). */
template <int BN>
__device__ __forceinline__ void cb_wg_store(const cb_tc_args &g, const float (&acc)[BN / 2],
                                            int row0, int col0)
{
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32 % 4;
    const int row = row0 + w * 16 + lane / 4, col = col0 + 2 * (lane % 4);
    const bool even_n = g.n % 2 == 0;
    if (g.beta == 0.0f && even_n && row0 + 64 <= g.m && col0 + BN <= g.n) {
        /* The common case, a whole tile and no C to read: no checks. */
        float *p = g.c + (size_t)row * g.n + col, *p8 = p + (size_t)8 * g.n;
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            *reinterpret_cast<float2 *>(p + 8 * j) =
                make_float2(g.alpha * acc[4 * j], g.alpha * acc[4 * j + 1]);
            *reinterpret_cast<float2 *>(p8 + 8 * j) =
                make_float2(g.alpha * acc[4 * j + 2], g.alpha * acc[4 * j + 3]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        cb_tc_store_pair(g, even_n, row, col + 8 * j, acc[4 * j], acc[4 * j + 1]);
        cb_tc_store_pair(g, even_n, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

/* Round the dynamic shared memory up to the 1024-byte alignment the
 * 128-byte swizzle pattern repeats at (the launch asks for 1 KiB extra). */
__device__ __forceinline__ uint8_t *cb_wg_align_smem(uint8_t *raw)
{
    const uint32_t a = cb_tc_smem_addr(raw);
    return raw + ((1024u - (a & 1023u)) & 1023u);
}

#endif
