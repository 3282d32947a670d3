/* test_axis.c - the axis grammar: values, ranges, units, sm, words, errors. */
#include "axis.h"
#include "cb_test.h"

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

int main(void)
{
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
