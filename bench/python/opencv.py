"""opencv: OpenCV's CUDA module (cv2.cuda.add on GpuMat) on the runner's
stream, wrapped with cv2.cuda.wrapStream(ctx.stream). Needs an OpenCV
built with CUDA (pip's opencv-python is not): without it, skip rows say so.
Not installed on the machines cubench was measured on.

  opencv/add   cv2.cuda.add(a, b, c, stream=...) on 1 x n float32 GpuMats
"""

import cubench as cb

from . import _common as C


@cb.benchmark("opencv/add", axes=[C.N_AXIS], peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires="cv2")
def add(p, ctx):
    """c = a + b with cv2.cuda.add on GpuMats (the runner's stream)"""
    import cv2
    import numpy as np

    if not hasattr(cv2, "cuda") or cv2.cuda.getCudaEnabledDeviceCount() == 0:
        raise C.no_device("opencv", "this OpenCV was built without CUDA")
    if not hasattr(cv2.cuda, "wrapStream"):
        raise cb.Skip("this OpenCV has no cv2.cuda.wrapStream to use the runner's stream")
    if p["n"] >= 2**31:
        raise cb.Skip("a GpuMat row holds fewer than 2^31 elements")
    cv2.cuda.setDevice(ctx.device)
    stream = cv2.cuda.wrapStream(ctx.stream)
    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, (1, p["n"])).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, (1, p["n"])).astype(np.float32)
    a, b, c = cv2.cuda_GpuMat(), cv2.cuda_GpuMat(), cv2.cuda_GpuMat()
    a.upload(ha)
    b.upload(hb)
    c.upload(np.full((1, p["n"]), np.nan, np.float32))

    def run():
        cv2.cuda.add(a, b, c, stream=stream)

    def verify():
        stream.waitForCompletion()
        return cb.vecadd_check(ha, hb, c.download())

    return cb.Setup(run=run, verify=verify)
