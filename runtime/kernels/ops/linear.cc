// aten::linear.out(Tensor input, Tensor weight, Tensor? bias, *, Tensor(a!) out):
// out = input @ weight^T + bias over the last dim of input. float32.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status linear_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* bias, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({input, weight, out}));
  PTE_RETURN_IF_ERROR(expect_rank(*weight, 2, "weight"));
  if (input->rank == 0 || input->sizes[input->rank - 1] != weight->sizes[1]) {
    return Status::failure(Error::kKernelFailed, "input %s does not end in weight %s's in_features",
                           ShapeText(*input).c_str(), ShapeText(*weight).c_str());
  }
  const size_t out_features = static_cast<size_t>(weight->sizes[0]);
  if (bias != nullptr) {
    const int32_t bias_shape[] = {weight->sizes[0]};
    PTE_RETURN_IF_ERROR(expect_shape(*bias, bias_shape, "bias"));
    PTE_RETURN_IF_ERROR(expect_scalar_type(*bias, ScalarType::kFloat, "bias"));
  }
  int32_t out_shape[kMaxRank];
  for (uint32_t dim = 0; dim < input->rank; ++dim) out_shape[dim] = input->sizes[dim];
  out_shape[input->rank - 1] = weight->sizes[0];
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(out_shape, input->rank), "out"));

  const size_t in_features = static_cast<size_t>(weight->sizes[1]);
  const size_t rows = in_features == 0 ? 0 : input->numel / in_features;
  float* result = out->data_as<float>();
  matmul(input->data_as<const float>(), weight->data_as<const float>(), result, rows, in_features, out_features, true);
  if (bias != nullptr) {
    const float* b = bias->data_as<const float>();
    for (size_t row = 0; row < rows; ++row) {
      for (size_t j = 0; j < out_features; ++j) result[row * out_features + j] += b[j];
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
