/* test_matmul_tc_layout.c - the tensor-core rungs' index arithmetic, on the
 * CPU (kernels/detail/matmul_tc_layout.h and cb_tc_supported):
 *   - every shared-memory access pattern the kernels use is free of bank
 *     conflicts (lanes hit 32 different banks, or share a word), and every
 *     swizzle is a permutation of a row's chunks;
 *   - wgmma descriptors carry the fields the PTX ISA lays out, and the
 *     elements that the descriptors of rungs 3-4 address (through the
 *     canonical 128-byte-swizzled K-major and MN-major layouts) are exactly
 *     where TMA's 128-byte swizzle put them;
 *   - the cp.async writes of rung 2 are conflict-free as well (the question
 *     of the bank conflicts ncu counts in rung 2: not its addresses);
 *   - the TF32 kernel of rung 4 (operands swapped, B^T fragments loaded
 *     from an N-major TMA box): every fragment row a distinct n, the
 *     8-byte loads conflict-free, each element where TMA put it;
 *   - the persistent tile order visits every tile once, and the tile width
 *     is chosen as documented;
 *   - cb_tc_supported refuses what a rung cannot run, with a reason, and
 *     cb_tc_layout_plan stages exactly the operands TMA cannot read.
 * Without a GPU this is the only check of the layouts; the GPU test checks
 * the numbers. */
/* test links: cubench_kernels */
#include "cb_test.h"
#include "matmul_tc_kernels.h"
#include "matmul_tc_layout.h"

#include <stdint.h>
#include <stdlib.h>

/* ---- banks ---- */

/* Do 32 lanes' byte addresses of `width`-byte accesses hit distinct banks
 * (4 bytes each, 32 of them), counting lanes that read the same word once?
 * For 16-byte accesses (ldmatrix rows), the hardware serves 8 lanes at a
 * time: check each group of 8 over the 8 16-byte bank groups instead. */
static bool cb_conflict_free(const uint32_t *addr, int lanes, int width)
{
    if (width == 16) {
        for (int g = 0; g < lanes; g += 8) {
            int used = 0;
            for (int l = g; l < g + 8; l++) {
                const int bank_group = (int)(addr[l] / 16 % 8);
                if (used & 1 << bank_group) return false;
                used |= 1 << bank_group;
            }
        }
        return true;
    }
    for (int i = 0; i < lanes; i++)
        for (int j = 0; j < i; j++)
            if (addr[i] / 4 % 32 == addr[j] / 4 % 32 && addr[i] / 4 != addr[j] / 4) return false;
    return true;
}

/* How many of `n` warp-wide accesses of `width` bytes are not conflict-free;
 * lane `lane` of access `i` reads at byte addr_of(i, lane). */
static int cb_conflicts(int n, uint32_t (*addr_of)(int i, int lane), int width)
{
    uint32_t addr[32];
    int bad = 0;
    for (int i = 0; i < n; i++) {
        for (int lane = 0; lane < 32; lane++)
            addr[lane] = addr_of(i, lane);
        bad += !cb_conflict_free(addr, 32, width);
    }
    return bad;
}

static void cb_check_swizzles_are_permutations(void)
{
    for (int r = 0; r < 64; r++) {
        int seen128 = 0, seen_bf16 = 0;
        long long seen_tf32 = 0;
        for (int c = 0; c < 8; c++)
            seen128 |= 1 << cb_tc_swizzle_row128(r, c);
        for (int c = 0; c < 16; c++)
            seen_bf16 |= 1 << cb_tc_swizzle_bf16_b(r, c);
        for (int c = 0; c < 32; c++)
            seen_tf32 |= 1ll << cb_tc_swizzle_tf32_b(r, c);
        CB_CHECK_EQ_INT(seen128, 0xff);
        CB_CHECK_EQ_INT(seen_bf16, 0xffff);
        CB_CHECK_EQ_INT(seen_tf32, 0xffffffffll);
    }
}

/* Rung 2: ldmatrix(.x4) row addresses of A (128-byte rows, any 16-row
 * block m0 = 16 (i / 4) and k-step kk = i % 4) ... */
static uint32_t cb_ldmatrix_a_addr(int i, int lane)
{
    const int m0 = i / 4 * 16, kk = i % 4;
    const int r = m0 + lane % 16, c = kk * 2 + lane / 16;
    return (uint32_t)(r * 128 + cb_tc_swizzle_row128(r, c) * 16);
}

/* ... and ldmatrix.x4.trans of BF16 B (256-byte rows; i = (wn 2 + jp) 4 + kk). */
static uint32_t cb_ldmatrix_b_addr(int i, int lane)
{
    const int wn = i / 8, jp = i / 4 % 2, kk = i % 4;
    const int mi = lane / 8, k = kk * 16 + (mi & 1) * 8 + lane % 8;
    const int chunk = wn * 4 + 2 * jp + (mi >> 1);
    return (uint32_t)(k * 256 + cb_tc_swizzle_bf16_b(k, chunk) * 16);
}

static void cb_check_ldmatrix_banks(void)
{
    int bad = cb_conflicts(128 / 16 * 4, cb_ldmatrix_a_addr, 16);
    bad += cb_conflicts(4 * 2 * 4, cb_ldmatrix_b_addr, 16);
    CB_CHECK_EQ_INT(bad, 0);
    /* Without the swizzle the A pattern is an 8-way conflict: the check
     * can fail. */
    uint32_t addr[32];
    for (int lane = 0; lane < 32; lane++)
        addr[lane] = (uint32_t)((lane % 16) * 128 + (lane / 16) * 16);
    CB_CHECK(!cb_conflict_free(addr, 32, 16));
}

/* Rung 2, TF32 B: one float per lane at (k = kk 8 + q + 4h, n = wn 32 +
 * 8j + g) from 512-byte rows, q = lane % 4, g = lane / 4 (i = ((wn 4 + j)
 * 4 + kk) 2 + h). */
static uint32_t cb_tf32_b_addr(int i, int lane)
{
    const int wn = i / 32, j = i / 8 % 4, kk = i / 2 % 4, h = i % 2;
    const int q = lane % 4, g = lane / 4;
    const int k = kk * 8 + q + 4 * h, n = wn * 32 + j * 8 + g;
    return (uint32_t)(k * 512 + cb_tc_swizzle_tf32_b(k, n / 4) * 16 + n % 4 * 4);
}

static void cb_check_tf32_b_banks(void)
{
    CB_CHECK_EQ_INT(cb_conflicts(4 * 4 * 4 * 2, cb_tf32_b_addr, 4), 0);
}

/* Rung 1's padded tiles: BF16 A pairs (rows of 40 BF16), BF16 B halves
 * (rows of 136), TF32 A (rows of 20 floats) and B (rows of 136). */
static void cb_check_padded_banks(void)
{
    uint32_t a16[32], b16[32], a32[32], b32[32];
    int bad = 0;
    for (int i = 0; i < 4; i++)              /* the warp's 16-row A tiles / 8-column B tiles */
        for (int rh = 0; rh < 2; rh++)       /* row + 8 (A), k + 1 (BF16 B), k + 4 (TF32 B) */
            for (int kh = 0; kh < 2; kh++) { /* k + 8 (BF16 A), k + 4 (TF32 A) */
                for (int lane = 0; lane < 32; lane++) {
                    const int g = lane / 4, q = lane % 4, r = i * 16 + g + 8 * rh;
                    a16[lane] = (uint32_t)((r * 40 + 2 * q + 8 * kh) * 2);
                    b16[lane] = (uint32_t)(((2 * q + rh + 8 * kh) * 136 + i * 8 + g) * 2);
                    a32[lane] = (uint32_t)((r * 20 + q + 4 * kh) * 4);
                    b32[lane] = (uint32_t)(((q + 4 * rh) * 136 + i * 8 + g) * 4);
                }
                bad += !cb_conflict_free(a16, 32, 4) + !cb_conflict_free(b16, 32, 2) +
                       !cb_conflict_free(a32, 32, 4) + !cb_conflict_free(b32, 32, 4);
            }
    CB_CHECK_EQ_INT(bad, 0);
    /* Unpadded BF16 A rows (32 elements) conflict: the check can fail. */
    for (int lane = 0; lane < 32; lane++)
        a16[lane] = (uint32_t)(((lane / 4) * 32 + 2 * (lane % 4)) * 2);
    CB_CHECK(!cb_conflict_free(a16, 32, 4));
}

/* Rung 2's cp.async writes: 16 bytes per lane, chunk c of tile row r (id =
 * tid + 256 i; A: 8 chunks a row, BF16 B: 16, TF32 B: 32); access
 * (warp 4 + i) 3 + operand. */
static uint32_t cb_cp_async_addr(int access, int lane)
{
    const int warp = access / 12, i = access / 3 % 4, operand = access % 3;
    const int id = warp * 32 + lane + i * 256;
    if (operand == 0) {
        const int r = id / 8, c = id % 8;
        return (uint32_t)(r * 128 + cb_tc_swizzle_row128(r, c) * 16);
    }
    if (operand == 1) {
        const int r = id / 16, c = id % 16;
        return (uint32_t)(r * 256 + cb_tc_swizzle_bf16_b(r, c) * 16);
    }
    const int r = id / 32, c = id % 32;
    return (uint32_t)(r * 512 + cb_tc_swizzle_tf32_b(r, c) * 16);
}

static void cb_check_cp_async_banks(void)
{
    CB_CHECK_EQ_INT(cb_conflicts(8 * 4 * 3, cb_cp_async_addr, 16), 0);
}

/* 8-byte accesses: the hardware serves 16 lanes at a time; within each
 * half-warp, no two lanes may touch one bank at different words. */
static bool cb_conflict_free8(const uint32_t *addr)
{
    for (int h = 0; h < 32; h += 16)
        for (int i = h; i < h + 16; i++)
            for (int j = h; j < i; j++)
                for (int wi = 0; wi < 2; wi++)
                    for (int wj = 0; wj < 2; wj++) {
                        const uint32_t a = addr[i] / 4 + wi, b = addr[j] / 4 + wj;
                        if (a % 32 == b % 32 && a != b) return false;
                    }
    return true;
}

/* (byte offset -> where the TMA box put it) for the TF32 B stage of rung 4:
 * box n / 32 at 4 KiB steps, row k, column n % 32, 128-byte swizzled. */
static uint32_t cb_tma_place(uint32_t base, int row, int col, int esize);

/* Every fragment row of a warpgroup a distinct n of its 64. */
static void cb_check_tf32_rows(void)
{
    int bad = 0;
    int seen[64] = {0};
    for (int w = 0; w < 4; w++)
        for (int g = 0; g < 8; g++) {
            const int n = cb_tc_tf32_frag_n(w, g);
            bad += n < 0 || n + 1 > 63 || n % 2 != 0;
            if (n >= 0 && n + 1 < 64) seen[n]++, seen[n + 1]++;
        }
    for (int n = 0; n < 64; n++)
        bad += seen[n] != 1;
    CB_CHECK_EQ_INT(bad, 0);
}

static void cb_check_tf32_swapped(void)
{
    int bad = 0;
    /* The loads: rows k = 8 s + q (+ 4), 8 bytes at (n, n + 1). */
    uint32_t addr[32];
    for (int cw = 0; cw < 2; cw++)
        for (int w = 0; w < 4; w++)
            for (int s = 0; s < 4; s++)
                for (int h = 0; h < 2; h++) {
                    for (int lane = 0; lane < 32; lane++)
                        addr[lane] = cb_tc_tf32_b_offset(8 * s + lane % 4 + 4 * h,
                                                         64 * cw + cb_tc_tf32_frag_n(w, lane / 4));
                    bad += !cb_conflict_free8(addr);
                }
    CB_CHECK_EQ_INT(bad, 0);
    /* Contiguous n per warp (rows g, g + 8 -> n 2g, 2g + 1) would conflict. */
    for (int lane = 0; lane < 32; lane++)
        addr[lane] = cb_tc_tf32_b_offset(lane % 4, 2 * (lane / 4));
    CB_CHECK(!cb_conflict_free8(addr));
    /* The offsets are where TMA lands each element. */
    for (int k = 0; k < 32; k++)
        for (int n = 0; n < 128; n++)
            bad +=
                cb_tc_tf32_b_offset(k, n) != cb_tma_place((uint32_t)(n / 32 * 4096), k, n % 32, 4);
    CB_CHECK_EQ_INT(bad, 0);
}

/* ---- descriptors and the canonical layouts ---- */

typedef struct cb_desc_fields {
    uint32_t start, lbo, sbo, swizzle;
} cb_desc_fields;

static cb_desc_fields cb_decode(uint64_t d)
{
    cb_desc_fields f = {(uint32_t)(d & 0x3FFF) << 4, (uint32_t)(d >> 16 & 0x3FFF) << 4,
                        (uint32_t)(d >> 32 & 0x3FFF) << 4, (uint32_t)(d >> 62)};
    return f;
}

/* The 128-byte swizzle as address arithmetic: the 16-byte chunk bits 4-6
 * are XORed with bits 7-9 (the row within a 1024-byte block of 8 rows). */
static uint32_t cb_swz128(uint32_t byte_addr)
{
    return byte_addr ^ ((byte_addr >> 7 & 7) << 4);
}

/* Where TMA (SWIZZLE_128B) puts element (row, col) of a box with 128-byte
 * rows, esize-byte elements, landed at a 1024-aligned `base`. */
static uint32_t cb_tma_place(uint32_t base, int row, int col, int esize)
{
    return cb_swz128(base + (uint32_t)(row * 128 + col * esize));
}

/* Canonical K-major, 128-byte swizzle (PTX ISA, shared memory matrix
 * layouts): row mn of the operand is 128 bytes long, 8 rows make a
 * 1024-byte core block, blocks are SBO apart; element k of the k-step sits
 * k esize bytes after the start. */
static uint32_t cb_kmajor_addr(cb_desc_fields f, int mn, int k, int esize)
{
    return cb_swz128(f.start + (uint32_t)(mn / 8) * f.sbo + (uint32_t)(mn % 8) * 128 +
                     (uint32_t)(k * esize));
}

/* Canonical MN-major, 128-byte swizzle: 64 BF16 along mn make one 128-byte
 * row, one row per k; 8 k-rows make a core block, k-blocks are SBO apart and
 * blocks of 64 mn are LBO apart. */
static uint32_t cb_mnmajor_addr(cb_desc_fields f, int mn, int k)
{
    return cb_swz128(f.start + (uint32_t)(mn / 64) * f.lbo + (uint32_t)(k / 8) * f.sbo +
                     (uint32_t)(k % 8) * 128 + (uint32_t)(mn % 64) * 2);
}

static void cb_check_descriptor_fields(void)
{
    const uint64_t d = cb_tc_desc(0x1400, 16, 1024, CB_TC_SWIZZLE_128B);
    CB_CHECK(d == 0x4000004000010140ull); /* start 0x140, LBO 1, SBO 64, mode 1 */
    const cb_desc_fields f = cb_decode(cb_tc_desc(0x3FFF0, 8192, 1024, 1));
    CB_CHECK_EQ_INT(f.start, 0x3FFF0);
    CB_CHECK_EQ_INT(f.lbo, 8192);
    CB_CHECK_EQ_INT(f.sbo, 1024);
    CB_CHECK_EQ_INT(f.swizzle, 1);
}

/* The descriptors the Hopper kernels build (cb_wg_mma_slice), checked
 * element by element against where TMA wrote each element. */
static void cb_check_wgmma_operands(void)
{
    const uint32_t base = 0x4000; /* a 1024-aligned stage */
    int bad = 0;
    /* A (every precision), TF32 B^T and FP8 B: K-major, rows of one
     * 128-byte k-slice; 4 k-steps of 16 BF16 / 8 TF32 / 32 FP8, 32 bytes
     * each. */
    for (int esize = 1; esize <= 4; esize *= 2) {
        const int kstep = 32 / esize;
        for (int row0 = 0; row0 < 256; row0 += 64) /* a consumer's 64-row slab */
            for (int kk = 0; kk < 4; kk++) {
                const cb_desc_fields f =
                    cb_decode(cb_tc_desc(base + row0 * 128 + kk * 32, 16, 1024, 1));
                for (int mn = 0; mn < 64; mn++)
                    for (int k = 0; k < kstep; k++)
                        bad += cb_kmajor_addr(f, mn, k, esize) !=
                               cb_tma_place(base, row0 + mn, kk * kstep + k, esize);
            }
    }
    /* BF16 B: MN-major, BN / 64 TMA boxes of 64 k-rows x 64 n, 8 KiB apart;
     * k-step kk starts 16 rows down. */
    for (int bn = 128; bn <= 256; bn += 128)
        for (int kk = 0; kk < 4; kk++) {
            const cb_desc_fields f = cb_decode(cb_tc_desc(base + kk * 16 * 128, 64 * 128, 1024, 1));
            for (int n = 0; n < bn; n++)
                for (int k = 0; k < 16; k++) {
                    const uint32_t box = base + (uint32_t)(n / 64) * 64 * 128;
                    bad += cb_mnmajor_addr(f, n, k) != cb_tma_place(box, kk * 16 + k, n % 64, 2);
                }
        }
    CB_CHECK_EQ_INT(bad, 0);
    /* A wrong LBO (one box = 4 KiB) must not match: the model can fail. */
    const cb_desc_fields wrong = cb_decode(cb_tc_desc(base, 32 * 128, 1024, 1));
    CB_CHECK(cb_mnmajor_addr(wrong, 64, 0) != cb_tma_place(base + 64 * 128, 0, 0, 2));
}

/* ---- the persistent tile order ---- */

static void cb_check_tile_order(void)
{
    static const int shapes[][2] = {{1, 1}, {64, 32}, {9, 3}, {17, 5}, {8, 1}, {3, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int tm_n = shapes[s][0], tn_n = shapes[s][1];
        char *seen = calloc((size_t)tm_n * tn_n, 1);
        int bad = 0;
        for (int t = 0; t < tm_n * tn_n; t++) {
            int tm = -1, tn = -1;
            cb_tc_tile_coords(t, tm_n, tn_n, 8, &tm, &tn);
            if (tm < 0 || tm >= tm_n || tn < 0 || tn >= tn_n || seen[tm * tn_n + tn]++) bad++;
        }
        CB_CHECK_EQ_INT(bad, 0);
        free(seen);
    }
    /* Grouped: the first 8 tiles are the 8 tile rows of column 0. */
    int tm, tn;
    cb_tc_tile_coords(7, 64, 32, 8, &tm, &tn);
    CB_CHECK(tm == 7 && tn == 0);
    cb_tc_tile_coords(8, 64, 32, 8, &tm, &tn);
    CB_CHECK(tm == 0 && tn == 1);
}

/* The persistent rungs' tile width on 132 SMs (matmul_tc_layout.h). */
static void cb_check_tile_width(void)
{
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(8192, 8192, 132, 128), 256); /* 2048 tiles, 97 % */
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(4096, 4096, 132, 128), 256); /* 512 tiles, 97 % */
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(8191, 8193, 132, 128), 256); /* 2112: 16 full waves */
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(4093, 4093, 132, 128), 256);
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(1000, 3000, 132, 128), 192); /* 96 of 256 vs 128 of 192 */
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(1024, 1024, 132, 128), 128); /* 32 / 48 / 64 tiles */
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(4096, 1, 132, 128), 128);
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(1, 1, 132, 128), 128);
    CB_CHECK_EQ_INT(cb_tc_pick_tile_n(8192, 8192, 0, 128), 256); /* no SM count: the default */
}

/* ---- what each rung accepts ---- */

/* One question to cb_tc_supported: a rung, a precision, m x n x k on a
 * device of compute capability major.minor; the answer, and what the
 * reason of a refusal says (NULL: not checked). */
typedef struct cb_support_case {
    const cb_tc_rung *rung;
    cb_tc_precision prec;
    int m, n, k, major, minor;
    bool ok;
    const char *says;
} cb_support_case;

static void cb_check_support_cases(const cb_support_case *c, int n)
{
    char why[160];
    for (int i = 0; i < n; i++) {
        why[0] = '\0';
        const bool ok = cb_tc_supported(c[i].rung, c[i].prec, c[i].m, c[i].n, c[i].k, c[i].major,
                                        c[i].minor, why, sizeof why);
        CB_CHECK_MSG(ok == c[i].ok, "case %d: %s", i, why);
        if (c[i].says) CB_CHECK_MSG(strstr(why, c[i].says) != NULL, "case %d: %s", i, why);
    }
}

static void cb_check_supported(void)
{
    static const cb_support_case cases[] = {
        /* rung 1: any shape from sm_80 on */
        {&cb_tc_rung_mma, CB_TC_BF16, 127, 131, 67, 9, 0, true, NULL},
        {&cb_tc_rung_mma, CB_TC_TF32, 1, 1, 1, 8, 0, true, NULL},
        {&cb_tc_rung_mma, CB_TC_BF16, 128, 128, 128, 7, 5, false, "8.0"},
        /* rung 2: k and n in whole 16-byte chunks */
        {&cb_tc_rung_ldmatrix, CB_TC_BF16, 129, 136, 72, 9, 0, true, NULL},
        {&cb_tc_rung_ldmatrix, CB_TC_BF16, 129, 131, 72, 9, 0, false, "multiples of 8"},
        {&cb_tc_rung_ldmatrix, CB_TC_TF32, 100, 100, 100, 8, 6, true, NULL},
        {&cb_tc_rung_ldmatrix, CB_TC_TF32, 100, 102, 100, 8, 6, false, "multiples of 4"},
        /* rungs 3-4: Hopper only, and only with the sm_90a code */
        {&cb_tc_rung_wgmma, CB_TC_BF16, 256, 256, 256, 8, 0, false, "9.0"},
        {&cb_tc_rung_wgmma_ws, CB_TC_BF16, 256, 256, 256, 10, 0, false, NULL},
        {&cb_tc_rung_wgmma_cluster, CB_TC_TF32, 256, 256, 256, 8, 9, false, NULL},
        /* an empty shape, no rung */
        {&cb_tc_rung_mma, CB_TC_BF16, 0, 4, 4, 9, 0, false, NULL},
        {NULL, CB_TC_BF16, 4, 4, 4, 9, 0, false, NULL},
        /* precisions: each rung computes the ones it lists */
        {&cb_tc_rung_mma, CB_TC_FP8, 128, 128, 128, 9, 0, false, "FP8"},
        {&cb_tc_rung_wgmma_fp8, CB_TC_BF16, 128, 128, 128, 9, 0, false, NULL},
        {&cb_tc_rung_mma, CB_TC_PRECISIONS, 8, 8, 8, 9, 0, false, NULL},
    };
    static const cb_support_case sm90a_cases[] = {
        /* TF32: B is transposed first, so any n; k feeds TMA row pitches */
        {&cb_tc_rung_wgmma, CB_TC_TF32, 129, 131, 72, 9, 0, true, NULL},
        {&cb_tc_rung_wgmma, CB_TC_TF32, 129, 131, 70, 9, 0, false, "multiple of 4"},
        /* rungs 4, 5 and FP8: every shape (staged) */
        {&cb_tc_rung_wgmma_ws, CB_TC_BF16, 127, 131, 67, 9, 0, true, NULL},
        {&cb_tc_rung_wgmma_ws, CB_TC_TF32, 1, 1, 1, 9, 0, true, NULL},
        {&cb_tc_rung_wgmma_fp8, CB_TC_FP8, 8191, 8193, 4095, 9, 0, true, NULL},
        {&cb_tc_rung_wgmma, CB_TC_BF16, 128, 132, 64, 9, 0, false, NULL},
        {&cb_tc_rung_wgmma_cluster, CB_TC_TF32, 1, 3, 4, 9, 0, true, NULL},
    };
    char why[160];
    cb_check_support_cases(cases, (int)(sizeof cases / sizeof cases[0]));
    const bool hopper =
        cb_tc_supported(&cb_tc_rung_wgmma_ws, CB_TC_BF16, 256, 256, 256, 9, 0, why, sizeof why);
    CB_CHECK(hopper == cb_tc_sm90a_built());
    if (!hopper) CB_CHECK(strstr(why, "sm_90a") != NULL);
    if (cb_tc_sm90a_built())
        cb_check_support_cases(sm90a_cases, (int)(sizeof sm90a_cases / sizeof sm90a_cases[0]));
    /* workspace: staged copies and the TF32 B^T of the rungs that read it */
    CB_CHECK(cb_tc_workspace_bytes(&cb_tc_rung_wgmma_cluster, CB_TC_TF32, 10, 300, 200) ==
             300 * 200 * 4);
    CB_CHECK(cb_tc_workspace_bytes(&cb_tc_rung_wgmma_ws, CB_TC_TF32, 10, 300, 200) == 0);
    CB_CHECK(cb_tc_workspace_bytes(&cb_tc_rung_wgmma_ws, CB_TC_BF16, 10, 304, 200) == 0);
    CB_CHECK(cb_tc_workspace_bytes(&cb_tc_rung_wgmma_ws, CB_TC_BF16, 10, 300, 200) ==
             200 * 304 * 2); /* B staged: rows of 300 BF16 padded to 304 */
    CB_CHECK(cb_tc_workspace_bytes(&cb_tc_rung_ldmatrix, CB_TC_TF32, 10, 300, 200) == 0);
}

/* Which operands a plan stages, and their padded pitches. */
static void cb_check_layout(void)
{
    char why[160];
    cb_tc_layout l;
    cb_tc_args g = {.m = 8192, .n = 8192, .k = 8192};
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(!l.stage_a && !l.stage_b && !l.b_transposed);
    CB_CHECK(l.lda == 8192 && l.ldb == 8192 && l.ldc == 8192 && l.lda_read == 8192);
    /* BF16 8191 x 8193 x 4095: both rows odd, both staged to 16 bytes */
    g = (cb_tc_args){.m = 8191, .n = 8193, .k = 4095};
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(l.stage_a && l.stage_b);
    CB_CHECK_EQ_INT(l.lda_read, 4096);
    CB_CHECK_EQ_INT(l.ldb_read, 8200);
    CB_CHECK(l.stage_a_bytes == (size_t)8191 * 4096 * 2 &&
             l.stage_b_bytes == (size_t)4095 * 8200 * 2);
    /* TF32 4093^3 on rung 4 (B read as it lies): A and B staged to x4 */
    g = (cb_tc_args){.m = 4093, .n = 4093, .k = 4093};
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_TF32, &g, &l, why, sizeof why));
    CB_CHECK(l.stage_a && l.stage_b && !l.b_transposed);
    CB_CHECK(l.lda_read == 4096 && l.ldb_read == 4096);
    /* ... on rung 5 (B^T): A staged, B^T written with rows of 4096 */
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_cluster, CB_TC_TF32, &g, &l, why, sizeof why));
    CB_CHECK(l.stage_a && !l.stage_b && l.b_transposed);
    CB_CHECK(l.ldb_read == 4096 && l.bt_bytes == (size_t)4093 * 4096 * 4);
}

/* FP8: rows of k bytes, so k = 200 stages both (B is K-major). */
static void cb_check_layout_fp8(void)
{
    char why[160];
    cb_tc_layout l;
    cb_tc_args g = {.m = 1000, .n = 3000, .k = 200};
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_fp8, CB_TC_FP8, &g, &l, why, sizeof why));
    CB_CHECK(l.stage_a && l.stage_b && l.lda_read == 208 && l.ldb_read == 208);
    CB_CHECK(l.stage_b_bytes == (size_t)3000 * 208);
    g.k = 208;
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_fp8, CB_TC_FP8, &g, &l, why, sizeof why));
    CB_CHECK(!l.stage_a && !l.stage_b && l.ldb == 208);
}

/* Leading dimensions and bases: what each kind of rung takes. */
static void cb_check_layout_pitches(void)
{
    char why[160];
    cb_tc_layout l;
    cb_tc_args g;
    /* Leading dimensions: a padded, 16-byte pitch is read in place; a
     * base off 16 bytes is staged even with a good pitch. */
    g = (cb_tc_args){.m = 64, .n = 64, .k = 64, .lda = 72, .ldb = 80, .ldc = 65};
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(!l.stage_a && !l.stage_b && l.lda_read == 72 && l.ldb_read == 80 && l.ldc == 65);
    g.a = (const void *)(uintptr_t)0x1002;
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(l.stage_a && !l.stage_b && l.lda_read == 64);
    /* The strict rungs take packed, aligned operands only. */
    CB_CHECK(!cb_tc_layout_plan(&cb_tc_rung_ldmatrix, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(strstr(why, "packed") != NULL);
    g = (cb_tc_args){.m = 64, .n = 64, .k = 64, .a = (const void *)(uintptr_t)0x1002};
    CB_CHECK(!cb_tc_layout_plan(&cb_tc_rung_wgmma, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(strstr(why, "aligned") != NULL);
    CB_CHECK(cb_tc_layout_plan(&cb_tc_rung_mma, CB_TC_BF16, &g, &l, why, sizeof why));
    /* A leading dimension below a row: refused everywhere. */
    g = (cb_tc_args){.m = 64, .n = 64, .k = 64, .ldc = 63};
    CB_CHECK(!cb_tc_layout_plan(&cb_tc_rung_wgmma_ws, CB_TC_BF16, &g, &l, why, sizeof why));
    CB_CHECK(strstr(why, "at least a row") != NULL);
}

int main(void)
{
    cb_check_swizzles_are_permutations();
    cb_check_ldmatrix_banks();
    cb_check_tf32_b_banks();
    cb_check_padded_banks();
    cb_check_cp_async_banks();
    cb_check_tf32_rows();
    cb_check_tf32_swapped();
    cb_check_descriptor_fields();
    cb_check_wgmma_operands();
    cb_check_tile_order();
    cb_check_tile_width();
    cb_check_supported();
    cb_check_layout();
    cb_check_layout_fp8();
    cb_check_layout_pitches();
    return cb_test_finish("test_matmul_tc_layout");
}
