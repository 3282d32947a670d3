/* cb_test.h - a tiny assertion helper for the C tests (no framework).
 *
 *   CB_CHECK(cond)            counts a pass or prints the failed condition
 *   CB_CHECK_EQ_INT(a, b)     ... with both values
 *   CB_CHECK_NEAR(a, b, tol)  |a - b| <= tol
 *   CB_CHECK_REL(a, b, rel)   |a - b| <= rel * |b|
 *   CB_CHECK_STR(a, b)        strcmp(a, b) == 0
 *   return cb_test_finish("name");   prints "name: N passed, M failed"
 */
#ifndef CB_TEST_H
#define CB_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int cb_test_passed, cb_test_failed;

#define CB_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (cond) {                                                                                \
            cb_test_passed++;                                                                      \
        } else {                                                                                   \
            cb_test_failed++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CB_CHECK_EQ_INT(a, b)                                                                      \
    do {                                                                                           \
        long long cb_a_ = (long long)(a), cb_b_ = (long long)(b);                                  \
        if (cb_a_ == cb_b_) {                                                                      \
            cb_test_passed++;                                                                      \
        } else {                                                                                   \
            cb_test_failed++;                                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld vs %lld\n", __FILE__, __LINE__, #a, #b,  \
                    cb_a_, cb_b_);                                                                 \
        }                                                                                          \
    } while (0)

#define CB_CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                           \
        double cb_a_ = (a), cb_b_ = (b);                                                           \
        if (fabs(cb_a_ - cb_b_) <= (tol)) {                                                        \
            cb_test_passed++;                                                                      \
        } else {                                                                                   \
            cb_test_failed++;                                                                      \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.12g vs %.12g (tol %g)\n", __FILE__,          \
                    __LINE__, #a, #b, cb_a_, cb_b_, (double)(tol));                                \
        }                                                                                          \
    } while (0)

#define CB_CHECK_REL(a, b, rel)                                                                    \
    do {                                                                                           \
        double cb_a_ = (a), cb_b_ = (b);                                                           \
        if (fabs(cb_a_ - cb_b_) <= (rel)*fabs(cb_b_)) {                                            \
            cb_test_passed++;                                                                      \
        } else {                                                                                   \
            cb_test_failed++;                                                                      \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.12g vs %.12g (rel %g)\n", __FILE__,          \
                    __LINE__, #a, #b, cb_a_, cb_b_, (double)(rel));                                \
        }                                                                                          \
    } while (0)

#define CB_CHECK_STR(a, b)                                                                         \
    do {                                                                                           \
        const char *cb_a_ = (a), *cb_b_ = (b);                                                     \
        if (cb_a_ && cb_b_ && strcmp(cb_a_, cb_b_) == 0) {                                         \
            cb_test_passed++;                                                                      \
        } else {                                                                                   \
            cb_test_failed++;                                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" vs \"%s\"\n", __FILE__, __LINE__, #a,  \
                    #b, cb_a_ ? cb_a_ : "(null)", cb_b_ ? cb_b_ : "(null)");                       \
        }                                                                                          \
    } while (0)

static inline int cb_test_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, cb_test_passed, cb_test_failed);
    return cb_test_failed ? 1 : 0;
}

#endif
