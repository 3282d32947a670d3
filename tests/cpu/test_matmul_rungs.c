/* test_matmul_rungs.c - the FP32 ladder's rung list (bench/detail/
 * matmul_rungs.def) against the kernels' rung structs, on the CPU: every
 * listed rung has its code and name, states the FP32 peak and a byte
 * model (the rows' pct_peak and GB/s), and the variant axes map their
 * values to template instances (or refuse them with a reason) without a
 * GPU; every registered benchmark with a FLOP model has a byte model. */
/* test links: cubench_bench */
#include "cb_test.h"
#include "families.h"
#include "matmul_kernels.h"
#include "registry.h"

#include <stdio.h>
#include <string.h>

#define CB_MATMUL_RUNG(rung, ...) extern const cb_matmul_rung cb_matmul_rung_##rung;
#include "matmul_rungs.def"
#undef CB_MATMUL_RUNG

#define CB_MATMUL_RUNG(rung, ...) {"matmul/" #rung, &cb_matmul_rung_##rung},
static const struct {
    const char *bench;
    const cb_matmul_rung *rung;
} listed[] = {
#include "matmul_rungs.def"
};
#undef CB_MATMUL_RUNG

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    for (int i = 0; i < CB_ARRAY_LEN(listed); i++) {
        const cb_matmul_rung *r = listed[i].rung;
        const cb_bench *b = cb_registry_find(listed[i].bench);
        CB_CHECK(b != NULL && b->param == r); /* the table line names its rung */
        CB_CHECK(r->launch && r->query && strcmp(r->name, listed[i].bench + 7) == 0);
        CB_CHECK(!r->variant_axis == !r->variant_of);
        CB_CHECK(b && b->peak == CB_PEAK_FP32 && b->bytes != NULL);
    }
    const cb_bench *ref = cb_registry_find("matmul/cublas_fp32");
    CB_CHECK(ref && ref->peak == CB_PEAK_FP32 && ref->bytes != NULL);
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        if (b->flops && !b->bytes) printf("%s: a FLOP model without a byte model\n", b->name);
        CB_CHECK(!b->flops || b->bytes);
    }
    char why[128];
    const cb_matmul_rung *smem = &cb_matmul_rung_smem_tiled;
    CB_CHECK_EQ_INT(smem->variant_of("16", 64, 64, 132, why, sizeof why), 16);
    CB_CHECK_EQ_INT(smem->variant_of("12", 64, 64, 132, why, sizeof why), -1);
    CB_CHECK(strstr(why, "8, 16 and 32") != NULL);
    const cb_matmul_rung *pipe = &cb_matmul_rung_pipelined;
    CB_CHECK_EQ_INT(pipe->variant_of("m64n64k8", 64, 64, 132, why, sizeof why),
                    (int)CB_MATMUL_M64N64K8);
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 8192, 8192, 132, why, sizeof why),
                    (int)cb_matmul_config_auto(8192, 8192, 132));
    /* 128 x 128 tiles on 132 SMs x 2 blocks: a last wave at most 85 % full
     * takes the stream-K tail; whole waves, a fuller last wave, less than
     * one wave or edge tiles keep whole tiles. */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(8192, 8192, 132), (int)CB_MATMUL_M128N128K8_STREAMK);
    CB_CHECK_EQ_INT(cb_matmul_config_auto(6144, 4096, 132),
                    (int)CB_MATMUL_M128N128K8_STREAMK); /* 1536 tiles: last wave 82 % full */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(4096, 4096, 132), (int)CB_MATMUL_M128N128K8); /* 88 % */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(4093, 4093, 132), (int)CB_MATMUL_M128N128K8); /* edges */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(4224, 4096, 132), (int)CB_MATMUL_M128N128K8); /* 4 */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(3072, 4096, 132),
                    (int)CB_MATMUL_M128N128K8); /* 768 tiles: 2.91 waves, last 91 % full */
    CB_CHECK_EQ_INT(cb_matmul_config_auto(2048, 2048, 132), (int)CB_MATMUL_M128N128K8);
    CB_CHECK_EQ_INT(cb_matmul_config_auto(1000, 3000, 132), (int)CB_MATMUL_M128N128K8);
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 256, 256, 132, why, sizeof why),
                    (int)CB_MATMUL_M64N64K8); /* 4 blocks of 128x128 would idle 128 SMs */
    /* Skinny shapes take the skinny kernels: n of 1-8 narrow_n (also when
     * m is short too but taller), m of 1-8 short_m; 9 is a tile again. */
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 4096, 1, 132, why, sizeof why),
                    (int)CB_MATMUL_NARROW_N);
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 8, 3, 132, why, sizeof why), (int)CB_MATMUL_NARROW_N);
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 1, 4096, 132, why, sizeof why),
                    (int)CB_MATMUL_SHORT_M);
    CB_CHECK_EQ_INT(pipe->variant_of("auto", 3, 3, 132, why, sizeof why), (int)CB_MATMUL_SHORT_M);
    CB_CHECK(pipe->variant_of("auto", 9, 4096, 132, why, sizeof why) != (int)CB_MATMUL_SHORT_M);
    CB_CHECK_EQ_INT(pipe->variant_of("narrow_n", 64, 64, 132, why, sizeof why),
                    (int)CB_MATMUL_NARROW_N);
    CB_CHECK_EQ_INT(pipe->variant_of("m1n1k1", 64, 64, 132, why, sizeof why), -1);
    CB_CHECK(strstr(why, "not one of auto") != NULL);
    return cb_test_finish("test_matmul_rungs");
}
