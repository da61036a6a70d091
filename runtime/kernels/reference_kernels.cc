#include "runtime/kernels/reference_kernels.h"

#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace {

constexpr Kernel kReferenceKernels[] = {
    {"aten::add.out", ops::add_out},
    {"aten::mul.out", ops::mul_out},
    {"aten::relu.out", ops::relu_out},
    {"aten::_softmax.out", ops::softmax_out},
    {"aten::convolution.out", ops::convolution_out},
    {"aten::addmm.out", ops::addmm_out},
    {"aten::mm.out", ops::mm_out},
    {"aten::linear.out", ops::linear_out},
    {"aten::view_copy.out", ops::view_copy_out},
    {"aten::permute_copy.out", ops::permute_copy_out},
    {"dim_order_ops::_clone_dim_order.out", ops::clone_dim_order_out},
    {"quantized_decomposed::quantize_per_tensor.out", ops::quantize_per_tensor_out},
    {"quantized_decomposed::dequantize_per_tensor.out", ops::dequantize_per_tensor_out},
    {"quantized_decomposed::quantize_per_channel.out", ops::quantize_per_channel_out},
    {"quantized_decomposed::dequantize_per_channel.out", ops::dequantize_per_channel_out},
};

}  // namespace

Span<const Kernel> reference_kernels() { return Span<const Kernel>(kReferenceKernels); }

Status register_reference_kernels(KernelRegistry& registry) { return registry.add_all(reference_kernels()); }

}  // namespace pte
