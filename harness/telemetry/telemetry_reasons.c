/* telemetry_reasons.c - reason bits <-> words, and a point's telemetry flag. */
#include "telemetry_reasons.h"

#include "nvml_table.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Bit order = NVML's; the words are the (#12). */
static const struct {
    uint64_t bit;
    const char *word;
} cb_reason_words[] = {
    {CB_NVML_REASON_GPU_IDLE, "gpu_idle"},
    {CB_NVML_REASON_APPLICATIONS_CLOCKS, "applications_clocks_setting"},
    {CB_NVML_REASON_SW_POWER_CAP, "sw_power_cap"},
    {CB_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
    {CB_NVML_REASON_SYNC_BOOST, "sync_boost"},
    {CB_NVML_REASON_SW_THERMAL_SLOWDOWN, "sw_thermal_slowdown"},
    {CB_NVML_REASON_HW_THERMAL_SLOWDOWN, "hw_thermal_slowdown"},
    {CB_NVML_REASON_HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake_slowdown"},
    {CB_NVML_REASON_DISPLAY_CLOCK_SETTING, "display_clock_setting"},
};
#define CB_N_REASONS     ((int)(sizeof cb_reason_words / sizeof cb_reason_words[0]))
#define CB_KNOWN_REASONS 0x1ffULL
#define CB_OTHER_WORD    "other"

uint64_t cb_reasons_throttling_mask(void)
{
    return CB_NVML_REASON_SW_POWER_CAP | CB_NVML_REASON_HW_SLOWDOWN | CB_NVML_REASON_SYNC_BOOST |
           CB_NVML_REASON_SW_THERMAL_SLOWDOWN | CB_NVML_REASON_HW_THERMAL_SLOWDOWN |
           CB_NVML_REASON_HW_POWER_BRAKE_SLOWDOWN;
}

const char *cb_reason_word(uint64_t bit)
{
    for (int i = 0; i < CB_N_REASONS; i++)
        if (cb_reason_words[i].bit == bit) return cb_reason_words[i].word;
    return NULL;
}

/* Append `word` (with a '+' after the first) when it fits whole. */
static void append_word(char *buf, size_t len, size_t *used, const char *word)
{
    size_t need = strlen(word) + (*used ? 1 : 0);
    if (*used + need + 1 > len) return;
    if (*used) buf[(*used)++] = '+';
    memcpy(buf + *used, word, strlen(word) + 1);
    *used += strlen(word);
}

void cb_reasons_format(uint64_t mask, char *buf, size_t len)
{
    if (len == 0) return;
    buf[0] = '\0';
    if (mask == 0) {
        snprintf(buf, len, "none");
        return;
    }
    size_t used = 0;
    for (int i = 0; i < CB_N_REASONS; i++)
        if (mask & cb_reason_words[i].bit) append_word(buf, len, &used, cb_reason_words[i].word);
    if (mask & ~CB_KNOWN_REASONS) append_word(buf, len, &used, CB_OTHER_WORD);
}

/* 2^9 known combinations x (with or without "other"); the longest text is
 * the nine words and "other" with their '+': 165 characters. */
#define CB_REASON_TEXT_LEN 176
static char cb_reason_table[2 << 9][CB_REASON_TEXT_LEN];
static pthread_once_t cb_reason_once = PTHREAD_ONCE_INIT;

static void build_reason_table(void)
{
    for (unsigned i = 0; i < (2u << 9); i++) {
        uint64_t mask = (i & CB_KNOWN_REASONS) | ((i >> 9) ? (CB_KNOWN_REASONS + 1) : 0);
        cb_reasons_format(mask, cb_reason_table[i], CB_REASON_TEXT_LEN);
    }
}

const char *cb_reasons_text(uint64_t mask)
{
    pthread_once(&cb_reason_once, build_reason_table);
    unsigned i = (unsigned)(mask & CB_KNOWN_REASONS) | ((mask & ~CB_KNOWN_REASONS) ? 1u << 9 : 0);
    return cb_reason_table[i];
}

uint64_t cb_reasons_parse(const char *words)
{
    uint64_t mask = 0;
    if (!words) return 0;
    const char *p = words;
    while (*p) {
        const char *end = strchr(p, '+');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        for (int i = 0; i < CB_N_REASONS; i++)
            if (strlen(cb_reason_words[i].word) == n && strncmp(cb_reason_words[i].word, p, n) == 0)
                mask |= cb_reason_words[i].bit;
        if (n == strlen(CB_OTHER_WORD) && strncmp(p, CB_OTHER_WORD, n) == 0)
            mask |= CB_KNOWN_REASONS + 1;
        p += n;
        if (*p == '+') p++;
    }
    return mask;
}

bool cb_telemetry_flag(const cb_point_telemetry *t, char *buf, size_t len)
{
    if (len) buf[0] = '\0';
    if (!t->valid || len == 0) return false;
    size_t used = 0;
    uint64_t counted = cb_reasons_parse(t->throttle) & cb_reasons_throttling_mask();
    if (counted) {
        char words[CB_REASON_TEXT_LEN];
        cb_reasons_format(counted, words, sizeof words);
        int w = snprintf(buf, len, "throttled: %s", words);
        used = w > 0 ? (size_t)w : 0;
    }
    double lo = t->sm_clock_min_mhz, hi = t->sm_clock_max_mhz;
    if (isfinite(lo) && isfinite(hi) && hi > 0 && (hi - lo) / hi > CB_TELEMETRY_CLOCK_SPREAD &&
        used < len)
        snprintf(buf + used, len - used, "%sSM clock %.0f-%.0f MHz", used ? "; " : "", lo, hi);
    return buf[0] != '\0';
}

bool cb_reading_throttled(const cb_telemetry_reading *r, double reference_mhz, double share,
                          char *why, size_t len)
{
    uint64_t counted = r->reasons_valid ? r->reasons & cb_reasons_throttling_mask() : 0;
    if (counted) {
        if (why) cb_reasons_format(counted, why, len);
        return true;
    }
    /* An idle GPU parks its clock far down (345 MHz on an H200): that is
     * no throttle, and the next launch boosts it again. */
    bool idle = r->reasons_valid && (r->reasons & CB_NVML_REASON_GPU_IDLE);
    if (!idle && reference_mhz > 0 && isfinite(r->sm_clock_mhz) &&
        r->sm_clock_mhz < share * reference_mhz) {
        if (why)
            snprintf(why, len, "SM clock %.0f MHz < %.0f%% of %.0f MHz", r->sm_clock_mhz,
                     100 * share, reference_mhz);
        return true;
    }
    return false;
}
