/* fuzz_axis.c - libFuzzer target for the axis grammar (harness/core/axis.c).
 *
 * Input: one selector byte, then the SPEC. The selector picks the axis and
 * the device context, so that one corpus covers them all ('0'..'8' read as
 * 0..8; any other byte is taken as is):
 *   selector % 3       0: integer axis, min 1, the word `auto`
 *                      1: enum axis (pageable, pinned, wc)
 *                      2: integer axis, min 0, no words
 *   selector / 3 % 3   0: a device with 132 SMs; 1: no device (`sm` is an
 *                      error); 2: no device, `sm` items kept unresolved
 * Properties checked on every input (a violation aborts, which libFuzzer
 * reports with the input):
 *   - expansion returns, without memory errors (ASan/UBSan do the rest);
 *   - a rejection comes with a message;
 *   - an accepted spec has 1..CB_AXIS_MAX_VALUES values, no two with the
 *     same text; integers lie in [min, 2^62] and their text is their
 *     decimal form; words are choices; unresolved items only where allowed;
 *   - round trip: every value's canonical text expands, alone, to exactly
 *     that value (what `cubench run --axis NAME=TEXT` does with a written
 *     `axes` cell), and a single VALUE parses back through its decimal text.
 * Build and run: tests/fuzz/README.md.
 */
#define FUZZ_TARGET "fuzz_axis"
#include "fuzz.h"

#include "axis.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AXIS_LIMIT ((int64_t)1 << 62)

static const cb_axis_def axes[3] = {
    {.name = "grid", .kind = CB_AXIS_INT, .choices = "auto", .min_value = 1},
    {.name = "memory", .kind = CB_AXIS_ENUM, .choices = "pageable,pinned,wc"},
    {.name = "fma", .kind = CB_AXIS_INT, .min_value = 0},
};
static const cb_axis_context contexts[3] = {
    {.sm_count = 132},
    {.sm_count = 0},
    {.sm_count = 0, .defer_device = true},
};

/* Is `word` one of the comma-separated `choices`? Written apart from the
 * parser's own test: ",word," inside ",choices,". */
static bool is_choice(const char *choices, const char *word)
{
    if (!choices || strchr(word, ',')) return false;
    char list[1024], item[1024];
    int nl = snprintf(list, sizeof list, ",%s,", choices);
    int ni = snprintf(item, sizeof item, ",%s,", word);
    if (nl >= (int)sizeof list || ni >= (int)sizeof item) abort(); /* value texts are short */
    return strstr(list, item) != NULL;
}

static void check_value(const cb_axis_def *def, const cb_axis_context *ctx, const cb_axis_value *v)
{
    if (v->i == CB_AXIS_WORD) {
        FUZZ_ASSERT(is_choice(def->choices, v->text));
    } else if (v->i == CB_AXIS_DEFERRED) {
        FUZZ_ASSERT(ctx->defer_device && ctx->sm_count == 0);
        FUZZ_ASSERT(strstr(v->text, "sm") != NULL);
    } else {
        FUZZ_ASSERT(def->kind == CB_AXIS_INT);
        FUZZ_ASSERT(v->i >= def->min_value && v->i >= 0 && v->i <= AXIS_LIMIT);
        char dec[32];
        snprintf(dec, sizeof dec, "%" PRId64, v->i);
        FUZZ_ASSERT(strcmp(dec, v->text) == 0);
    }
    /* Round trip: the canonical text alone gives back exactly this value. */
    static cb_axis_values again;
    cb_msg err = {{0}};
    FUZZ_ASSERT(cb_axis_expand(def, v->text, ctx, &again, &err));
    FUZZ_ASSERT(again.count == 1);
    FUZZ_ASSERT(again.v[0].i == v->i);
    FUZZ_ASSERT(strcmp(again.v[0].text, v->text) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int sel = data[0] >= '0' && data[0] <= '8' ? data[0] - '0' : data[0];
    const cb_axis_def *def = &axes[sel % 3];
    const cb_axis_context *ctx = &contexts[sel / 3 % 3];
    /* The spec as a C string: an interior NUL ends it, as in argv. */
    char *spec = malloc(size);
    if (!spec) return 0;
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = '\0';

    static cb_axis_values vals;
    cb_msg err = {{0}};
    if (!cb_axis_expand(def, spec, ctx, &vals, &err)) {
        FUZZ_ASSERT(err.text[0] != '\0');
    } else {
        FUZZ_ASSERT(vals.count >= 1 && vals.count <= CB_AXIS_MAX_VALUES);
        for (int i = 0; i < vals.count; i++) {
            for (int j = 0; j < i; j++)
                FUZZ_ASSERT(strcmp(vals.v[i].text, vals.v[j].text) != 0);
            /* check_value reuses its own buffer; vals stays intact. */
            check_value(def, ctx, &vals.v[i]);
        }
    }
    /* One VALUE: an accepted one parses back through its decimal text. */
    int64_t x = -1, y = -1;
    err.text[0] = '\0';
    if (cb_axis_parse_value(spec, ctx, &x, &err)) {
        FUZZ_ASSERT(x >= 0 && x <= AXIS_LIMIT);
        char dec[32];
        snprintf(dec, sizeof dec, "%" PRId64, x);
        FUZZ_ASSERT(cb_axis_parse_value(dec, ctx, &y, &err) && y == x);
    } else {
        FUZZ_ASSERT(err.text[0] != '\0');
    }
    free(spec);
    return 0;
}
