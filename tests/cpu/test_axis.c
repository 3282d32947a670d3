/* test_axis.c - the axis grammar: values, ranges, units, sm, words, errors;
 * powers with huge exponents, canonical texts that parse back, and hostile
 * input (megabyte lists and numbers) that must parse in linear time. */
/* test links: cubench_core */
#include "axis.h"
#include "cb_test.h"

#include <stdlib.h>
#include <time.h>

static const cb_axis_def int_axis = {.name = "n", .kind = CB_AXIS_INT, .min_value = 1};
static const cb_axis_def grid_axis = {
    .name = "grid", .kind = CB_AXIS_INT, .choices = "auto", .min_value = 1};
static const cb_axis_def enum_axis = {
    .name = "memory", .kind = CB_AXIS_ENUM, .choices = "pageable,pinned,wc"};

static cb_axis_values v;
static const cb_axis_context h200 = {.sm_count = 132};
static const cb_axis_context nodev = {.sm_count = 0};

static bool expand(const cb_axis_def *d, const char *spec, const cb_axis_context *ctx, cb_msg *err)
{
    return cb_axis_expand(d, spec, ctx, &v, err);
}

static void check_list(const char *spec, const long long *want, int n)
{
    cb_msg err = {{0}};
    bool ok = expand(&int_axis, spec, &h200, &err);
    CB_CHECK(ok);
    if (!ok) fprintf(stderr, "  spec '%s': %s\n", spec, err.text);
    CB_CHECK_EQ_INT(v.count, n);
    for (int i = 0; i < n && i < v.count; i++)
        CB_CHECK_EQ_INT(v.v[i].i, want[i]);
}

/* The spec must be rejected and the message must mention `needle`. */
static void check_error(const cb_axis_def *d, const char *spec, const cb_axis_context *ctx,
                        const char *needle)
{
    cb_msg err = {{0}};
    CB_CHECK(!expand(d, spec, ctx, &err));
    CB_CHECK(strstr(err.text, needle) != NULL);
    if (!strstr(err.text, needle))
        fprintf(stderr, "  spec '%s': message '%s' lacks '%s'\n", spec, err.text, needle);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static const cb_axis_def zero_axis = {.name = "fma", .kind = CB_AXIS_INT, .min_value = 0};

/* `text` is one VALUE equal to `want`. */
static void check_value(const char *text, long long want)
{
    cb_msg err = {{0}};
    int64_t x = -12345;
    bool ok = cb_axis_parse_value(text, &h200, &x, &err);
    CB_CHECK(ok);
    if (!ok) fprintf(stderr, "  value '%.40s': %s\n", text, err.text);
    CB_CHECK_EQ_INT(x, want);
}

/* Powers: exponentiation by squaring with overflow detection; 0^k and 1^k
 * for any k at once; garbage refused before any arithmetic. Each case must
 * take microseconds: a loop of 1e18 multiplications would hang the test
 * (ctest's 120 s timeout), which is the defect this reproduces. */
static void check_powers(void)
{
    double t0 = now_s();
    check_value("1^999999999999999999", 1);
    check_value("0^999999999999999999", 0);
    check_value("1^99999999999999999999999999999999999999", 1); /* past int64 */
    check_value("0^0", 1);
    check_value("7^0", 1);
    check_value("99999999999999999999999^0", 1);
    check_value("0^1", 0);
    check_value("2^62", 4611686018427387904LL);
    check_value("3^39", 4052555153018976267LL);
    check_value("10^18", 1000000000000000000LL);
    check_value("2^1", 2);
    cb_msg err = {{0}};
    int64_t x;
    CB_CHECK(!cb_axis_parse_value("2^63", &h200, &x, &err) && strstr(err.text, "too large"));
    CB_CHECK(!cb_axis_parse_value("3^40", &h200, &x, &err) && strstr(err.text, "too large"));
    CB_CHECK(!cb_axis_parse_value("2^999999999999999999", &h200, &x, &err) &&
             strstr(err.text, "too large"));
    /* Garbage after a huge power is the error, not the size. */
    CB_CHECK(!cb_axis_parse_value("1^999999999999999999x", &h200, &x, &err) &&
             strstr(err.text, "unexpected 'x'"));
    CB_CHECK(!cb_axis_parse_value("2^99999999999999999999q", &h200, &x, &err) &&
             strstr(err.text, "unexpected 'q'"));
    CB_CHECK(!cb_axis_parse_value("2^3^4", &h200, &x, &err) && strstr(err.text, "unexpected"));
    CB_CHECK(!cb_axis_parse_value("2^-1", &h200, &x, &err) && strstr(err.text, "exponent"));
    /* The same through expand, as `--axis 'n=1^999999999999999999'` is. */
    CB_CHECK(expand(&int_axis, "1^999999999999999999", &h200, &err) && v.count == 1 &&
             v.v[0].i == 1);
    CB_CHECK(expand(&zero_axis, "0^999999999999999999", &h200, &err) && v.count == 1 &&
             v.v[0].i == 0);
    check_error(&int_axis, "0^999999999999999999", &h200, "below the minimum");
    double took = now_s() - t0;
    CB_CHECK(took < 0.5);
    if (took >= 0.5) fprintf(stderr, "  powers took %.3f s\n", took);
}

/* Every canonical text the grammar writes (the `axes` cells of results.csv)
 * parses back to the same value, up to the 2^62 cap. */
static void check_round_trips(void)
{
    const char *specs[] = {
        "1,2,3",      "2^62", "2^61:2^62:x2", "4611686018427387904", "4611686018427387903",
        "1sm:8sm:x2", "3^39", "1G,1Gi,1TiB"};
    for (int s = 0; s < CB_ARRAY_LEN(specs); s++) {
        cb_msg err = {{0}};
        static cb_axis_values first, again;
        bool ok = cb_axis_expand(&int_axis, specs[s], &h200, &first, &err);
        CB_CHECK(ok);
        if (!ok) fprintf(stderr, "  spec '%s': %s\n", specs[s], err.text);
        for (int i = 0; ok && i < first.count; i++) {
            bool back = cb_axis_expand(&int_axis, first.v[i].text, &h200, &again, &err);
            CB_CHECK(back && again.count == 1 && again.v[0].i == first.v[i].i &&
                     strcmp(again.v[0].text, first.v[i].text) == 0);
            if (!back)
                fprintf(stderr, "  '%s' from '%s': %s\n", first.v[i].text, specs[s], err.text);
        }
    }
    cb_msg err;
    int64_t x;
    CB_CHECK(!cb_axis_parse_value("4611686018427387905", &h200, &x, &err) &&
             strstr(err.text, "too large"));
    CB_CHECK(!cb_axis_parse_value("99999999999999999999999", &h200, &x, &err) &&
             strstr(err.text, "too large"));
}

/* Hostile input: megabyte lists and numbers. Linear parsing takes
 * milliseconds; the bound of 1 s fails a quadratic one (1e12 steps). */
static void check_hostile(void)
{
    enum { BIG = 1 << 20 };
    char *s = malloc(BIG + 1);
    if (!s) return;
    cb_msg err = {{0}};
    double t0 = now_s();
    /* "1,1,1,...": one value once duplicates go. */
    for (int i = 0; i < BIG; i++)
        s[i] = i % 2 ? ',' : '1';
    s[BIG - 1] = '1';
    s[BIG] = '\0';
    bool ok = expand(&int_axis, s, &h200, &err);
    CB_CHECK(!ok && strstr(err.text, "more than"));
    /* Leading zeros: a megabyte number that is 1. */
    memset(s, '0', BIG);
    s[BIG - 1] = '1';
    CB_CHECK(expand(&int_axis, s, &h200, &err) && v.count == 1 && v.v[0].i == 1);
    /* A megabyte of digits is too large, and a megabyte exponent of 1 is fine. */
    s[0] = '1';
    CB_CHECK(!expand(&int_axis, s, &h200, &err) && strstr(err.text, "too large"));
    s[0] = '1';
    s[1] = '^';
    CB_CHECK(expand(&int_axis, s, &h200, &err) && v.count == 1 && v.v[0].i == 1);
    /* Many short ranges, each a duplicate of the first. */
    for (int i = 0; i + 6 <= BIG; i += 6)
        memcpy(s + i, "1:512,", 6);
    s[BIG - BIG % 6 - 1] = '\0';
    CB_CHECK(!expand(&int_axis, s, &h200, &err) && strstr(err.text, "more than"));
    double took = now_s() - t0;
    CB_CHECK(took < 1.0);
    if (took >= 1.0) fprintf(stderr, "  hostile inputs took %.3f s\n", took);
    free(s);
}

/* Without a device, `sm` values can be kept unresolved for planning. */
static void check_deferred(void)
{
    const cb_axis_context later = {.sm_count = 0, .defer_device = true};
    cb_msg err = {{0}};
    CB_CHECK(expand(&grid_axis, "auto,4sm,sm,1sm,1sm:8sm:x2,64", &later, &err));
    CB_CHECK_EQ_INT(v.count, 5); /* sm and 1sm are the same value */
    CB_CHECK_STR(v.v[0].text, "auto");
    CB_CHECK_STR(v.v[1].text, "4sm");
    CB_CHECK_EQ_INT(v.v[1].i, CB_AXIS_DEFERRED);
    CB_CHECK_STR(v.v[2].text, "1sm");
    CB_CHECK_STR(v.v[3].text, "1sm:8sm:x2");
    CB_CHECK_STR(v.v[4].text, "64");
    CB_CHECK(!expand(&grid_axis, "64,4smx", &later, &err) && strstr(err.text, "unexpected"));
    CB_CHECK(!expand(&grid_axis, "8sm:1sm", &later, &err) && strstr(err.text, "below its start"));
    CB_CHECK(!expand(&grid_axis, "0sm", &later, &err) && strstr(err.text, "below the minimum"));
    CB_CHECK(!expand(&grid_axis, "1sm:8sm:x1", &later, &err) && strstr(err.text, "x2 or more"));
    CB_CHECK(!expand(&grid_axis, "garbage", &later, &err) && strstr(err.text, "not a number"));
    /* Resolved against a device, the same spec is numbers. */
    CB_CHECK(expand(&grid_axis, "4sm", &h200, &err) && v.v[0].i == 528);
    /* A host benchmark's axis refuses `sm`, device or not. */
    const cb_axis_context host = {.sm_count = 132, .host = true};
    CB_CHECK(!expand(&grid_axis, "4sm", &host, &err) && strstr(err.text, "host benchmark"));
    CB_CHECK(!expand(&grid_axis, "64,1sm:2sm", &host, &err) && strstr(err.text, "SM count"));
    CB_CHECK(expand(&grid_axis, "64", &host, &err) && v.v[0].i == 64);
}

int main(void)
{
    check_powers();
    check_round_trips();
    check_hostile();
    check_deferred();

    check_list("32,64,128", (const long long[]){32, 64, 128}, 3);
    check_list(" 32 , 64 ", (const long long[]){32, 64}, 2);
    check_list("2^10:2^16:x4", (const long long[]){1024, 4096, 16384, 65536}, 4);
    check_list("2^10:2^17:x4", (const long long[]){1024, 4096, 16384, 65536}, 4);
    check_list("1:10:+3", (const long long[]){1, 4, 7, 10}, 4);
    check_list("1:4", (const long long[]){1, 2, 3, 4}, 4);
    check_list("4:12:4", (const long long[]){4, 8, 12}, 3);
    check_list("1sm:8sm:x2", (const long long[]){132, 264, 528, 1056}, 4);
    check_list("sm,2sm", (const long long[]){132, 264}, 2);
    check_list("4Ki,1Mi,1KiB,2GiB", (const long long[]){4096, 1 << 20, 1024, 2147483648LL}, 4);
    check_list("1k,2M,1G", (const long long[]){1000, 2000000, 1000000000}, 3);
    check_list("64,32,64", (const long long[]){64, 32}, 2); /* duplicates dropped */
    check_list("2^0", (const long long[]){1}, 1);

    cb_msg err;
    CB_CHECK(expand(&grid_axis, "auto,2sm", &h200, &err));
    CB_CHECK_EQ_INT(v.count, 2);
    CB_CHECK_EQ_INT(v.v[0].i, CB_AXIS_WORD);
    CB_CHECK_STR(v.v[0].text, "auto");
    CB_CHECK_STR(v.v[1].text, "264");

    CB_CHECK(expand(&enum_axis, "pinned,pageable", &nodev, &err));
    CB_CHECK_EQ_INT(v.count, 2);
    CB_CHECK_STR(v.v[0].text, "pinned");

    check_error(&int_axis, "", &h200, "no values");
    check_error(&int_axis, "abc", &h200, "not a number");
    check_error(&int_axis, "12q", &h200, "unexpected 'q'");
    check_error(&int_axis, "0", &h200, "below the minimum");
    check_error(&int_axis, "32,,64", &h200, "empty value");
    check_error(&int_axis, "64:32", &h200, "below its start");
    check_error(&int_axis, "1:64:x1", &h200, "x2 or more");
    check_error(&int_axis, "1:64:+0", &h200, "1 or more");
    check_error(&int_axis, "1:2:3:4", &h200, "too many ':'");
    check_error(&int_axis, "2^", &h200, "exponent");
    check_error(&int_axis, "2^99", &h200, "too large");
    check_error(&int_axis, "4sm", &nodev, "no CUDA device");
    check_error(&int_axis, "1:100000", &h200, "more than");
    check_error(&int_axis, "auto", &h200, "not a number");
    check_error(&enum_axis, "pinned,dram", &h200, "'dram' is not one of pageable,pinned,wc");
    check_error(&int_axis, "1:8:y2", &h200, "bad step");

    int64_t x;
    CB_CHECK(cb_axis_parse_value("3^3", &h200, &x, &err) && x == 27);
    CB_CHECK(!cb_axis_parse_value("-5", &h200, &x, &err));
    return cb_test_finish("test_axis");
}
