// quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min,
//     int quant_max, ScalarType dtype, *, Tensor(a!) out): float32 -> int.
#include "runtime/inner_loops/inner_loops.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/quantization.h"

namespace pte {
namespace ops {

Status quantize_per_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(8));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const double scale, args.real(1));
  PTE_ASSIGN_OR_RETURN(const int64_t zero_point, args.integer(2));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_min, args.integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_max, args.integer(4));
  PTE_ASSIGN_OR_RETURN(const ScalarType dtype, args.scalar_type(5));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(6));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*input, ScalarType::kFloat, "input"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, dtype, "out"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(expect_same_dim_order(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(check_quant_range(dtype, quant_min, quant_max));

  const float inverse_scale = 1.0f / static_cast<float>(scale);
  const float* in = input->data_as<const float>();
  if (dtype == ScalarType::kChar) {  // a model's float inputs onto a delegate's int8 grid: the vectorised loop
    inner_loops::quantize_float_to_int8(in, out->data_as<int8_t>(), input->numel, inverse_scale,
                                        static_cast<int32_t>(zero_point), static_cast<int32_t>(quant_min),
                                        static_cast<int32_t>(quant_max));
    return Status();
  }
  return dispatch_quantized_type(dtype, [&](auto q) {
    using Q = decltype(q);
    Q* result = out->data_as<Q>();
    for (size_t i = 0; i < input->numel; ++i) {
      result[i] = quantize_value<Q>(in[i], inverse_scale, zero_point, quant_min, quant_max);
    }
  });
}

}  // namespace ops
}  // namespace pte
