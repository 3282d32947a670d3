/* _torch_ext_vecadd.cpp - the binding of the torch_ext family's PyTorch
 * extension: cubench's own vector-add launcher (kernels/vecadd_float4_per_thread.cu, compiled
 * into the same extension by torch.utils.cpp_extension) called on
 * PyTorch's current CUDA stream, exported with pybind11.
 *
 * Only the headers the binding needs (a tensor, the current stream, the
 * pybind11 casters of torch types), not <torch/extension.h>: that one pulls
 * in the whole C++ frontend and multiplies the build time. */
#include <ATen/core/Tensor.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/utils/pybind.h>

#include <cstdint>

#include "vecadd_kernels.h"

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_float4_per_thread;

namespace
{

void check_operand(const at::Tensor &t, const char *name, const at::Tensor &a)
{
    TORCH_CHECK(t.is_cuda(), name, " must be a CUDA tensor");
    TORCH_CHECK(t.scalar_type() == at::kFloat, name, " must be float32");
    TORCH_CHECK(t.is_contiguous(), name, " must be contiguous");
    TORCH_CHECK(t.device() == a.device(), name, " must be on ", a.device());
    TORCH_CHECK(t.numel() == a.numel(), name, " has ", t.numel(), " elements, a has ", a.numel());
    /* float4 loads and stores: 16-byte alignment (the caching allocator's
     * blocks are 512-byte aligned; a view at an odd offset is not). */
    TORCH_CHECK(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0, name,
                " must be 16-byte aligned");
}

/* c = a + b with vecadd/float4_per_thread's kernel, one float4 per thread,
 * `block` threads per block, on the current stream of a's device. With
 * launch = false everything but the launch happens: the call's own cost. */
void vecadd_float4(const at::Tensor &a, const at::Tensor &b, at::Tensor &c, int64_t block,
                   bool launch)
{
    check_operand(a, "a", a);
    check_operand(b, "b", a);
    check_operand(c, "c", a);
    TORCH_CHECK(block >= 1 && block <= 1024, "block must be 1..1024 threads, not ", block);
    const c10::cuda::CUDAGuard guard(a.device());
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream(a.device().index()).stream();
    if (!launch) return;
    cb_vecadd_launch l = {};
    l.a = a.data_ptr<float>();
    l.b = b.data_ptr<float>();
    l.c = c.data_ptr<float>();
    l.n = static_cast<size_t>(a.numel());
    l.block = static_cast<int>(block);
    l.ilp = 1;
    cudaError_t e = cb_vecadd_kernel_float4_per_thread.launch(&l, stream);
    TORCH_CHECK(e == cudaSuccess, "vecadd float4_per_thread launch: ", cudaGetErrorName(e), ": ",
                cudaGetErrorString(e));
}

} // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "cubench's float4 vector add (kernels/vecadd_float4_per_thread.cu) on PyTorch's current stream";
    m.def("vecadd_float4", &vecadd_float4, "c = a + b, one float4 per thread", pybind11::arg("a"),
          pybind11::arg("b"), pybind11::arg("c"), pybind11::arg("block") = 256,
          pybind11::arg("launch") = true);
}
