// pageable_probe.cu - does a copy from or to pageable memory speed up over
// its first copies, and does the way the buffer was prepared change that?
// One process times `iters` cudaMemcpy calls of `bytes` between a pageable
// host buffer (posix_memalign) and device memory, each to completion, after
// preparing the buffer one way: 4 KiB pages (`plain`) or madvise huge pages
// (`huge`; the line reports the AnonHugePages the kernel granted), written
// by 16 threads (`mt`), one thread (`st`) or not at all (`none`), then
// copied right away or after `rest_ms` of rest. The staged path's two
// effects it found (h200-r3/staged-settle): 64 MiB H2D copies slide from
// 8-11 ms to 4.5-5.3 ms over their first 5-30 copies in every preparation;
// 1 GiB H2D copies switch between levels ~20 % apart in blocks of copies.
// Output, one line per process: median (and GB/s = 1e9 bytes/s of `bytes`
// copied), min, max, the first three and the last copy, the lag-1
// autocorrelation of the series and the loop's wall time, then the series.
// Build: nvcc -O2 -o pageable_probe pageable_probe.cu -lpthread
// Run:   for v in "plain mt 0" "plain mt 1000" "plain st 0" "huge mt 0" "huge mt 1000"; do
//          ./pageable_probe 67108864 h2d $v 60; done     (and d2h; 1073741824 with 25)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vector>

#include "probe_kernels.cuh"

static double now_s()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

struct fill_job {
    uint64_t *words;
    size_t begin, end;
};

// A distinct value in every word, so no page is left untouched or zero.
static void *fill_words(void *arg)
{
    const fill_job *j = (const fill_job *)arg;
    for (size_t i = j->begin; i < j->end; i++)
        j->words[i] = i * 0x9E3779B97F4A7C15ull;
    return nullptr;
}

static long anon_huge_kib()
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "AnonHugePages:", 14)) kib = atol(line + 14);
    fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s bytes h2d|d2h plain|huge mt|st|none rest_ms iters\n", argv[0]);
        return 2;
    }
    const size_t bytes = strtoull(argv[1], nullptr, 0);
    const bool h2d = !strcmp(argv[2], "h2d"), huge = !strcmp(argv[3], "huge");
    const char *fill = argv[4];
    const int rest_ms = atoi(argv[5]), iters = atoi(argv[6]);
    if (bytes < 8 || (!h2d && strcmp(argv[2], "d2h")) || (!huge && strcmp(argv[3], "plain")) ||
        (strcmp(fill, "mt") && strcmp(fill, "st") && strcmp(fill, "none")) || rest_ms < 0 ||
        iters < 3) {
        fprintf(stderr, "pageable_probe: bad arguments (bytes >= 8, iters >= 3)\n");
        return 2;
    }
    CK(cudaFree(nullptr));
    void *host = nullptr;
    if (posix_memalign(&host, huge ? (2u << 20) : 4096, bytes)) {
        fprintf(stderr, "pageable_probe: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    if (huge && madvise(host, bytes, MADV_HUGEPAGE)) perror("madvise");
    const size_t words = bytes / 8;
    if (strcmp(fill, "none")) {
        const int threads = !strcmp(fill, "mt") ? 16 : 1;
        pthread_t tid[16];
        fill_job jobs[16];
        for (int t = 0; t < threads; t++) {
            jobs[t] = {(uint64_t *)host, words * t / threads, words * (t + 1) / threads};
            if (pthread_create(&tid[t], nullptr, fill_words, &jobs[t])) return 1;
        }
        for (int t = 0; t < threads; t++)
            pthread_join(tid[t], nullptr);
    }
    const long huge_kib = anon_huge_kib();
    void *dev = nullptr;
    CK(cudaMalloc(&dev, bytes));
    CK(cudaMemset(dev, 1, bytes));
    CK(cudaDeviceSynchronize());
    if (rest_ms) usleep((useconds_t)rest_ms * 1000);

    std::vector<double> t;
    const double loop_start = now_s();
    for (int i = 0; i < iters; i++) {
        const double a = now_s();
        if (h2d)
            CK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
        else
            CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
        CK(cudaDeviceSynchronize());
        t.push_back(now_s() - a);
    }
    const double loop_s = now_s() - loop_start;

    std::vector<double> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    double mean = 0, num = 0, den = 0;
    for (double x : t)
        mean += x;
    mean /= t.size();
    for (size_t i = 0; i < t.size(); i++) {
        den += (t[i] - mean) * (t[i] - mean);
        if (i) num += (t[i] - mean) * (t[i - 1] - mean);
    }
    printf("%s %zu %s fill=%s rest=%d hugeKB=%ld: median %.3f ms = %.2f GB/s; min %.3f max %.3f; "
           "first3 %.3f %.3f %.3f last %.3f; lag1 %.2f; total %.2f s\n",
           argv[2], bytes, argv[3], fill, rest_ms, huge_kib, median * 1e3, bytes / median / 1e9,
           sorted[0] * 1e3, sorted.back() * 1e3, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3, t.back() * 1e3,
           den > 0 ? num / den : 0.0, loop_s);
    printf("  series ms:");
    for (double x : t)
        printf(" %.2f", x * 1e3);
    printf("\n");
    CK(cudaFree(dev));
    free(host);
    return 0;
}
