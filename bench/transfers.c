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
#define DIRECTION_HELP "h2d: host to device, d2h: device to host"

/* 1 KiB to 1 GiB in x16 steps plus 256 MiB: 7 sizes. The small ones pin the
 * fit's latency, the large ones its bandwidth, and 256 MiB and 1 GiB are the
 * two sizes where a copy runs at its asymptotic rate (the figure people
 * quote). Round 1's x4 steps (11 sizes) added points on the straight parts
 * of the curve only, and cost a fifth of the default suite's time. */
#define SIZES_1K_1G "2^10,2^14,2^18,2^22,2^26,2^28,2^30"

static const cb_axis_def sync_axes[] = {
    {.name = "direction",
     .kind = CB_AXIS_ENUM,
     .defaults = "h2d,d2h",
     .choices = "h2d,d2h",
     .help = DIRECTION_HELP},
    /* Registered and write-combined memory copy like pinned memory; they are
     * in the async defaults and one --axis away here. */
    {.name = "memory",
     .kind = CB_AXIS_ENUM,
     .defaults = "pageable,pinned",
     .choices = MEMORY_CHOICES,
     .help = MEMORY_HELP},
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = SIZES_1K_1G,
     .min_value = 1,
     .help = "bytes per copy"},
};

static const cb_axis_def async_axes[] = {
    {.name = "direction",
     .kind = CB_AXIS_ENUM,
     .defaults = "h2d,d2h",
     .choices = "h2d,d2h",
     .help = DIRECTION_HELP},
    {.name = "memory",
     .kind = CB_AXIS_ENUM,
     .defaults = MEMORY_CHOICES,
     .choices = MEMORY_CHOICES,
     .help = MEMORY_HELP},
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = SIZES_1K_1G,
     .min_value = 1,
     .help = "bytes per copy"},
};

static const cb_axis_def bidir_axes[] = {
    {.name = "memory",
     .kind = CB_AXIS_ENUM,
     .defaults = "pageable,pinned",
     .choices = MEMORY_CHOICES,
     .help = MEMORY_HELP},
    /* Duplex only shows once each copy is long: from 1 MiB up (x16, plus
     * 256 MiB where it peaks on the H200). */
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = "2^20,2^24,2^28,2^30",
     .min_value = 1,
     .help = "bytes copied each way (the work model counts both)"},
};

static const cb_axis_def zero_copy_axes[] = {
    {.name = "direction",
     .kind = CB_AXIS_ENUM,
     .defaults = "h2d,d2h",
     .choices = "h2d,d2h",
     .help = "h2d: the kernel reads host memory, d2h: it writes host memory"},
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = SIZES_1K_1G,
     .min_value = 1,
     .help = "bytes per kernel"},
};

static const cb_axis_def overlap_axes[] = {
    {.name = "stage",
     .kind = CB_AXIS_ENUM,
     .defaults = "h2d,kernel,d2h,pipeline",
     .choices = "h2d,kernel,d2h,pipeline",
     .help = "what one run does with the chunks: one stage alone, or all three pipelined"},
    {.name = "streams",
     .kind = CB_AXIS_INT,
     .defaults = "1,2,4,8",
     .min_value = 1,
     .help = "chunks = streams (1..32); 1 is the serial baseline"},
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
    {.name = "bytes",
     .kind = CB_AXIS_INT,
     .defaults = SIZES_1K_1G,
     .min_value = 1,
     .help = "bytes per copy (the work model counts read + write: 2 x bytes)"},
};

static const cb_xfer_copy_op copy_ops[] = {CB_XFER_OP_SYNC, CB_XFER_OP_ASYNC, CB_XFER_OP_BIDIR,
                                           CB_XFER_OP_D2D};

static const cb_bench transfers_benches[] = {
    {
        .name = "transfers/memcpy_sync",
        .summary = "cudaMemcpy host<->device by host memory kind (host-timed)",
        .target = CB_TARGET_CUDA,
        /* cudaMemcpy blocks the host, and its cost to the caller (call,
         * staging, completion) is the point of this step; events would see
         * only the GPU side, and from pageable memory miss the staging. */
        .timer = CB_TIMER_HOST,
        .axes = sync_axes,
        .n_axes = CB_ARRAY_LEN(sync_axes),
        .peak = CB_PEAK_PCIE,
        .bytes = cb_xfer_bytes_copy,
        .setup = cb_xfer_copy_setup,
        .param = &copy_ops[CB_XFER_OP_SYNC],
        .run = cb_xfer_copy_run,
        .verify = cb_xfer_copy_verify,
        .teardown = cb_xfer_copy_teardown,
    },
    {
        .name = "transfers/memcpy_async",
        .summary = "cudaMemcpyAsync host<->device by host memory kind",
        .target = CB_TARGET_CUDA,
        .axes = async_axes,
        .n_axes = CB_ARRAY_LEN(async_axes),
        .peak = CB_PEAK_PCIE,
        .bytes = cb_xfer_bytes_copy,
        .setup = cb_xfer_copy_setup,
        .param = &copy_ops[CB_XFER_OP_ASYNC],
        .run = cb_xfer_copy_run,
        .verify = cb_xfer_copy_verify,
        .teardown = cb_xfer_copy_teardown,
    },
    {
        .name = "transfers/bidir",
        .summary = "H2D and D2H at once on two streams (bytes: both directions)",
        .target = CB_TARGET_CUDA,
        /* No peak: the PCIe peak is per direction, and a combined figure
         * against it would read as up to 200%. */
        .peak = CB_PEAK_NONE,
        .axes = bidir_axes,
        .n_axes = CB_ARRAY_LEN(bidir_axes),
        .bytes = cb_xfer_bytes_two_way,
        .setup = cb_xfer_copy_setup,
        .param = &copy_ops[CB_XFER_OP_BIDIR],
        .run = cb_xfer_copy_run,
        .verify = cb_xfer_copy_verify,
        .teardown = cb_xfer_copy_teardown,
    },
    {
        .name = "transfers/zero_copy",
        .summary = "a kernel reading/writing mapped pinned host memory",
        .target = CB_TARGET_CUDA,
        .axes = zero_copy_axes,
        .n_axes = CB_ARRAY_LEN(zero_copy_axes),
        .peak = CB_PEAK_PCIE,
        .bytes = cb_xfer_bytes_copy,
        .setup = cb_xfer_zero_copy_setup,
        .run = cb_xfer_zero_copy_run,
        .verify = cb_xfer_zero_copy_verify,
        .teardown = cb_xfer_zero_copy_teardown,
    },
    {
        .name = "transfers/overlap",
        .summary = "H2D -> kernel -> D2H in chunks over streams, and each stage alone",
        .target = CB_TARGET_CUDA,
        .axes = overlap_axes,
        .n_axes = CB_ARRAY_LEN(overlap_axes),
        .peak = CB_PEAK_NONE,
        .bytes = cb_xfer_bytes_overlap,
        .flops = cb_xfer_flops_overlap,
        .setup = cb_xfer_overlap_setup,
        .run = cb_xfer_overlap_run,
        .verify = cb_xfer_overlap_verify,
        .teardown = cb_xfer_overlap_teardown,
    },
    {
        .name = "transfers/d2d",
        .summary = "cudaMemcpyAsync device to device (bytes: read + write)",
        .target = CB_TARGET_CUDA,
        .axes = d2d_axes,
        .n_axes = CB_ARRAY_LEN(d2d_axes),
        .peak = CB_PEAK_DRAM,
        .bytes = cb_xfer_bytes_two_way,
        .setup = cb_xfer_copy_setup,
        .param = &copy_ops[CB_XFER_OP_D2D],
        .run = cb_xfer_copy_run,
        .verify = cb_xfer_copy_verify,
        .teardown = cb_xfer_copy_teardown,
    },
};

const cb_family cb_family_transfers = {.name = "transfers",
                                       .benches = transfers_benches,
                                       .count = CB_ARRAY_LEN(transfers_benches),
                                       .write_outputs = cb_xfer_write_overlap_csv};
