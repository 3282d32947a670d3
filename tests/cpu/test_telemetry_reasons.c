/* test_telemetry_reasons.c - clock-event reason words (format, parse, the
 * static table) and the flag a throttled or clock-shifted point gets. */
/* test links: cubench_telemetry */
#include "cb_test.h"
#include "nvml_table.h"
#include "telemetry_reasons.h"

static void test_words(void)
{
    char buf[200];
    cb_reasons_format(0, buf, sizeof buf);
    CB_CHECK_STR(buf, "none");
    cb_reasons_format(CB_NVML_REASON_SW_POWER_CAP, buf, sizeof buf);
    CB_CHECK_STR(buf, "sw_power_cap");
    cb_reasons_format(CB_NVML_REASON_GPU_IDLE | CB_NVML_REASON_SW_POWER_CAP, buf, sizeof buf);
    CB_CHECK_STR(buf, "gpu_idle+sw_power_cap");
    cb_reasons_format(0x1ff, buf, sizeof buf);
    CB_CHECK_STR(buf, "gpu_idle+applications_clocks_setting+sw_power_cap+hw_slowdown+sync_boost+"
                      "sw_thermal_slowdown+hw_thermal_slowdown+hw_power_brake_slowdown+"
                      "display_clock_setting");
    /* A bit NVML may add later is shown, not dropped. */
    cb_reasons_format(0x400 | CB_NVML_REASON_HW_SLOWDOWN, buf, sizeof buf);
    CB_CHECK_STR(buf, "hw_slowdown+other");
    /* Too small a buffer: whole words only. */
    char small[20];
    cb_reasons_format(CB_NVML_REASON_GPU_IDLE | CB_NVML_REASON_SW_POWER_CAP |
                          CB_NVML_REASON_HW_SLOWDOWN,
                      small, sizeof small);
    CB_CHECK_STR(small, "gpu_idle");
    CB_CHECK_STR(cb_reason_word(CB_NVML_REASON_HW_POWER_BRAKE_SLOWDOWN), "hw_power_brake_slowdown");
    CB_CHECK(cb_reason_word(0x400) == NULL);
}

static void test_table_and_parse(void)
{
    /* Every combination of the nine named bits round-trips, and the static
     * table says the same as the formatter. */
    int bad = 0;
    for (uint64_t m = 0; m < 512; m++) {
        char buf[200];
        cb_reasons_format(m, buf, sizeof buf);
        if (strcmp(buf, cb_reasons_text(m)) != 0) bad++;
        if (cb_reasons_parse(buf) != m) bad++;
    }
    CB_CHECK_EQ_INT(bad, 0);
    CB_CHECK(cb_reasons_text(4) == cb_reasons_text(4)); /* stable storage */
    CB_CHECK_STR(cb_reasons_text(0x800), "other");
    CB_CHECK_EQ_INT(cb_reasons_parse(""), 0);
    CB_CHECK_EQ_INT(cb_reasons_parse("none"), 0);
    CB_CHECK_EQ_INT(cb_reasons_parse("bogus+sw_power_cap"), CB_NVML_REASON_SW_POWER_CAP);
}

static void test_counted(void)
{
    uint64_t m = cb_reasons_throttling_mask();
    CB_CHECK(!(m & CB_NVML_REASON_GPU_IDLE));
    CB_CHECK(!(m & CB_NVML_REASON_APPLICATIONS_CLOCKS));
    CB_CHECK(!(m & CB_NVML_REASON_DISPLAY_CLOCK_SETTING));
    CB_CHECK(m & CB_NVML_REASON_SW_POWER_CAP);
    CB_CHECK(m & CB_NVML_REASON_HW_SLOWDOWN);
    CB_CHECK(m & CB_NVML_REASON_SYNC_BOOST);
    CB_CHECK(m & CB_NVML_REASON_SW_THERMAL_SLOWDOWN);
    CB_CHECK(m & CB_NVML_REASON_HW_THERMAL_SLOWDOWN);
    CB_CHECK(m & CB_NVML_REASON_HW_POWER_BRAKE_SLOWDOWN);
}

static cb_point_telemetry steady(const char *throttle, double lo, double hi)
{
    cb_point_telemetry t;
    memset(&t, 0, sizeof t);
    t.valid = true;
    t.sm_clock_min_mhz = lo;
    t.sm_clock_median_mhz = hi;
    t.sm_clock_max_mhz = hi;
    snprintf(t.throttle, sizeof t.throttle, "%s", throttle);
    return t;
}

static void test_flag(void)
{
    char flag[160];
    cb_point_telemetry t = steady("none", 1980, 1980);
    CB_CHECK(!cb_telemetry_flag(&t, flag, sizeof flag));
    CB_CHECK_STR(flag, "");
    t = steady("gpu_idle+applications_clocks_setting", 1980, 1980);
    CB_CHECK(!cb_telemetry_flag(&t, flag, sizeof flag));
    t = steady("gpu_idle+sw_power_cap", 1980, 1980);
    CB_CHECK(cb_telemetry_flag(&t, flag, sizeof flag));
    CB_CHECK_STR(flag, "throttled: sw_power_cap");
    /* 1965..1980 is one boost step (0.8%): not a move; 1755..1980 is 11%. */
    t = steady("none", 1965, 1980);
    CB_CHECK(!cb_telemetry_flag(&t, flag, sizeof flag));
    t = steady("none", 1755, 1980);
    CB_CHECK(cb_telemetry_flag(&t, flag, sizeof flag));
    CB_CHECK_STR(flag, "SM clock 1755-1980 MHz");
    t = steady("hw_slowdown+hw_thermal_slowdown", 1410, 1980);
    CB_CHECK(cb_telemetry_flag(&t, flag, sizeof flag));
    CB_CHECK_STR(flag, "throttled: hw_slowdown+hw_thermal_slowdown; SM clock 1410-1980 MHz");
    /* Without telemetry, or without clock readings: no flag. */
    t = steady("sw_power_cap", 1755, 1980);
    t.valid = false;
    CB_CHECK(!cb_telemetry_flag(&t, flag, sizeof flag));
    t = steady("", NAN, NAN);
    CB_CHECK(!cb_telemetry_flag(&t, flag, sizeof flag));
}

/* The rule of throttle-aware sampling: a counted reason, or a clock under
 * the share of the reference while the GPU is not idle. */
static void test_reading_throttled(void)
{
    char why[64];
    cb_telemetry_reading r = {.sm_clock_mhz = 1980, .reasons_valid = true};
    CB_CHECK(!cb_reading_throttled(&r, 1980, 0.9, why, sizeof why));
    r.reasons = CB_NVML_REASON_SW_POWER_CAP;
    CB_CHECK(cb_reading_throttled(&r, 1980, 0.9, why, sizeof why));
    CB_CHECK_STR(why, "sw_power_cap");
    r.reasons = CB_NVML_REASON_APPLICATIONS_CLOCKS; /* a setting, not a throttle */
    CB_CHECK(!cb_reading_throttled(&r, 1980, 0.9, why, sizeof why));
    r.sm_clock_mhz = 1380; /* capped without a reason word: the clock says it */
    CB_CHECK(cb_reading_throttled(&r, 1980, 0.9, why, sizeof why));
    CB_CHECK(strstr(why, "SM clock 1380 MHz < 90% of 1980 MHz") != NULL);
    CB_CHECK(!cb_reading_throttled(&r, 0, 0.9, why, sizeof why)); /* no reference: no rule */
    r.sm_clock_mhz = 345;
    r.reasons = CB_NVML_REASON_GPU_IDLE; /* idle parks the clock: not a throttle */
    CB_CHECK(!cb_reading_throttled(&r, 1980, 0.9, why, sizeof why));
    r.reasons_valid = false;
    r.reasons = CB_NVML_REASON_SW_POWER_CAP; /* a failed reasons call: the clock still counts */
    CB_CHECK(cb_reading_throttled(&r, 1980, 0.9, NULL, 0));
}

int main(void)
{
    test_reading_throttled();
    test_words();
    test_table_and_parse();
    test_counted();
    test_flag();
    return cb_test_finish("test_telemetry_reasons");
}
