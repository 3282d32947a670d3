/* test_device_peaks.c - the theoretical peaks of device.c against the
 * datasheets, fed with each GPU's attributes exactly as the CUDA runtime
 * reports them (deviceQuery prints cudaDevAttrClockRate,
 * cudaDevAttrMemoryClockRate and the bus width; the sources are named per
 * GPU). What the formulas assume is in docs/schema.md ("Peaks"):
 *   DRAM  2 x reported memory clock x bus width / 8. The runtime reports the
 *         memory clock as half the per-pin data rate for HBM2/2e/3/3e, GDDR6,
 *         GDDR6X and GDDR7 alike, so one factor of 2 fits every GPU below.
 *   FP32  SMs x FP32 lanes per SM (by compute capability) x 2 (an FMA) x the
 *         maximum (boost) clock the runtime reports.
 *   PCIe  GT/s x lanes x line-code efficiency / 8, one direction.
 * The tolerances are the datasheets' rounding (900 GB/s for 898, 15.7 for
 * 15.67 TFLOP/s): 1%, except where a comment says why a GPU differs. */
/* test links: cubench_core */
#include "cb_test.h"
#include "device.h"

typedef struct gpu_case {
    const char *name;
    int cc_major, cc_minor, sms;
    int sm_clock_khz, mem_clock_khz, bus_bits; /* as the runtime reports them */
    double dram_gbps, fp32_tflops;             /* the datasheet's figures     */
    double dram_tol, fp32_tol;                 /* relative                    */
} gpu_case;

static const gpu_case gpus[] = {
    /* Tesla V100-SXM2-16GB. Attributes: deviceQuery (CUDA samples) in the
     * Marconi-100 notes and in thamada/nvidia-smi's simulator inputs: 80 SMs,
     * 1530 MHz, 877 MHz, 4096 bit. Datasheet (volta-v100-datasheet-update-
     * us-1165301-r5.pdf, SXM2): 15.7 TFLOPS FP32, 900 GB/s HBM2. */
    {"V100-SXM2", 7, 0, 80, 1530000, 877000, 4096, 900, 15.7, 0.01, 0.01},
    /* Tesla T4. deviceQuery (chiemon.github.io, 2024-12-25 "显卡信息"): 40
     * SMs, 1590 MHz, 5001 MHz, 256 bit. Datasheet (t4-tensor-core-datasheet
     * -951643): 8.1 TFLOPS FP32, 320 GB/s GDDR6. */
    {"T4", 7, 5, 40, 1590000, 5001000, 256, 320, 8.1, 0.01, 0.01},
    /* A100-SXM4-40GB. deviceQuery (Paderborn PC2 wiki, "NVIDIA A100 40GB
     * with NVLINK"): 108 SMs, 1410 MHz, 1215 MHz, 5120 bit. Datasheet
     * (nvidia-a100-datasheet-us-nvidia-1758950-r4): 19.5 TFLOPS FP32,
     * 1,555 GB/s HBM2. */
    {"A100-SXM4-40GB", 8, 0, 108, 1410000, 1215000, 5120, 1555, 19.5, 0.01, 0.01},
    /* A100-SXM4-80GB. deviceQuery (thamada/nvidia-smi, nvsim/A100SXMx4_
     * deviceQuery.py): 1593 MHz, 5120 bit. Same datasheet: 2,039 GB/s HBM2e. */
    {"A100-SXM4-80GB", 8, 0, 108, 1410000, 1593000, 5120, 2039, 19.5, 0.01, 0.01},
    /* L4. deviceQuery (thamada/nvidia-smi, gls/L4_deviceQuery.py): 58 SMs,
     * 2040 MHz, 6251 MHz, 192 bit. Datasheet (NVIDIA L4): 30.3 TFLOPS FP32,
     * 300 GB/s GDDR6. */
    {"L4", 8, 9, 58, 2040000, 6251000, 192, 300, 30.3, 0.01, 0.01},
    /* L40S. deviceQuery (thamada/nvidia-smi, nvsim/L40S_deviceQuery.py): 142
     * SMs, 2520 MHz, 9001 MHz, 384 bit. Datasheet (NVIDIA L40S): 91.6 TFLOPS
     * FP32, 864 GB/s GDDR6. */
    {"L40S", 8, 9, 142, 2520000, 9001000, 384, 864, 91.6, 0.01, 0.01},
    /* GeForce RTX 4090 (GDDR6X). deviceQuery (thamada/nvidia-smi, gls/
     * RTX4090_deviceQuery.py): 128 SMs, 2520 MHz, 10501 MHz, 384 bit.
     * NVIDIA's specifications: 1,008 GB/s, 82.6 shader TFLOPS. */
    {"RTX 4090", 8, 9, 128, 2520000, 10501000, 384, 1008, 82.6, 0.01, 0.01},
    /* H100 80GB HBM3 (SXM5). deviceQuery (thamada/nvidia-smi, nvsim/
     * H100SXMx8_deviceQuery.py): 132 SMs, 1980 MHz, 2619 MHz, 5120 bit.
     * Datasheet (NVIDIA H100 Tensor Core GPU, SXM): 67 TFLOPS FP32, 3.35 TB/s. */
    {"H100-SXM5", 9, 0, 132, 1980000, 2619000, 5120, 3350, 67, 0.01, 0.01},
    /* H200. Attributes from this project's own H200 runs (tests/data/h200-*
     * /meta.json): 132 SMs, 1980 MHz, 3201 MHz, 6016 bit - the runtime
     * reports the enabled bus, 47 of 48 128-bit channels. Datasheet (NVIDIA
     * H200): 67 TFLOPS FP32, 4.8 TB/s HBM3e. */
    {"H200", 9, 0, 132, 1980000, 3201000, 6016, 4800, 67, 0.01, 0.01},
    /* B200 (HGX, 180 GB). Attributes from public notes of B200 machines:
     * 148 SMs, bus 7680 bit (15 of 16 512-bit controllers), memory clock
     * 3996 MHz; the maximum SM clock 1965 MHz (NVIDIA's own benchmark
     * scripts lock B200/GB200 clocks at 1965). Figures: 7.7 TB/s (Verda's
     * B200 VMs, datacrunch-research/blogs blackwell_vms.md) and 75 TFLOPS
     * FP32 (148 x 128 x 2 x 1.98 GHz, hmc-tech). NVIDIA's HGX page says
     * "8 TB/s" - 8 Gb/s on all 8192 bits, 4% above what the enabled 7680
     * bits can carry, so the attribute peak is the honest denominator - and
     * 80 TFLOPS FP32 at 1000 W, which implies a ~2.1 GHz clock the runtime
     * does not report: 1.5% tolerance here, and docs/schema.md says so. */
    {"B200", 10, 0, 148, 1965000, 3996000, 7680, 7700, 75, 0.01, 0.015},
    /* GeForce RTX 5090 (GDDR7). deviceQuery (public notes of an RTX 5090,
     * CUDA 12.8): 170 SMs, 2407 MHz, 14001 MHz, 512 bit. NVIDIA's
     * specifications: 1,792 GB/s, 104.8 shader TFLOPS. */
    {"RTX 5090", 12, 0, 170, 2407000, 14001000, 512, 1792, 104.8, 0.01, 0.01},
};

static cb_device_info device_of(const gpu_case *g)
{
    cb_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "%s", g->name);
    d.cc_major = g->cc_major;
    d.cc_minor = g->cc_minor;
    d.sm_count = g->sms;
    d.sm_clock_khz = g->sm_clock_khz;
    d.mem_clock_khz = g->mem_clock_khz;
    d.mem_bus_width_bits = g->bus_bits;
    return d;
}

static void test_datasheets(void)
{
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
        const gpu_case *g = &gpus[i];
        cb_device_info d = device_of(g);
        double dram = cb_device_peak_dram_gbps(&d), fp32 = cb_device_peak_fp32_tflops(&d);
        printf("%-16s DRAM %7.1f GB/s (datasheet %6.0f)  FP32 %6.2f TFLOP/s (datasheet %5.1f)\n",
               g->name, dram, g->dram_gbps, fp32, g->fp32_tflops);
        CB_CHECK_REL(dram, g->dram_gbps, g->dram_tol);
        CB_CHECK_REL(fp32, g->fp32_tflops, g->fp32_tol);
    }
}

static void test_lanes(void)
{
    /* FP32 lanes per SM (the CUDA C++ Programming Guide's throughput table):
     * 64 on GP100, Volta, Turing and GA100; 128 elsewhere from GP10x on. */
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(6, 0), 64);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(6, 1), 128);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(7, 0), 64);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(7, 5), 64);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(8, 0), 64);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(8, 6), 128);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(8, 9), 128);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(9, 0), 128);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(10, 0), 128); /* B200 */
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(10, 3), 128); /* B300 */
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(12, 0), 128); /* RTX 50 */
    /* Unknown architectures get no peak rather than a guessed one. */
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(5, 2), 0);
    CB_CHECK_EQ_INT(cb_device_fp32_lanes_per_sm(13, 0), 0);
    cb_device_info d = device_of(&gpus[0]);
    d.cc_major = 13;
    CB_CHECK_EQ_INT(cb_device_peak_fp32_tflops(&d), 0);
    d = device_of(&gpus[0]);
    d.mem_clock_khz = 0;
    CB_CHECK_EQ_INT(cb_device_peak_dram_gbps(&d), 0);
}

static void test_pcie(void)
{
    /* Datasheets quote PCIe both ways at the raw rate ("PCIe Gen4 x16: 64
     * GB/s bidirectional"); per direction after 128b/130b coding it is 1.5%
     * less, which is what a copy can reach. */
    cb_device_info d;
    memset(&d, 0, sizeof d);
    d.pcie_width = 16;
    d.pcie_gen = 3;
    CB_CHECK_REL(cb_device_peak_pcie_gbps(&d), 32.0 / 2, 0.02); /* V100 PCIe, T4 */
    CB_CHECK_NEAR(cb_device_peak_pcie_gbps(&d), 8.0 * 16 * 128 / 130 / 8, 1e-9);
    d.pcie_gen = 4;
    CB_CHECK_REL(cb_device_peak_pcie_gbps(&d), 64.0 / 2, 0.02); /* A100, L4, L40S */
    d.pcie_gen = 5;
    CB_CHECK_REL(cb_device_peak_pcie_gbps(&d), 128.0 / 2, 0.02); /* H100, H200 */
    d.pcie_gen = 6;
    CB_CHECK_REL(cb_device_peak_pcie_gbps(&d), 256.0 / 2, 0.06); /* B200: FLIT, 242/256 */
    d.pcie_gen = 1;
    CB_CHECK_NEAR(cb_device_peak_pcie_gbps(&d), 2.5 * 16 * 0.8 / 8, 1e-9);
    d.pcie_gen = 0;
    CB_CHECK_EQ_INT(cb_device_peak_pcie_gbps(&d), 0);
}

int main(void)
{
    test_datasheets();
    test_lanes();
    test_pcie();
    return cb_test_finish("test_device_peaks");
}
