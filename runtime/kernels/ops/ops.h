// The reference kernels, one per file in this folder. Each takes the operator's ExecuTorch out-variant
// arguments in schema order, then `out`, then the returned value; reference_kernels.cc names them.
#pragma once

#include "runtime/kernels/kernel.h"

namespace pte {
namespace ops {

Status add_out(const KernelArgs& args);
Status mul_out(const KernelArgs& args);
Status relu_out(const KernelArgs& args);
Status softmax_out(const KernelArgs& args);
Status convolution_out(const KernelArgs& args);
Status addmm_out(const KernelArgs& args);
Status mm_out(const KernelArgs& args);
Status linear_out(const KernelArgs& args);
Status view_copy_out(const KernelArgs& args);
Status permute_copy_out(const KernelArgs& args);
Status clone_dim_order_out(const KernelArgs& args);
Status quantize_per_tensor_out(const KernelArgs& args);
Status dequantize_per_tensor_out(const KernelArgs& args);
Status quantize_per_channel_out(const KernelArgs& args);
Status dequantize_per_channel_out(const KernelArgs& args);

}  // namespace ops
}  // namespace pte
