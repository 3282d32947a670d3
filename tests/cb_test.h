/* cb_test.h - the assertion helper of the C tests (no framework: a test
 * file is a main() calling static functions).
 *
 *   CB_CHECK(cond)                 counts a pass or prints the failed condition
 *   CB_CHECK_MSG(cond, fmt, ...)   ... and a printf-style detail
 *   CB_CHECK_EQ_INT(a, b)          ... with both values
 *   CB_CHECK_NEAR(a, b, tol)       |a - b| <= tol
 *   CB_CHECK_REL(a, b, rel)        |a - b| <= rel * |b|
 *   CB_CHECK_STR(a, b)             strcmp(a, b) == 0 (NULL never matches)
 *   CB_CHECK_CONTAINS(hay, needle) strstr(hay, needle) (a NULL hay fails)
 *   return cb_test_finish("name");   prints "name: N passed, M failed"
 *
 *   cb_test_uniform(&state)        a reproducible uniform double in (0, 1)
 *   argc = cb_test_argv(argv, cap, "compare", first, ap)   argv for a main()
 *
 * A failure prints "FILE:LINE: check failed: WHAT: DETAIL" on stderr. */
#ifndef CB_TEST_H
#define CB_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int cb_test_passed, cb_test_failed;

/* Count a failure and print where, what, and the detail when there is one. */
__attribute__((format(printf, 4, 5))) static inline void
cb_test_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    cb_test_failed++;
    fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, what, detail[0] ? ": " : "",
            detail);
}

/* Count `ok` as a pass, or as a failure described by `what` and the detail. */
#define CB_CHECK_THAT(ok, what, ...)                                                               \
    do {                                                                                           \
        if (ok)                                                                                    \
            cb_test_passed++;                                                                      \
        else                                                                                       \
            cb_test_fail(__FILE__, __LINE__, what, __VA_ARGS__);                                   \
    } while (0)

#define CB_CHECK(cond)          CB_CHECK_THAT(cond, #cond, "%s", "")
#define CB_CHECK_MSG(cond, ...) CB_CHECK_THAT(cond, #cond, __VA_ARGS__)

#define CB_CHECK_EQ_INT(a, b)                                                                      \
    do {                                                                                           \
        long long cb_a_ = (long long)(a), cb_b_ = (long long)(b);                                  \
        CB_CHECK_THAT(cb_a_ == cb_b_, #a " == " #b, "%lld vs %lld", cb_a_, cb_b_);                 \
    } while (0)

#define CB_CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                           \
        double cb_a_ = (a), cb_b_ = (b);                                                           \
        CB_CHECK_THAT(fabs(cb_a_ - cb_b_) <= (tol), #a " ~ " #b, "%.17g vs %.17g (tol %g)", cb_a_, \
                      cb_b_, (double)(tol));                                                       \
    } while (0)

#define CB_CHECK_REL(a, b, rel)                                                                    \
    do {                                                                                           \
        double cb_a_ = (a), cb_b_ = (b);                                                           \
        CB_CHECK_THAT(fabs(cb_a_ - cb_b_) <= (rel)*fabs(cb_b_), #a " ~ " #b,                       \
                      "%.17g vs %.17g (rel %g)", cb_a_, cb_b_, (double)(rel));                     \
    } while (0)

#define CB_CHECK_STR(a, b)                                                                         \
    do {                                                                                           \
        const char *cb_a_ = (a), *cb_b_ = (b);                                                     \
        CB_CHECK_THAT(cb_a_ &&cb_b_ &&strcmp(cb_a_, cb_b_) == 0, #a " == " #b, "\"%s\" vs \"%s\"", \
                      cb_a_ ? cb_a_ : "(null)", cb_b_ ? cb_b_ : "(null)");                         \
    } while (0)

#define CB_CHECK_CONTAINS(hay, needle)                                                             \
    do {                                                                                           \
        const char *cb_h_ = (hay), *cb_n_ = (needle);                                              \
        CB_CHECK_THAT(cb_h_ &&strstr(cb_h_, cb_n_), #hay " contains " #needle, "'%s' not in '%s'", \
                      cb_n_, cb_h_ ? cb_h_ : "(null)");                                            \
    } while (0)

/* splitmix64 turned into a double in (0, 1): reproducible test inputs, one
 * `state` per stream of numbers. */
static inline double cb_test_uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

/* The argv a command's main() gets: `command`, then `first` and the rest of
 * the NULL-terminated list `rest` (at most cap - 2 words), then NULL.
 * Returns argc. */
static inline int cb_test_argv(char **argv, int cap, const char *command, const char *first,
                               va_list rest)
{
    int argc = 0;
    argv[argc++] = (char *)command;
    for (const char *a = first; a && argc < cap - 1; a = va_arg(rest, const char *))
        argv[argc++] = (char *)a;
    argv[argc] = NULL;
    return argc;
}

static inline int cb_test_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, cb_test_passed, cb_test_failed);
    return cb_test_failed ? 1 : 0;
}

#endif
