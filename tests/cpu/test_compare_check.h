/* test_compare_check.h - the assertion helper of the compare and CSV reader
 * tests: count checks, print each failure with file:line, and end with one
 * line "NAME: P passed, F failed" and a non-zero exit status on any failure.
 * No framework: a test file is a main() calling static functions. */
#ifndef CB_TEST_COMPARE_CHECK_H
#define CB_TEST_COMPARE_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int cb_t_passed, cb_t_failed;

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (cond) {                                                                                \
            cb_t_passed++;                                                                         \
        } else {                                                                                   \
            cb_t_failed++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK(cond) CHECK_MSG(cond, "%s", "")

/* |a - b| <= tol, printing both values when not. */
#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double cb_t_a_ = (a), cb_t_b_ = (b);                                                       \
        CHECK_MSG(fabs(cb_t_a_ - cb_t_b_) <= (tol), "%.17g vs %.17g (tol %g)", cb_t_a_, cb_t_b_,   \
                  (double)(tol));                                                                  \
    } while (0)

/* `hay` (a string, may be NULL) contains `needle`. */
#define CHECK_CONTAINS(hay, needle)                                                                \
    do {                                                                                           \
        const char *cb_t_h_ = (hay), *cb_t_n_ = (needle);                                          \
        CHECK_MSG(cb_t_h_ &&strstr(cb_t_h_, cb_t_n_), "'%s' not in '%s'", cb_t_n_,                 \
                  cb_t_h_ ? cb_t_h_ : "(null)");                                                   \
    } while (0)

static inline int cb_t_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, cb_t_passed, cb_t_failed);
    return cb_t_failed ? 1 : 0;
}

#endif
