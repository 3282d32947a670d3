/* test_buffer_pool.c - the pool of idle buffers (harness/toolkit/
 * buffer_pool.h): a buffer comes back only for its own class, device,
 * size and key; every buffer is released exactly once (taken ones never); the caps
 * release the oldest first; a buffer over the byte cap is released at
 * once; drain releases everything. */
/* test links: cubench_toolkit */
#include "cb_test.h"
#include "buffer_pool.h"

#include <stdlib.h>

static int released_a, released_b;
static void *last_released;

static void release_a(void *p)
{
    released_a++;
    last_released = p;
    free(p);
}

static void release_b(void *p)
{
    released_b++;
    last_released = p;
    free(p);
}

static const cb_pool_class class_a = {"class a", release_a};
static const cb_pool_class class_b = {"class b", release_b};

static void test_matching(void)
{
    void *p = malloc(64), *q = malloc(64);
    cb_buffer_pool_give(&class_a, 0, 64, 0, p);
    cb_buffer_pool_give(&class_a, 1, 64, 0, q);
    CB_CHECK(cb_buffer_pool_take(&class_b, 0, 64, 0) == NULL); /* another class */
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 32, 0) == NULL); /* another size  */
    CB_CHECK(cb_buffer_pool_take(&class_a, 2, 64, 0) == NULL); /* another device */
    CB_CHECK(cb_buffer_pool_take(&class_a, 1, 64, 0) == q);
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 64, 0) == p);
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 64, 0) == NULL); /* taken: gone from the pool */
    /* Keys: a buffer kept for what it holds comes back for that key only. */
    cb_buffer_pool_give(&class_a, 0, 64, 0xfeed, p);
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 64, 0) == NULL);
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 64, 0xbeef) == NULL);
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 64, 0xfeed) == p);
    int n;
    uint64_t bytes;
    cb_buffer_pool_idle(&n, &bytes);
    CB_CHECK(n == 0 && bytes == 0);
    CB_CHECK(released_a == 0);
    free(p);
    free(q);
}

static void test_caps_and_drain(void)
{
    released_a = released_b = 0;
    cb_buffer_pool_set_caps(3, 1000);
    void *p[4];
    for (int i = 0; i < 4; i++)
        p[i] = malloc(100);
    for (int i = 0; i < 3; i++)
        cb_buffer_pool_give(&class_a, 0, 100, 0, p[i]);
    /* A fourth buffer: the oldest (p[0]) goes. */
    cb_buffer_pool_give(&class_b, 0, 100, 0, p[3]);
    CB_CHECK(released_a == 1 && last_released == p[0]);
    /* Over the byte cap on its own: released at once, the pool unchanged. */
    void *big = malloc(2000);
    cb_buffer_pool_give(&class_b, 0, 2000, 0, big);
    CB_CHECK(released_b == 1 && last_released == big);
    int n;
    uint64_t bytes;
    cb_buffer_pool_idle(&n, &bytes);
    CB_CHECK(n == 3 && bytes == 300);
    /* 950 bytes: the byte cap makes room by releasing the two oldest. */
    void *large = malloc(950);
    cb_buffer_pool_set_caps(16, 1100);
    cb_buffer_pool_give(&class_a, 0, 950, 0, large);
    cb_buffer_pool_idle(&n, &bytes);
    CB_CHECK(n == 2 && bytes == 1050);
    CB_CHECK(released_a == 3 && released_b == 1);
    /* The most recently given back of a size comes out first. */
    CB_CHECK(cb_buffer_pool_take(&class_a, 0, 950, 0) == large);
    free(large);
    cb_buffer_pool_drain();
    cb_buffer_pool_idle(&n, &bytes);
    CB_CHECK(n == 0 && bytes == 0);
    CB_CHECK(released_a == 3 && released_b == 2); /* p[3] */
    /* Caps of zero keep nothing. */
    cb_buffer_pool_set_caps(0, 1000);
    cb_buffer_pool_give(&class_a, 0, 8, 0, malloc(8));
    CB_CHECK(released_a == 4);
    cb_buffer_pool_set_caps(16, (uint64_t)8 << 30);
}

int main(void)
{
    test_matching();
    test_caps_and_drain();
    return cb_test_finish("test_buffer_pool");
}
