"""opencv: OpenCV's CUDA module (cv2.cuda.add on GpuMat) on the runner's
stream, wrapped with cv2.cuda.wrapStream(ctx.stream). Needs an OpenCV built
with CUDA and opencv_contrib's cudaarithm (cv2.cuda.add): pip's
opencv-python wheels have neither, and skip rows say which is missing.

  opencv/add   cv2.cuda.add(a, b, c, stream=...) on 1 x n float32 GpuMats

Where it ran: not on a GPU (the machines cubench was measured on have pip's
opencv-python-headless 5.0.0, built without CUDA: the skip row says so).
tests/py/test_python_roads_real.py runs it against opencv-python-headless
5.0.0.93 (Python 3.11, no CUDA): as installed it gives that skip; with the
cv2.cuda calls (_cuda below) stood in for by host objects whose add is the
real cv2.add, the rest of setup, run and verify runs on the real module.
A CUDA-less OpenCV aborts the interpreter on some cv2.cuda calls
(wrapStream raises a C++ exception it cannot pass to Python), so the
device count is asked first and nothing else of cv2.cuda is touched
without a device.
"""

import cubench as cb

from . import _common as C


def _cuda(cv2):
    """The device calls: cv2.cuda (GpuMat, wrapStream, add, setDevice)."""
    return getattr(cv2, "cuda", None)


@cb.benchmark("opencv/add", axes=[C.N_AXIS], peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires="cv2")
def add(p, ctx):
    """c = a + b with cv2.cuda.add on GpuMats (the runner's stream)"""
    import cv2
    import numpy as np

    cuda = _cuda(cv2)
    if cuda is None or cuda.getCudaEnabledDeviceCount() == 0:
        raise C.no_device("opencv", f"this OpenCV ({cv2.__version__}) was built without CUDA")
    if not hasattr(cuda, "add"):
        raise cb.Skip(f"this OpenCV ({cv2.__version__}) has no cv2.cuda.add (opencv_contrib's "
                      "cudaarithm module)")
    if not hasattr(cuda, "wrapStream"):
        raise cb.Skip("this OpenCV has no cv2.cuda.wrapStream to use the runner's stream")
    if ctx.device is None or ctx.device >= cuda.getCudaEnabledDeviceCount():
        raise C.no_device("opencv", f"device {ctx.device} of {cuda.getCudaEnabledDeviceCount()}")
    if p["n"] >= 2**31:
        raise cb.Skip("a GpuMat row holds fewer than 2^31 elements")
    cuda.setDevice(ctx.device)
    stream = cuda.wrapStream(ctx.stream)
    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, (1, p["n"])).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, (1, p["n"])).astype(np.float32)
    a, b, c = cuda.GpuMat(), cuda.GpuMat(), cuda.GpuMat()
    a.upload(ha)
    b.upload(hb)
    c.upload(np.full((1, p["n"]), np.nan, np.float32))  # poisoned

    def run():
        cuda.add(a, b, c, stream=stream)

    def verify():
        stream.waitForCompletion()
        return cb.vecadd_check(ha, hb, c.download())

    return cb.Setup(run=run, verify=verify, note=f"OpenCV {cv2.__version__}, runner's stream")
