/* test_matmul_multistage.c - the multistage SGEMM rung on the CPU: its
 * swizzled A layout is a permutation of each row's chunks, the kernel's
 * shared-memory accesses are free of bank conflicts (the 8-byte A reads of
 * a warp's 4 lane rows, the 16-byte B reads, and the 16- and 4-byte
 * cp.async writes), the unswizzled layout is not (the check can fail), and
 * `config` maps its values (auto: the rule while no autotuned row exists
 * for the SM count). */
/* test links: cubench_bench cubench_kernels */
#include "cb_test.h"
#include "matmul_multistage_kernels.h"
#include "matmul_multistage_layout.h"

#include <stdint.h>
#include <string.h>

extern const cb_matmul_rung cb_matmul_rung_multistage;

/* Lanes served together: 8 for 16-byte accesses, 16 for 8-byte, 32 for
 * 4-byte; within such a group no two lanes may hit one bank at different
 * words (the same word is a broadcast). Byte addresses. */
static bool cb_conflict_free(const uint32_t *addr, int width)
{
    const int group = width == 16 ? 8 : width == 8 ? 16 : 32;
    for (int g = 0; g < 32; g += group)
        for (int i = g; i < g + group; i++)
            for (int j = g; j < i; j++)
                for (int wi = 0; wi < width / 4; wi++)
                    for (int wj = 0; wj < width / 4; wj++) {
                        const uint32_t a = addr[i] / 4 + wi, b = addr[j] / 4 + wj;
                        if (a % 32 == b % 32 && a != b) return false;
                    }
    return true;
}

static void cb_check_permutation(void)
{
    for (int bk = 16; bk <= 32; bk *= 2)
        for (int r = 0; r < 128; r++) {
            unsigned seen = 0;
            for (int kk = 0; kk < bk; kk++) {
                const int off = cb_ms_a_offset(r, kk, bk);
                CB_CHECK(off / bk == r);
                seen |= 1u << (off % bk);
            }
            CB_CHECK_EQ_INT(seen, bk == 32 ? 0xffffffffu : 0xffffu);
        }
}

/* The kernel's lane layout: warp (wr, wc) of WARPS_N columns; lane row
 * lane >> 3 starts 4 rows apart, lane column lane & 7 four columns apart. */
static void cb_check_banks(int bk, int bn)
{
    uint32_t addr[32];
    int bad = 0;
    for (int wr = 0; wr < 4; wr++)
        for (int i = 0; i < 8; i++)               /* the lane's rows: 2 sub-tiles of 4 */
            for (int kh = 0; kh < bk / 2; kh++) { /* 8-byte A reads: k = 2 kh, 2 kh + 1 */
                for (int lane = 0; lane < 32; lane++) {
                    const int r = wr * 32 + (lane >> 3) * 4 + (i / 4) * 16 + i % 4;
                    addr[lane] = (uint32_t)cb_ms_a_offset(r, 2 * kh, bk) * 4;
                }
                bad += !cb_conflict_free(addr, 8);
            }
    for (int kk = 0; kk < bk; kk++) /* 16-byte B reads: rows of bn floats */
        for (int j = 0; j < 2; j++) {
            for (int lane = 0; lane < 32; lane++)
                addr[lane] = (uint32_t)(kk * bn + (lane & 7) * 4 + j * 32) * 4;
            bad += !cb_conflict_free(addr, 16);
        }
    for (int pass = 0; pass < 4; pass++) /* 16-byte cp.async of A: id = tid + 256 pass */
        for (int warp = 0; warp < 8; warp++) {
            for (int lane = 0; lane < 32; lane++) {
                const int id = warp * 32 + lane + 256 * pass, r = id / (bk / 4);
                addr[lane] = (uint32_t)cb_ms_a_offset(r, id % (bk / 4) * 4, bk) * 4;
            }
            bad += !cb_conflict_free(addr, 16);
        }
    for (int warp = 0; warp < 8; warp++) { /* 4-byte cp.async of A (odd shapes) */
        for (int lane = 0; lane < 32; lane++) {
            const int id = warp * 32 + lane, r = id / bk;
            addr[lane] = (uint32_t)cb_ms_a_offset(r, id % bk, bk) * 4;
        }
        bad += !cb_conflict_free(addr, 4);
    }
    CB_CHECK_EQ_INT(bad, 0);
    /* Unswizzled rows of 16 floats: the 4 lane rows (rows 4 apart) collide. */
    for (int lane = 0; lane < 32; lane++)
        addr[lane] = (uint32_t)((lane >> 3) * 4 * bk) * 4;
    CB_CHECK(!cb_conflict_free(addr, 8));
}

static void cb_check_config(void)
{
    char why[160];
    const cb_matmul_rung *r = &cb_matmul_rung_multistage;
    CB_CHECK(strcmp(r->variant_axis, "config") == 0);
    CB_CHECK_EQ_INT(r->variant_of("m64n64k16s3", 64, 64, 132, why, sizeof why),
                    (int)CB_MATMUL_MS_M64N64K16S3);
    CB_CHECK_EQ_INT(r->variant_of("m128n128k32s3", 64, 64, 132, why, sizeof why),
                    (int)CB_MATMUL_MS_M128N128K32S3);
    CB_CHECK_EQ_INT(r->variant_of("m128n128k8", 64, 64, 132, why, sizeof why), -1);
    CB_CHECK(strstr(why, "not one of auto") != NULL);
    /* auto without a recorded row: two blocks per SM decide the tile */
    bool tabled = true;
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(8192, 8192, 7, &tabled), (int)CB_MATMUL_MS_M128N128K16S3);
    CB_CHECK(!tabled);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(1024, 1024, 7, NULL), (int)CB_MATMUL_MS_M128N128K16S3);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(1024, 1024, 64, NULL), (int)CB_MATMUL_MS_M128N64K16S3);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(256, 256, 132, NULL), (int)CB_MATMUL_MS_M64N64K16S3);
    CB_CHECK_EQ_INT(r->variant_of("auto", 8192, 8192, 132, why, sizeof why),
                    cb_matmul_ms_auto(8192, 8192, 132, NULL));
    /* auto with the rows recorded on a 132-SM H200: the nearest within a
     * factor of 2 in m and n, else the rule */
    tabled = false;
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(8192, 8192, 132, &tabled), (int)CB_MATMUL_MS_M64N128K16S3);
    CB_CHECK(tabled);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(4093, 4093, 132, NULL), (int)CB_MATMUL_MS_M128N128K32S3);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(900, 2800, 132, NULL), (int)CB_MATMUL_MS_M64N128K16S3);
    CB_CHECK_EQ_INT(cb_matmul_ms_auto(8192, 8192, 114, &tabled), (int)CB_MATMUL_MS_M128N128K16S3);
    CB_CHECK(!tabled);
    int configs = 1;
    for (const char *c = CB_MATMUL_MS_CONFIG_NAMES; *c; c++)
        configs += *c == ',';
    CB_CHECK_EQ_INT(configs, CB_MATMUL_MS_CONFIG_COUNT);
}

int main(void)
{
    cb_check_permutation();
    cb_check_banks(16, 128);
    cb_check_banks(32, 128);
    cb_check_banks(16, 64);
    cb_check_config();
    return cb_test_finish("test_matmul_multistage");
}
