/* transfers.c - the transfers family: moving data between host and device.
 *
 * A ladder, in the order `cubench list` shows it:
 *   memcpy_sync   cudaMemcpy from/to pageable, pinned, registered and
 *                 write-combined memory (what most code starts with)
 *   memcpy_async  cudaMemcpyAsync on the runner's stream: the same copies,
 *                 queued; from pageable memory still staged by the driver
 *   bidir         H2D and D2H at once on two streams: PCIe is full duplex
 *   zero_copy     a kernel reading/writing mapped pinned host memory
 *   overlap       H2D -> kernel -> D2H in chunks over 1..8 streams, with the
 *                 single stages measured alike to give the ideal
 *   d2d           cudaMemcpyAsync within device memory, the DRAM reference
 * docs/transfers.md explains each step, the byte conventions and the fits
 * (t = alpha + bytes / beta per curve, written to fits.csv by fit.c).
 *
 * Work model (see also transfers.h): GB/s counts the bytes that cross PCIe
 * for host transfers, both directions for bidir, and read + write for d2d. */
#include "transfers.h"
#include "common_axes.h"

#include <math.h>

double cb_xfer_bytes_copy(const cb_point *p)
{
    return (double)cb_point_int(p, "bytes");
}

double cb_xfer_bytes_two_way(const cb_point *p)
{
    return 2.0 * (double)cb_point_int(p, "bytes");
}

double cb_xfer_bytes_overlap(const cb_point *p)
{
    double size = (double)cb_point_int(p, "bytes");
    if (cb_point_is(p, "stage", "pipeline")) return 2.0 * size;
    if (cb_point_is(p, "stage", "kernel")) return NAN; /* no PCIe traffic */
    return size;
}

double cb_xfer_flops_overlap(const cb_point *p)
{
    if (cb_point_is(p, "stage", "h2d") || cb_point_is(p, "stage", "d2h")) return NAN;
    return 2.0 * (double)cb_point_int(p, "fma") * (double)(cb_point_int(p, "bytes") / 4);
}

#define MEMORY_CHOICES "pageable,pinned,registered,wc"
#define MEMORY_HELP                                                                                \
    "host memory: pageable (malloc), pinned (cudaMallocHost), registered (cudaHostRegister), "     \
    "wc (write-combined pinned)"

/* The axes every copy shares: which way and from what host memory; how
 * much is a CB_AXIS_BYTES entry (common_axes.h) with its own help. */
#define DIRECTION_AXIS(help_text)                                                                  \
    {                                                                                              \
        .name = "direction", CB_AXIS_ENUM_ALL("h2d,d2h"), .help = help_text                        \
    }
#define MEMORY_AXIS(defaults_list)                                                                 \
    {                                                                                              \
        .name = "memory", .kind = CB_AXIS_ENUM, .defaults = defaults_list,                         \
        .choices = MEMORY_CHOICES, .help = MEMORY_HELP                                             \
    }
#define DIRECTION_HELP "h2d: host to device, d2h: device to host"

/* 1 KiB to 1 GiB in x16 steps plus 256 MiB: 7 sizes. The small ones pin the
 * fit's latency, the large ones its bandwidth, and 256 MiB and 1 GiB are the
 * two sizes where a copy runs at its asymptotic rate (the figure people
 * quote). An earlier default of x4 steps (11 sizes) added points on the straight parts
 * of the curve only, and cost a fifth of the default suite's time. */
#define SIZES_1K_1G "2^10,2^14,2^18,2^22,2^26,2^28,2^30"

static const cb_axis_def sync_axes[] = {
    DIRECTION_AXIS(DIRECTION_HELP),
    /* Registered and write-combined memory copy like pinned memory; they are
     * in the async defaults and one --axis away here. */
    MEMORY_AXIS("pageable,pinned"),
    {CB_AXIS_BYTES, .defaults = SIZES_1K_1G, .help = "bytes per copy"},
};

static const cb_axis_def async_axes[] = {
    DIRECTION_AXIS(DIRECTION_HELP),
    MEMORY_AXIS(MEMORY_CHOICES),
    {CB_AXIS_BYTES, .defaults = SIZES_1K_1G, .help = "bytes per copy"},
};

static const cb_axis_def bidir_axes[] = {
    MEMORY_AXIS("pageable,pinned"),
    /* Duplex only shows once each copy is long: from 1 MiB up (x16, plus
     * 256 MiB where it peaks on the H200). */
    {CB_AXIS_BYTES, .defaults = "2^20,2^24,2^28,2^30",
     .help = "bytes copied each way (the work model counts both)"},
};

static const cb_axis_def zero_copy_axes[] = {
    DIRECTION_AXIS("h2d: the kernel reads host memory, d2h: it writes host memory"),
    {CB_AXIS_BYTES, .defaults = SIZES_1K_1G, .help = "bytes per kernel"},
};

static const cb_axis_def overlap_axes[] = {
    {.name = "stage",
     CB_AXIS_ENUM_ALL("h2d,kernel,d2h,pipeline"),
     .help = "what one run does with the chunks: one stage alone, or all three pipelined"},
    {.name = "streams",
     .kind = CB_AXIS_INT,
     .defaults = "1,2,4,8",
     .min_value = 1,
     .help = "chunks = streams (1..32); 1 is the serial baseline"},
    /* Not CB_AXIS_BYTES: the chunks are floats, so at least 4 bytes. */
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = "2^28",
     .min_value = 4,
     .help = "bytes of float input (and of output)"},
    /* 2048 FMAs per 4-byte element: at the FP32 FMA rate of an H200 that
     * takes about as long as moving the 4 bytes over PCIe Gen5. */
    {.name = "fma",
     .kind = CB_AXIS_INT,
     .defaults = "2048",
     .min_value = 0,
     .help = "dependent FMAs per element in the kernel"},
};

static const cb_axis_def d2d_axes[] = {
    {CB_AXIS_BYTES, .defaults = SIZES_1K_1G,
     .help = "bytes per copy (the work model counts read + write: 2 x bytes)"},
};

/* The copies, as facts (transfers.h): legs, sync or async, side streams. */
static const cb_xfer_copy copy_sync = {
    .sync = true, .by_direction = true, .note = "cudaMemcpy, host-timed to completion"};
static const cb_xfer_copy copy_async = {.by_direction = true,
                                        .note = "cudaMemcpyAsync on the runner's stream"};
static const cb_xfer_copy copy_bidir = {
    .n_legs = 2,
    .legs = {{.src = {CB_XFER_HOST, 0}, .dst = {CB_XFER_DEV, 0}},
             {.src = {CB_XFER_DEV, 1}, .dst = {CB_XFER_HOST, 1}}},
    .side_streams = true,
    .note = "H2D and D2H of `bytes` each at once on two streams; bytes = 2 x size"};
static const cb_xfer_copy copy_d2d = {
    .n_legs = 1,
    .legs = {{.src = {CB_XFER_DEV, 0}, .dst = {CB_XFER_DEV, 1}}},
    .note = "cudaMemcpyAsync device to device; bytes = 2 x size (read + write), as BabelStream "
            "and nvbandwidth count"};

/* The family defaults: every transfer runs on the GPU, through the four
 * hooks of its kind (cb_xfer_<stem>_*: copy, zero_copy, overlap). */
#define CB_XFER_GPU(stem)                                                                          \
    .target = CB_TARGET_CUDA, .setup = cb_xfer_##stem##_setup, .run = cb_xfer_##stem##_run,        \
    .verify = cb_xfer_##stem##_verify, .teardown = cb_xfer_##stem##_teardown

/* The key figures: pinned copies at their asymptotic rate (the figure
 * people quote), the best of each direction. */
static const cb_key_figure async_keys[] = {
    {.name = "pinned H2D", .where = "memory=pinned;direction=h2d"},
    {.name = "pinned D2H", .where = "memory=pinned;direction=d2h"},
    {0}};

static const cb_bench transfers_benches[] = {
    {.name = "transfers/memcpy_sync",
     .summary = "cudaMemcpy host<->device by host memory kind (host-timed)",
     /* cudaMemcpy blocks the host, and its cost to the caller (call,
      * staging, completion) is the point of this step; events would see
      * only the GPU side, and from pageable memory miss the staging. */
     .timer = CB_TIMER_HOST,
     CB_AXES(sync_axes),
     .peak = CB_PEAK_PCIE,
     .bytes = cb_xfer_bytes_copy,
     .param = &copy_sync,
     CB_XFER_GPU(copy)},
    {.name = "transfers/memcpy_async",
     .summary = "cudaMemcpyAsync host<->device by host memory kind",
     .kind = CB_KIND_HOST_COPY,
     CB_AXES(async_axes),
     .peak = CB_PEAK_PCIE,
     .bytes = cb_xfer_bytes_copy,
     .param = &copy_async,
     .key_figures = async_keys,
     CB_XFER_GPU(copy)},
    /* No peak: the PCIe peak is per direction, and a combined figure
     * against it would read as up to 200%. */
    {.name = "transfers/bidir",
     .summary = "H2D and D2H at once on two streams (bytes: both directions)",
     .kind = CB_KIND_HOST_COPY,
     CB_AXES(bidir_axes),
     .peak = CB_PEAK_NONE,
     .bytes = cb_xfer_bytes_two_way,
     .param = &copy_bidir,
     .key_figures =
         (const cb_key_figure[]){{.name = "pinned bidirectional", .where = "memory=pinned"}, {0}},
     CB_XFER_GPU(copy)},
    {.name = "transfers/zero_copy",
     .summary = "a kernel reading/writing mapped pinned host memory",
     .kind = CB_KIND_HOST_COPY,
     CB_AXES(zero_copy_axes),
     .peak = CB_PEAK_PCIE,
     .bytes = cb_xfer_bytes_copy,
     CB_XFER_GPU(zero_copy)},
    {.name = "transfers/overlap",
     .summary = "H2D -> kernel -> D2H in chunks over streams, and each stage alone",
     .kind = CB_KIND_HOST_COPY,
     CB_AXES(overlap_axes),
     .peak = CB_PEAK_NONE,
     .bytes = cb_xfer_bytes_overlap,
     .flops = cb_xfer_flops_overlap,
     CB_XFER_GPU(overlap)},
    {.name = "transfers/d2d",
     .summary = "cudaMemcpyAsync device to device (bytes: read + write)",
     CB_AXES(d2d_axes),
     .peak = CB_PEAK_DRAM,
     .bytes = cb_xfer_bytes_two_way,
     .param = &copy_d2d,
     .key_figures = (const cb_key_figure[]){{.name = "D2D copy"}, {0}},
     CB_XFER_GPU(copy)},
};

const cb_family cb_family_transfers = {.name = "transfers",
                                       .benches = transfers_benches,
                                       .count = CB_ARRAY_LEN(transfers_benches),
                                       .write_outputs = cb_xfer_write_overlap_csv};
