/* test_counters_names.c - `--metrics` before a run: the preset tables, the
 * spec's form, validation of names on a device's chip and without one (a
 * name is refused with the nearest names; without a GPU only a name no chip
 * knows is refused), and what a profiler that does not come up leaves.
 *
 * Against the recorded GH100 and GA100 metric lists (test_counters_fake.h);
 * where CUPTI's own host API can run (not under AddressSanitizer) the same
 * questions are put to it, and the stand-in's grammar is checked against it.
 *
 *   test_counters_names --record DIR   writes DIR/GH100.tsv and DIR/GA100.tsv
 *                                      from this CUPTI (gzip them into
 *                                      tests/data/cupti-metrics/) */
/* test links: cubench_timing */
#include "cb_test.h"
#include "counters_session.h"
#include "test_counters_fake.h"

#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define CB_REAL_CUPTI_HOST 0 /* libcupti's RTLD_DEEPBIND dlopen aborts under ASan */
#else
#define CB_REAL_CUPTI_HOST 1
#endif

static int record(const char *dir)
{
    const cb_counters_host_ops *h = cb_counters_cupti_host();
    const char *chips[] = {"GH100", "GA100"};
    uint32_t version = 0;
    for (int k = 0; k < 2; k++) {
        void *host = NULL;
        if (h->open(chips[k], &host) != CUPTI_SUCCESS) return 1;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.tsv", dir, chips[k]);
        FILE *f = fopen(path, "w");
        if (!f) return 1;
        cuptiGetVersion(&version);
        fprintf(f, "# CUPTI API %u profiler host API, chip %s: every base metric as\n", version,
                chips[k]);
        fprintf(f, "# type (0 counter, 1 ratio, 2 throughput) <TAB> name <TAB> dimension unit\n");
        for (int type = 0; type < CB_METRIC_TYPES; type++) {
            const char *const *names = NULL;
            size_t n = 0;
            if (h->base_metrics(host, type, &names, &n) != CUPTI_SUCCESS) return 1;
            for (size_t i = 0; i < n; i++) {
                cb_metric_props p = {0};
                h->properties(host, names[i], &p);
                fprintf(f, "%d\t%s\t%s\n", type, names[i], p.dim_unit ? p.dim_unit : "");
            }
        }
        h->close(host);
        if (fclose(f) != 0) return 1;
        printf("wrote %s\n", path);
    }
    return 0;
}

static void test_edit_distance(void)
{
    CB_CHECK_EQ_INT(cb_counters_edit_distance("kitten", "sitting", 64), 3);
    CB_CHECK_EQ_INT(cb_counters_edit_distance("", "abc", 64), 3);
    CB_CHECK_EQ_INT(cb_counters_edit_distance("dram__bytes", "dram__bytes", 64), 0);
    CB_CHECK_EQ_INT(cb_counters_edit_distance("abcdefgh", "zzzzzzzz", 3), 3); /* capped */
}

/* Every preset is well formed; sol has one metric per SOL column. */
static void test_presets(void)
{
    CB_CHECK(cb_counters_n_presets == 3);
    CB_CHECK(cb_counters_preset_find("sol") && cb_counters_preset_find("memory") &&
             cb_counters_preset_find("compute"));
    CB_CHECK(cb_counters_preset_find("SOL") == NULL);
    for (int p = 0; p < cb_counters_n_presets; p++) {
        const cb_counters_preset *ps = &cb_counters_presets[p];
        CB_CHECK(ps->n > 0 && ps->summary && ps->summary[0]);
        for (int e = 0; e < ps->n; e++) {
            const char *name = ps->entries[e].names[0];
            CB_CHECK(name && strstr(name, "__") && strchr(name, '.'));
            for (int f = e + 1; f < ps->n; f++)
                CB_CHECK(strcmp(name, ps->entries[f].names[0]) != 0);
        }
    }
    const cb_counters_preset *sol = cb_counters_preset_find("sol");
    int per_role[CB_COUNTERS_ROLE_FLOPS + 1] = {0};
    for (int e = 0; e < sol->n; e++)
        per_role[sol->entries[e].role]++;
    for (int r = CB_COUNTERS_ROLE_SOL_DRAM; r <= CB_COUNTERS_ROLE_DRAM_BYTES; r++)
        CB_CHECK_EQ_INT(per_role[r], 1);
    CB_CHECK(per_role[CB_COUNTERS_ROLE_FLOPS] >= 6);
    CB_CHECK_STR(cb_counters_role_column(CB_COUNTERS_ROLE_SOL_DRAM), "sol_dram_pct");
    CB_CHECK_STR(cb_counters_role_column(CB_COUNTERS_ROLE_FLOPS), "measured_flops");
    CB_CHECK(cb_counters_role_column(CB_COUNTERS_ROLE_NONE) == NULL);
    cb_counters_values v;
    CB_CHECK(cb_counters_role_field(CB_COUNTERS_ROLE_SOL_TENSOR, &v) == &v.sol_tensor_pct);
    CB_CHECK(cb_counters_role_field(CB_COUNTERS_ROLE_DRAM_BYTES, &v) == &v.dram_bytes);
    CB_CHECK(cb_counters_role_field(CB_COUNTERS_ROLE_FLOPS, &v) == NULL);
    CB_CHECK(cb_counters_role_field(CB_COUNTERS_ROLE_NONE, &v) == NULL);
}

/* Open on one device whose chip the fake names; CB_OK or the refusal. */
static cb_status open_on(const char *chip, const char *spec, cb_counters **c, cb_msg *why)
{
    fake_reset(chip);
    int ordinal = 0;
    return cb_counters_open_with(spec, &ordinal, 1, &fake_ops, c, why);
}

/* Opening `spec` on `chip` must fail, opening nothing, with `want` in the
 * message; *why keeps the message for further checks. */
static void check_open_fails(const char *chip, const char *spec, const char *want, cb_msg *why)
{
    cb_counters *c = NULL;
    *why = (cb_msg){{0}};
    CB_CHECK(open_on(chip, spec, &c, why) == CB_FAIL);
    CB_CHECK(c == NULL);
    if (!strstr(why->text, want))
        fprintf(stderr, "'%s' -> %s (want '%s')\n", spec, why->text, want);
    CB_CHECK(strstr(why->text, want) != NULL);
}

static bool chip_has(const cb_counters *c, const char *name)
{
    const cb_counters_chip *chip = &c->chips[0];
    for (int i = 0; i < chip->n; i++)
        if (strcmp(chip->names[i], name) == 0) return true;
    return false;
}

static void test_spec_form(void)
{
    static const char *const bad[][2] = {
        {"", "empty"},
        {"sol,,memory", "empty"},
        {"solx", "neither a preset"},
        {"sol;dram__bytes.sum", "neither a preset"},
        {" , ", "empty"},
    };
    for (int i = 0; i < CB_ARRAY_LEN(bad); i++) {
        cb_msg why;
        check_open_fails("GH100", bad[i][0], bad[i][1], &why);
    }
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    memcpy(longname, "dram__", 6);
    cb_msg why;
    check_open_fails("GH100", longname, "longer than", &why);
    cb_counters *c = NULL;
    /* Repeats collapse: sol twice, a name twice. */
    CB_CHECK(open_on("GH100", "sol, sol ,dram__bytes.sum,dram__bytes.sum", &c, &why) == CB_OK);
    int once = c ? c->chips[0].n : -1;
    cb_counters_close(c);
    CB_CHECK(open_on("GH100", "sol", &c, &why) == CB_OK);
    CB_CHECK_EQ_INT(c ? c->chips[0].n : -2, once);
    CB_CHECK_STR(cb_counters_spec(c), "sol");
    cb_counters_close(c);
}

/* The presets resolve per chip: GH100 counts fp16 tensor ops in one
 * metric, GA100 in two; neither knows Turing's lumped one. */
static void test_presets_per_chip(void)
{
    cb_counters *c = NULL;
    cb_msg why = {{0}};
    CB_CHECK(open_on("GH100", "sol,memory,compute", &c, &why) == CB_OK);
    if (!c) return;
    CB_CHECK(c->chips[0].usable);
    CB_CHECK(chip_has(c, "dram__throughput.avg.pct_of_peak_sustained_elapsed"));
    CB_CHECK(chip_has(c, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"));
    CB_CHECK(
        !chip_has(c, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"));
    CB_CHECK(chip_has(c, "sm__ops_path_tensor_src_fp16.sum"));
    CB_CHECK(!chip_has(c, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
    CB_CHECK(chip_has(c, "sm__ops_path_tensor_src_fp8.sum"));
    CB_CHECK(!chip_has(c, "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum"));
    CB_CHECK(chip_has(c, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
    CB_CHECK(chip_has(c, "sm__warps_active.avg.pct_of_peak_sustained_active"));
    CB_CHECK(c->chips[0].passes > 0 && c->chips[0].config && c->chips[0].config_size > 0);
    CB_CHECK(cb_counters_notice(c) == NULL);
    int units_ok = 0;
    for (int i = 0; i < c->chips[0].n; i++) {
        const char *n = c->chips[0].names[i], *u = c->chips[0].units[i];
        if (strcmp(n, "dram__bytes.sum") == 0) units_ok += strcmp(u, "byte") == 0;
        if (strcmp(n, "gpu__time_duration.sum") == 0) units_ok += strcmp(u, "nanosecond") == 0;
        if (strstr(n, ".pct_of_peak")) units_ok += strcmp(u, "percent") == 0;
    }
    CB_CHECK(units_ok >= 8);
    cb_counters_close(c);

    CB_CHECK(open_on("GA100", "sol", &c, &why) == CB_OK);
    if (!c) return;
    CB_CHECK(chip_has(c, "sm__ops_path_tensor_src_fp16_dst_fp16.sum"));
    CB_CHECK(chip_has(c, "sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
    CB_CHECK(!chip_has(c, "sm__ops_path_tensor_src_fp16.sum"));
    CB_CHECK(!chip_has(c, "sm__ops_path_tensor_src_fp8.sum"));
    cb_counters_close(c);
    CB_CHECK_EQ_INT(fake_host_opens, 0); /* every host object closed */
}

/* A name the chip does not know is refused with the nearest ones. */
static void test_refusals_on_a_chip(void)
{
    static const char *const cases[][2] = {
        {"dram__byte.sum", "nearest: dram__bytes.sum"},
        {"dram__bytes", "needs a suffix; nearest: .sum"},
        {"dram__bytes.summ", "has no .summ; nearest: .sum"},
        {"lts__t_sector_hit_rate", "nearest: .pct"},
        {"sm__throughput.avg.pct_of_peak_sustained_elapse", ".avg.pct_of_peak_sustained_elapsed"},
        {"sm_throughput.avg.pct_of_peak_sustained_elapsed",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"sol,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.summ", "nearest: .sum"},
    };
    for (int i = 0; i < CB_ARRAY_LEN(cases); i++) {
        cb_msg why;
        check_open_fails("GH100", cases[i][0], cases[i][1], &why);
        CB_CHECK(strstr(why.text, "GH100") != NULL);
    }
    /* A Hopper-only name on an Ampere chip. */
    cb_msg why;
    check_open_fails("GA100", "sm__ops_path_tensor_src_fp8.sum", "GA100", &why);
    cb_counters *c = NULL;
    CB_CHECK(open_on("GH100", "sm__ops_path_tensor_src_fp8.sum", &c, &why) == CB_OK);
    cb_counters_close(c);
    CB_CHECK_EQ_INT(fake_host_opens, 0);
}

/* Without a GPU: refuse only what no chip knows, and say how names were
 * checked. */
static void test_without_a_device(void)
{
    cb_counters *c = NULL;
    cb_msg why = {{0}};
    CB_CHECK(cb_counters_open_with("sm__ops_path_tensor_src_fp8.sum", NULL, 0, &fake_ops, &c,
                                   &why) == CB_OK);
    CB_CHECK(c && cb_counters_notice(c) && strstr(cb_counters_notice(c), "2 chips"));
    cb_counters_close(c);
    CB_CHECK(cb_counters_open_with("dram__bytes.sum,bogus__thing.sum", NULL, 0, &fake_ops, &c,
                                   &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "bogus__thing.sum: no chip can collect it") != NULL);
    CB_CHECK(strstr(why.text, "all 2 tried") != NULL);
    CB_CHECK(cb_counters_open_with("sol,memory", NULL, 0, &fake_ops, &c, &why) == CB_OK);
    CB_CHECK(c && strstr(cb_counters_notice(c), "presets are resolved on a GPU's chip"));
    CB_CHECK_EQ_INT(c ? c->n_chips : -1, 0);
    cb_counters_close(c);
    CB_CHECK_EQ_INT(fake_host_opens, 0);
}

/* A profiler that does not initialize: every pass will skip, the notice
 * says so, and bad names are still refused. */
static void test_profiler_down(void)
{
    fake_reset("GH100");
    fake.fail_at = FAKE_INITIALIZE;
    fake.fail_with = CUPTI_ERROR_NOT_INITIALIZED;
    int ordinal = 0;
    cb_counters *c = NULL;
    cb_msg why = {{0}};
    CB_CHECK(cb_counters_open_with("sol", &ordinal, 1, &fake_ops, &c, &why) == CB_OK);
    CB_CHECK(c && strstr(cb_counters_notice(c), "device 0: every metric pass will be a skip"));
    CB_CHECK(c && strstr(cb_counters_notice(c), "CUPTI_ERROR_NOT_INITIALIZED"));
    cb_counters_close(c);
    fake.calls[FAKE_INITIALIZE] = 0;
    CB_CHECK(cb_counters_open_with("dram__bytez.sum", &ordinal, 1, &fake_ops, &c, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "no chip can collect it") != NULL);
    /* A chip this CUPTI does not know: a skip, not a refusal. */
    fake_reset("GZ999");
    CB_CHECK(cb_counters_open_with("sol", &ordinal, 1, &fake_ops, &c, &why) == CB_OK);
    CB_CHECK(c && strstr(cb_counters_notice(c), "does not support chip GZ999"));
    cb_counters_close(c);
}

/* The stand-in against CUPTI itself, where it can run. */
static void test_real_host(void)
{
#if CB_REAL_CUPTI_HOST
    cb_counters *c = NULL;
    cb_msg why = {{0}};
    cb_counters_ops real_host = {.host = NULL, .target = &fake_target};
    fake_reset("GH100");
    int ordinal = 0;
    CB_CHECK(cb_counters_open_with("sol,memory,compute", &ordinal, 1, &real_host, &c, &why) ==
             CB_OK);
    cb_counters *f = NULL;
    CB_CHECK(open_on("GH100", "sol,memory,compute", &f, &why) == CB_OK);
    if (c && f) {
        CB_CHECK_EQ_INT(c->chips[0].n, f->chips[0].n);
        for (int i = 0; i < c->chips[0].n && i < f->chips[0].n; i++) {
            CB_CHECK_STR(c->chips[0].names[i], f->chips[0].names[i]);
            if (strstr(c->chips[0].names[i], "pct")) CB_CHECK_STR(c->chips[0].units[i], "percent");
        }
        printf("CUPTI's host API on GH100: %d metrics, %zu passes\n", c->chips[0].n,
               c->chips[0].passes);
    }
    cb_counters_close(c);
    cb_counters_close(f);
    fake_reset("GH100");
    CB_CHECK(cb_counters_open_with("dram__byte.sum", &ordinal, 1, &real_host, &c, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "nearest: dram__bytes.sum") != NULL);
    /* The stand-in's grammar is CUPTI's: the same suffixes per type. */
    const cb_counters_host_ops *h = cb_counters_cupti_host();
    void *host = NULL;
    CB_CHECK(h->open("GH100", &host) == CUPTI_SUCCESS);
    static const char *const bases[] = {"dram__bytes", "lts__t_sector_hit_rate", "sm__throughput"};
    for (int b = 0; host && b < 3; b++) {
        cb_metric_props p;
        CB_CHECK(h->properties(host, bases[b], &p) == CUPTI_SUCCESS);
        const char *const *subs = NULL;
        size_t n = 0;
        CB_CHECK(h->submetrics(host, bases[b], p.type, &subs, &n) == CUPTI_SUCCESS);
        const char *mine[64];
        size_t m = fake_suffixes(p.type, mine);
        CB_CHECK_EQ_INT(n, m);
        for (size_t i = 0; i < n && i < m; i++)
            CB_CHECK_STR(subs[i], mine[i]);
    }
    if (host) h->close(host);
#else
    printf("CUPTI's own host API not asked: it cannot run under AddressSanitizer\n");
#endif
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--record") == 0) return record(argv[2]);
    if (!fake_host_load()) return 1;
    test_edit_distance();
    test_presets();
    test_spec_form();
    test_presets_per_chip();
    test_refusals_on_a_chip();
    test_without_a_device();
    test_profiler_down();
    test_real_host();
    return cb_test_finish("test_counters_names");
}
