// quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points,
//     int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype, Tensor(a!) out):
//     int -> float32, one (scale, zero point) per index along `axis`.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/quantization.h"

namespace pte {
namespace ops {

Status dequantize_per_channel_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(10));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* scales, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* zero_points, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(const int64_t axis_arg, args.integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_min, args.integer(4));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_max, args.integer(5));
  PTE_ASSIGN_OR_RETURN(const ScalarType dtype, args.scalar_type(6));
  PTE_ASSIGN_OR_RETURN(const std::optional<ScalarType> out_dtype, args.optional_scalar_type(7));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(8));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*input, dtype, "input"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, out_dtype.value_or(ScalarType::kFloat), "out"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kFloat, "out"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*input, "input"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_quant_range(dtype, quant_min, quant_max));
  PTE_ASSIGN_OR_RETURN(const uint32_t axis, normalize_dim(axis_arg, input->rank, "axis"));
  if (input->rank == 0) return Status::failure(Error::kKernelFailed, "input must have at least one dim");
  const ChannelLayout layout = channel_layout(*input, axis);
  PTE_ASSIGN_OR_RETURN(const ChannelParameters parameters,
                       ChannelParameters::read(*scales, zero_points, layout.channels));

  float* result = out->data_as<float>();
  return dispatch_quantized_type(dtype, [&](auto q) {
    using Q = decltype(q);
    const Q* in = input->data_as<const Q>();
    for (size_t i = 0; i < input->numel; ++i) {
      const size_t channel = layout.channel_of(i);
      result[i] = dequantize_value(in[i], parameters.zero_point(channel), parameters.scale(channel));
    }
  });
}

}  // namespace ops
}  // namespace pte
