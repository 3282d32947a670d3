/* matmul_tc_wgmma_ops.h - the wgmma instructions the Hopper rungs issue,
 * one inline-asm wrapper per shape (CUDA C++, sm_90a; included by
 * matmul_tc_sm90.h). Each is
 *
 *     D (64 x N, FP32, registers) = A (64 x K) B (K x N) + (scale_d ? D : 0)
 *
 * for one warpgroup, with B from shared memory through a matrix descriptor
 * and A from a descriptor or (the _ra forms) from registers. imm-scale-a/b
 * are 1 (no negation); the BF16 forms take imm-trans-b as TRANS_B (1: B
 * MN-major). A thread holds N / 2 accumulators: every 8 columns repeat the
 * m16n8 C layout of its warp's 16 rows (matmul_tc_cuda.h).
 *
 * The operand lists are long and regular: %0 .. %(N/2 - 1) are the
 * accumulators (CB_WG_D*, CB_WG_F*), then the descriptors (or the four A
 * registers), then scale_d, then TRANS_B. */
#ifndef CB_MATMUL_TC_WGMMA_OPS_H
#define CB_MATMUL_TC_WGMMA_OPS_H

#include <stdint.h>

#ifndef CB_TC_SM90A_DEVICE
#error "include matmul_tc_sm90.h, which defines CB_TC_SM90A_DEVICE"
#endif

/* "+f" operands d[i] .. d[i + 3], ... (the accumulators, read and written). */
#define CB_WG_F4(i)  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define CB_WG_F16(i) CB_WG_F4(i), CB_WG_F4(i + 4), CB_WG_F4(i + 8), CB_WG_F4(i + 12)
#define CB_WG_F64(i) CB_WG_F16(i), CB_WG_F16(i + 16), CB_WG_F16(i + 32), CB_WG_F16(i + 48)
#define CB_WG_F96    CB_WG_F64(0), CB_WG_F16(64), CB_WG_F16(80)
#define CB_WG_F128   CB_WG_F64(0), CB_WG_F64(64)

#define CB_WG_D64                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "                 \
    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "             \
    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "             \
    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define CB_WG_D96                                                                                  \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "                 \
    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "             \
    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "             \
    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "             \
    "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "             \
    "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}"
#define CB_WG_D128                                                                                 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "                 \
    "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, "             \
    "%33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, "             \
    "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "             \
    "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "             \
    "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, "             \
    "%97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "                  \
    "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "               \
    "%123, %124, %125, %126, %127}"

/* ---- BF16 (K = 16): A K-major, B K-major (TRANS_B 0) or MN-major (1) ---- */

template <int TRANS_B>
__device__ __forceinline__ void cb_wgmma_bf16_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " CB_WG_D64
                 ", %64, %65, p, 1, 1, 0, %67;\n}\n"
                 : CB_WG_F64(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_B));
#endif
}

template <int TRANS_B>
__device__ __forceinline__ void cb_wgmma_bf16_n192(float (&d)[96], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 " CB_WG_D96
                 ", %96, %97, p, 1, 1, 0, %99;\n}\n"
                 : CB_WG_F96
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_B));
#endif
}

template <int TRANS_B>
__device__ __forceinline__ void cb_wgmma_bf16_n256(float (&d)[128], uint64_t desc_a,
                                                   uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " CB_WG_D128
                 ", %128, %129, p, 1, 1, 0, %131;\n}\n"
                 : CB_WG_F128
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_B));
#endif
}

/* ---- TF32 (K = 8): both operands K-major (wgmma transposes 16-bit types only) ---- */

__device__ __forceinline__ void cb_wgmma_tf32_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " CB_WG_D64
                 ", %64, %65, p, 1, 1;\n}\n"
                 : CB_WG_F64(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_tf32_n192(float (&d)[96], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k8.f32.tf32.tf32 " CB_WG_D96
                 ", %96, %97, p, 1, 1;\n}\n"
                 : CB_WG_F96
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_tf32_n256(float (&d)[128], uint64_t desc_a,
                                                   uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " CB_WG_D128
                 ", %128, %129, p, 1, 1;\n}\n"
                 : CB_WG_F128
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

/* ---- TF32 with A from registers: a[0..3] = A(g, q), A(g + 8, q), A(g, q + 4),
 * A(g + 8, q + 4) of the warp's 16 rows (g = lane / 4, q = lane % 4), the
 * m16n8k8 A fragment; B K-major from shared memory ---- */

__device__ __forceinline__ void cb_wgmma_tf32_ra_n128(float (&d)[64], const uint32_t (&a)[4],
                                                      uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " CB_WG_D64
                 ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                 : CB_WG_F64(0)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_tf32_ra_n256(float (&d)[128], const uint32_t (&a)[4],
                                                      uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " CB_WG_D128
                 ", {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
                 : CB_WG_F128
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
#endif
}

/* ---- FP8 E4M3 (K = 32): both operands K-major ---- */

__device__ __forceinline__ void cb_wgmma_e4m3_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " CB_WG_D64
                 ", %64, %65, p, 1, 1;\n}\n"
                 : CB_WG_F64(0)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_e4m3_n192(float (&d)[96], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 " CB_WG_D96
                 ", %96, %97, p, 1, 1;\n}\n"
                 : CB_WG_F96
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

__device__ __forceinline__ void cb_wgmma_e4m3_n256(float (&d)[128], uint64_t desc_a,
                                                   uint64_t desc_b, uint32_t scale_d)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 " CB_WG_D128
                 ", %128, %129, p, 1, 1;\n}\n"
                 : CB_WG_F128
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
#endif
}

#endif
