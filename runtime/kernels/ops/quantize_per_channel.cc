// quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis,
//     int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out): float32 -> int, one (scale, zero
//     point) per index along `axis`.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/quantization.h"

namespace pte {
namespace ops {

Status quantize_per_channel_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(9));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* scales, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* zero_points, args.tensor(2));
  PTE_ASSIGN_OR_RETURN(const int64_t axis_arg, args.integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_min, args.integer(4));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_max, args.integer(5));
  PTE_ASSIGN_OR_RETURN(const ScalarType dtype, args.scalar_type(6));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(7));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*input, ScalarType::kFloat, "input"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, dtype, "out"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*input, "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_quant_range(dtype, quant_min, quant_max));
  PTE_ASSIGN_OR_RETURN(const uint32_t axis, normalize_dim(axis_arg, input->rank, "axis"));
  if (input->rank == 0) return Status::failure(Error::kKernelFailed, "input must have at least one dim");
  const ChannelLayout layout = channel_layout(*input, axis);
  PTE_ASSIGN_OR_RETURN(const ChannelParameters parameters,
                       ChannelParameters::read(*scales, zero_points, layout.channels));

  const float* in = input->data_as<const float>();
  return dispatch_quantized_type(dtype, [&](auto q) {
    using Q = decltype(q);
    Q* result = out->data_as<Q>();
    for (size_t i = 0; i < input->numel; ++i) {
      const size_t channel = layout.channel_of(i);
      const float inverse_scale = 1.0f / parameters.scale(channel);
      result[i] = quantize_value<Q>(in[i], inverse_scale, parameters.zero_point(channel), quant_min, quant_max);
    }
  });
}

}  // namespace ops
}  // namespace pte
