/* buffer_pool.c - idle buffers kept across points (buffer_pool.h): a small
 * array in the order they were given back, oldest first. */
#include "buffer_pool.h"

#include <pthread.h>
#include <string.h>

#define CB_POOL_SLOTS 64

typedef struct pool_entry {
    const cb_pool_class *cls;
    int device;
    size_t bytes;
    uint64_t key;
    void *ptr;
} pool_entry;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_entry pool[CB_POOL_SLOTS];
static int pool_n;
static int cap_buffers = 16;
static uint64_t cap_bytes = (uint64_t)8 << 30;

static uint64_t idle_bytes(void)
{
    uint64_t sum = 0;
    for (int i = 0; i < pool_n; i++)
        sum += pool[i].bytes;
    return sum;
}

/* Remove entry i (keeping the order) and return it. */
static pool_entry pool_remove(int i)
{
    pool_entry e = pool[i];
    memmove(&pool[i], &pool[i + 1], sizeof pool[0] * (size_t)(pool_n - i - 1));
    pool_n--;
    return e;
}

/* Release the oldest entries until the caps hold with `extra` more bytes
 * and one more buffer to come; the released ones are returned in `out`
 * (freed by the caller outside the lock: a free may take long). */
static int pool_trim(uint64_t extra, int room, pool_entry *out)
{
    int n_out = 0;
    while (pool_n > 0 && (pool_n + room > cap_buffers || idle_bytes() + extra > cap_bytes))
        out[n_out++] = pool_remove(0);
    return n_out;
}

static void release_all(const pool_entry *e, int n)
{
    for (int i = 0; i < n; i++)
        e[i].cls->release(e[i].ptr);
}

void *cb_buffer_pool_take(const cb_pool_class *cls, int device, size_t bytes, uint64_t key)
{
    void *ptr = NULL;
    pthread_mutex_lock(&pool_lock);
    /* The most recently given back first: its pages are the warmest. */
    for (int i = pool_n - 1; i >= 0; i--) {
        const pool_entry *e = &pool[i];
        if (e->cls == cls && e->device == device && e->bytes == bytes && e->key == key) {
            ptr = pool_remove(i).ptr;
            break;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return ptr;
}

void cb_buffer_pool_give(const cb_pool_class *cls, int device, size_t bytes, uint64_t key,
                         void *ptr)
{
    if (!ptr) return;
    pool_entry out[CB_POOL_SLOTS];
    int n_out = 0;
    bool kept = false;
    pthread_mutex_lock(&pool_lock);
    if ((uint64_t)bytes <= cap_bytes && cap_buffers > 0) {
        n_out = pool_trim(bytes, 1, out);
        pool[pool_n++] = (pool_entry){cls, device, bytes, key, ptr};
        kept = true;
    }
    pthread_mutex_unlock(&pool_lock);
    release_all(out, n_out);
    if (!kept) cls->release(ptr);
}

void cb_buffer_pool_drain(void)
{
    pool_entry out[CB_POOL_SLOTS];
    pthread_mutex_lock(&pool_lock);
    const int n_out = pool_n;
    memcpy(out, pool, sizeof pool[0] * (size_t)pool_n);
    pool_n = 0;
    pthread_mutex_unlock(&pool_lock);
    release_all(out, n_out);
}

void cb_buffer_pool_idle(int *buffers, uint64_t *bytes)
{
    pthread_mutex_lock(&pool_lock);
    *buffers = pool_n;
    *bytes = idle_bytes();
    pthread_mutex_unlock(&pool_lock);
}

void cb_buffer_pool_set_caps(int max_buffers, uint64_t max_bytes)
{
    pool_entry out[CB_POOL_SLOTS];
    pthread_mutex_lock(&pool_lock);
    cap_buffers = max_buffers < 0 ? 0 : max_buffers > CB_POOL_SLOTS ? CB_POOL_SLOTS : max_buffers;
    cap_bytes = max_bytes;
    const int n_out = pool_trim(0, 0, out);
    pthread_mutex_unlock(&pool_lock);
    release_all(out, n_out);
}
