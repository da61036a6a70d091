// quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point,
//     int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype, Tensor(a!) out): int -> float32.
#include "runtime/inner_loops/inner_loops.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/quantization.h"

namespace pte {
namespace ops {

Status dequantize_per_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(9));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const double scale, args.real(1));
  PTE_ASSIGN_OR_RETURN(const int64_t zero_point, args.integer(2));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_min, args.integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t quant_max, args.integer(4));
  PTE_ASSIGN_OR_RETURN(const ScalarType dtype, args.scalar_type(5));
  PTE_ASSIGN_OR_RETURN(const std::optional<ScalarType> out_dtype, args.optional_scalar_type(6));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(7));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*input, dtype, "input"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, out_dtype.value_or(ScalarType::kFloat), "out"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kFloat, "out"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(expect_same_dim_order(*out, *input, "out", "input"));
  PTE_RETURN_IF_ERROR(check_quant_range(dtype, quant_min, quant_max));

  const float scale_value = static_cast<float>(scale);
  float* result = out->data_as<float>();
  if (dtype == ScalarType::kChar) {  // a delegate's int8 outputs: the vectorised loop (same bits)
    inner_loops::dequantize_int8_to_float(input->data_as<const int8_t>(), result, input->numel,
                                          static_cast<int32_t>(zero_point), scale_value);
    return Status();
  }
  return dispatch_quantized_type(dtype, [&](auto q) {
    using Q = decltype(q);
    const Q* in = input->data_as<const Q>();
    for (size_t i = 0; i < input->numel; ++i) result[i] = dequantize_value(in[i], zero_point, scale_value);
  });
}

}  // namespace ops
}  // namespace pte
