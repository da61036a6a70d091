// The reference kernels, one per file in this folder (overloads of one op, such as eq.Tensor_out and
// eq.Scalar_out, share a file). Each takes the operator's ExecuTorch out-variant arguments in schema
// order, then the out arguments, then the returned values; reference_kernels.cc names them.
#pragma once

#include "runtime/kernels/kernel.h"

namespace pte {
namespace ops {

Status abs_out(const KernelArgs& args);
Status add_out(const KernelArgs& args);
Status addmm_out(const KernelArgs& args);
Status amax_out(const KernelArgs& args);
Status amin_out(const KernelArgs& args);
Status arange_out(const KernelArgs& args);
Status arange_start_out(const KernelArgs& args);
Status argmax_out(const KernelArgs& args);
Status argmin_out(const KernelArgs& args);
Status avg_pool2d_out(const KernelArgs& args);
Status bitwise_and_out(const KernelArgs& args);
Status bitwise_or_out(const KernelArgs& args);
Status bitwise_xor_out(const KernelArgs& args);
Status bmm_out(const KernelArgs& args);
Status cat_out(const KernelArgs& args);
Status ceil_out(const KernelArgs& args);
Status clamp_out(const KernelArgs& args);
Status clone_dim_order_out(const KernelArgs& args);
Status constant_pad_nd_out(const KernelArgs& args);
Status convolution_out(const KernelArgs& args);
Status cos_out(const KernelArgs& args);
Status cumsum_out(const KernelArgs& args);
Status dequantize_per_channel_out(const KernelArgs& args);
Status dequantize_per_tensor_out(const KernelArgs& args);
Status div_out(const KernelArgs& args);
Status div_out_mode(const KernelArgs& args);
Status embedding_out(const KernelArgs& args);
Status eq_scalar_out(const KernelArgs& args);
Status eq_tensor_out(const KernelArgs& args);
Status erf_out(const KernelArgs& args);
Status exp_out(const KernelArgs& args);
Status expand_copy_out(const KernelArgs& args);
Status flip_out(const KernelArgs& args);
Status floor_out(const KernelArgs& args);
Status full_like_out(const KernelArgs& args);
Status full_out(const KernelArgs& args);
Status gather_out(const KernelArgs& args);
Status ge_scalar_out(const KernelArgs& args);
Status ge_tensor_out(const KernelArgs& args);
Status gelu_out(const KernelArgs& args);
Status gt_scalar_out(const KernelArgs& args);
Status gt_tensor_out(const KernelArgs& args);
Status hardtanh_out(const KernelArgs& args);
Status index_select_out(const KernelArgs& args);
Status index_tensor_out(const KernelArgs& args);
Status le_scalar_out(const KernelArgs& args);
Status le_tensor_out(const KernelArgs& args);
Status leaky_relu_out(const KernelArgs& args);
Status linear_out(const KernelArgs& args);
Status log_out(const KernelArgs& args);
Status log_softmax_out(const KernelArgs& args);
Status logical_and_out(const KernelArgs& args);
Status logical_not_out(const KernelArgs& args);
Status logical_or_out(const KernelArgs& args);
Status logical_xor_out(const KernelArgs& args);
Status lt_scalar_out(const KernelArgs& args);
Status lt_tensor_out(const KernelArgs& args);
Status max_dim_out(const KernelArgs& args);
Status max_pool2d_with_indices_out(const KernelArgs& args);
Status maximum_out(const KernelArgs& args);
Status mean_out(const KernelArgs& args);
Status min_dim_out(const KernelArgs& args);
Status minimum_out(const KernelArgs& args);
Status mm_out(const KernelArgs& args);
Status mul_out(const KernelArgs& args);
Status native_batch_norm_no_training_out(const KernelArgs& args);
Status native_group_norm_out(const KernelArgs& args);
Status native_layer_norm_out(const KernelArgs& args);
Status ne_scalar_out(const KernelArgs& args);
Status ne_tensor_out(const KernelArgs& args);
Status neg_out(const KernelArgs& args);
Status permute_copy_out(const KernelArgs& args);
Status pow_tensor_scalar_out(const KernelArgs& args);
Status pow_tensor_tensor_out(const KernelArgs& args);
Status quantize_per_channel_out(const KernelArgs& args);
Status quantize_per_tensor_out(const KernelArgs& args);
Status reciprocal_out(const KernelArgs& args);
Status relu_out(const KernelArgs& args);
Status remainder_tensor_out(const KernelArgs& args);
Status repeat_out(const KernelArgs& args);
Status round_out(const KernelArgs& args);
Status rsqrt_out(const KernelArgs& args);
Status scalar_tensor_out(const KernelArgs& args);
Status select_copy_out(const KernelArgs& args);
Status sigmoid_out(const KernelArgs& args);
Status sin_out(const KernelArgs& args);
Status slice_copy_out(const KernelArgs& args);
Status softmax_out(const KernelArgs& args);
Status split_with_sizes_copy_out(const KernelArgs& args);
Status sqrt_out(const KernelArgs& args);
Status squeeze_copy_dim_out(const KernelArgs& args);
Status squeeze_copy_dims_out(const KernelArgs& args);
Status sub_out(const KernelArgs& args);
Status sum_out(const KernelArgs& args);
Status tanh_out(const KernelArgs& args);
Status to_dim_order_copy_out(const KernelArgs& args);
Status unsqueeze_copy_out(const KernelArgs& args);
Status upsample_bilinear2d_out(const KernelArgs& args);
Status upsample_nearest2d_out(const KernelArgs& args);
Status view_copy_out(const KernelArgs& args);
Status where_self_out(const KernelArgs& args);

}  // namespace ops
}  // namespace pte
