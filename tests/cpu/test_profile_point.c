/* test_profile_point.c - the ncu/nsys command lines for one point, and the
 * NVTX family colours (no GPU needed: without a tool NVTX calls do nothing). */
/* test links: cubench_timing */
#include "cb_test.h"
#include "nvtx_ranges.h"
#include "profile_point.h"

#include <stdio.h>
#include <string.h>

static void test_commands(void)
{
    char line[1024];
    cb_profile_target t = {.program = "./build/cubench",
                           .bench = "vecadd/grid_stride",
                           .axes = "n=16777216;block=256;grid=auto"};
    size_t n = cb_profile_command(line, sizeof line, CB_PROFILE_NCU, &t);
    CB_CHECK(n == strlen(line));
    CB_CHECK_STR(line,
                 "ncu --clock-control none --profile-from-start off --set full --export "
                 "cubench_vecadd_grid_stride_n_16777216_block_256_grid_auto --force-overwrite "
                 "./build/cubench run vecadd/grid_stride --axis n=16777216 --axis block=256 "
                 "--axis grid=auto --profile --no-cupti");
    cb_profile_command(line, sizeof line, CB_PROFILE_NSYS, &t);
    CB_CHECK_STR(line,
                 "nsys profile --trace cuda,nvtx --capture-range cudaProfilerApi "
                 "--capture-range-end stop --output "
                 "cubench_vecadd_grid_stride_n_16777216_block_256_grid_auto --force-overwrite "
                 "true ./build/cubench run vecadd/grid_stride --axis n=16777216 --axis "
                 "block=256 --axis grid=auto --profile --no-cupti");

    /* A hot point keeps ncu from flushing caches; extra options are kept and
     * quoted when the shell would read them. */
    const char *extra[] = {"--cache", "hot", "--note", "it's 2^24"};
    cb_profile_target h = {.program = "/opt/my dir/cubench",
                           .bench = "matmul/smem_tiled",
                           .axes = "m=4096",
                           .hot = true,
                           .n_extra = 4,
                           .extra = extra};
    cb_profile_command(line, sizeof line, CB_PROFILE_NCU, &h);
    CB_CHECK_STR(line,
                 "ncu --clock-control none --profile-from-start off --set full --cache-control "
                 "none --export cubench_matmul_smem_tiled_m_4096 --force-overwrite "
                 "'/opt/my dir/cubench' run matmul/smem_tiled --axis m=4096 --profile "
                 "--no-cupti --cache hot --note 'it'\\''s 2^24'");

    /* No axes; a buffer too small is cut and NUL-terminated, and the needed
     * length is still reported. */
    cb_profile_target z = {.program = "cubench", .bench = "cublas/sgemm", .axes = ""};
    char small[16];
    size_t need = cb_profile_command(small, sizeof small, CB_PROFILE_NSYS, &z);
    cb_profile_command(line, sizeof line, CB_PROFILE_NSYS, &z);
    CB_CHECK(need == strlen(line));
    CB_CHECK(strlen(small) == sizeof small - 1 && strncmp(small, line, sizeof small - 1) == 0);
    CB_CHECK(strstr(line, "run cublas/sgemm --profile --no-cupti") != NULL);
    CB_CHECK(strstr(line, "--output cubench_cublas_sgemm ") != NULL);

    FILE *f = tmpfile();
    if (f) {
        cb_profile_print_commands(f, &t);
        long size = ftell(f);
        rewind(f);
        char all[4096] = "";
        size_t got = fread(all, 1, sizeof all - 1, f);
        all[got] = '\0';
        CB_CHECK(size > 0 && strstr(all, "\nncu ") && strstr(all, "\nnsys profile "));
        fclose(f);
    }
}

static void test_colors(void)
{
    /* Same family, same colour; opaque ARGB; stable across calls. */
    uint32_t a = cb_nvtx_family_color("matmul/naive");
    CB_CHECK(a == cb_nvtx_family_color("matmul/smem_tiled"));
    CB_CHECK(a == cb_nvtx_family_color("matmul"));
    CB_CHECK((a >> 24) == 0xFF);
    int distinct = 0;
    const char *fam[] = {"vecadd/x", "matmul/x", "transfers/x", "cublas/x", "host/x"};
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            distinct += cb_nvtx_family_color(fam[i]) != cb_nvtx_family_color(fam[j]);
    CB_CHECK(distinct >= 8); /* a 12-colour palette: at most a collision or two */
    CB_CHECK(cb_nvtx_family_color(NULL) == cb_nvtx_family_color(""));

    /* Without a tool these must be harmless no-ops. */
    cb_nvtx_init(false);
    bool ours = true;
    cb_nvtx_injection(&ours);
    CB_CHECK(!ours);
    cb_nvtx_point_push("vecadd/grid_stride", "n=1024;block=256;grid=auto");
    cb_nvtx_point_pop();
    cb_nvtx_point_pop(); /* unbalanced pop: ignored (reaching the next line is the check) */
}

int main(void)
{
    test_commands();
    test_colors();
    return cb_test_finish("test_profile_point");
}
