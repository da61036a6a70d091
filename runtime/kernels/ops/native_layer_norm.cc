// aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias,
// float eps, *, Tensor(a!) out, Tensor(b!) mean_out, Tensor(c!) rstd_out), float32.
// ExecuTorch's float arithmetic: sum and sum of squares from 0 in order, mean = sum / N, variance =
// sum_sq / N - mean^2, std = sqrt(variance + eps), y = (x - mean) / std * weight + bias, rstd = 1 / std.
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/moments.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status native_layer_norm_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(9));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> normalized_shape, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(const Tensor* bias, args.optional_tensor(3));
  PTE_ASSIGN_OR_RETURN(const double eps, args.real(4));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(5));
  PTE_ASSIGN_OR_RETURN(Tensor * mean_out, args.out_tensor(6));
  PTE_ASSIGN_OR_RETURN(Tensor * rstd_out, args.out_tensor(7));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({input, weight, bias, out, mean_out, rstd_out}));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  if (normalized_shape.empty() || normalized_shape.size() > input->rank) {
    return Status::failure(Error::kKernelFailed, "normalized_shape %s does not fit input %s",
                           ShapeText(normalized_shape).c_str(), ShapeText(*input).c_str());
  }
  size_t n = 1;
  for (size_t k = 0; k < normalized_shape.size(); ++k) {
    const int32_t size = input->sizes[input->rank - normalized_shape.size() + k];
    if (normalized_shape[k] != size) {
      return Status::failure(Error::kKernelFailed, "normalized_shape %s does not end input %s",
                             ShapeText(normalized_shape).c_str(), ShapeText(*input).c_str());
    }
    n *= static_cast<size_t>(size);
  }
  for (const Tensor* affine : {weight, bias}) {
    if (affine != nullptr && affine->numel != n) {
      return Status::failure(Error::kKernelFailed, "weight or bias %s does not have %lu elements",
                             ShapeText(*affine).c_str(), static_cast<unsigned long>(n));
    }
  }
  const size_t rows = n == 0 ? 0 : input->numel / n;
  if (mean_out->numel != rows || rstd_out->numel != rows) {
    return Status::failure(Error::kKernelFailed, "mean_out %s and rstd_out %s need %lu elements",
                           ShapeText(*mean_out).c_str(), ShapeText(*rstd_out).c_str(), static_cast<unsigned long>(rows));
  }
  const float epsilon = static_cast<float>(eps);
  for (size_t r = 0; r < rows; ++r) {
    const float* x = input->data_as<const float>() + r * n;
    float* y = out->data_as<float>() + r * n;
    const auto [sum, square_sum] = moments(x, n);
    const float mean = sum / static_cast<float>(n);
    const float variance = square_sum / static_cast<float>(n) - mean * mean;
    const float std_dev = std::sqrt(variance + epsilon);
    for (size_t j = 0; j < n; ++j) {
      const float w = weight != nullptr ? weight->data_as<const float>()[j] : 1.0f;
      const float b = bias != nullptr ? bias->data_as<const float>()[j] : 0.0f;
      y[j] = (x[j] - mean) / std_dev * w + b;
    }
    mean_out->data_as<float>()[r] = mean;
    rstd_out->data_as<float>()[r] = static_cast<float>(1.0 / std_dev);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
