// aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW,
// int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2), float32 N, C, *.
// ExecuTorch's arithmetic: the group's sum and sum of squares in float from 0, then mean, variance, std
// and 1 / std in double; y = scale * x + beta in double with scale = rstd * weight and beta = -scale *
// mean + bias, rounded to float. out1 and out2 get mean and rstd per (n, group).
#include <cmath>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/moments.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status native_group_norm_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(12));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.optional_tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* bias, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(const int64_t n, args.integer(3));
  PTE_ASSIGN_OR_RETURN(const int64_t c, args.integer(4));
  PTE_ASSIGN_OR_RETURN(const int64_t hxw, args.integer(5));
  PTE_ASSIGN_OR_RETURN(const int64_t groups, args.integer(6));
  PTE_ASSIGN_OR_RETURN(const double eps, args.real(7));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(8));
  PTE_ASSIGN_OR_RETURN(Tensor * mean_out, args.out_tensor(9));
  PTE_ASSIGN_OR_RETURN(Tensor * rstd_out, args.out_tensor(10));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({input, weight, bias, out, mean_out, rstd_out}));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  if (groups <= 0 || c % groups != 0 || static_cast<int64_t>(input->numel) != n * c * hxw) {
    return Status::failure(Error::kKernelFailed, "input %s is not N=%s, C=%s (in %s groups), HxW=%s",
                           ShapeText(*input).c_str(), DecimalText(n).c_str(), DecimalText(c).c_str(),
                           DecimalText(groups).c_str(), DecimalText(hxw).c_str());
  }
  const size_t rows = static_cast<size_t>(n * groups);
  const size_t channels_per_group = static_cast<size_t>(c / groups);
  const size_t inner = channels_per_group * static_cast<size_t>(hxw);
  if (mean_out->numel != rows || rstd_out->numel != rows) {
    return Status::failure(Error::kKernelFailed, "mean and rstd outs need %lu elements", as_ulong(rows));
  }
  for (const Tensor* affine : {weight, bias}) {
    if (affine != nullptr && static_cast<int64_t>(affine->numel) != c) {
      return Status::failure(Error::kKernelFailed, "weight or bias %s does not have C elements", ShapeText(*affine).c_str());
    }
  }
  const float* in = input->data_as<const float>();
  float* result = out->data_as<float>();
  for (size_t row = 0; row < rows; ++row) {
    const float* x = in + row * inner;
    const auto [sum, square_sum] = moments(x, inner);
    const double mean = static_cast<double>(sum) / static_cast<double>(inner);
    const double variance = static_cast<double>(square_sum) / static_cast<double>(inner) - mean * mean;
    const double rstd = 1.0 / std::sqrt(variance + eps);
    const size_t group = row % static_cast<size_t>(groups);
    for (size_t j = 0; j < channels_per_group; ++j) {
      const size_t channel = group * channels_per_group + j;
      if (weight == nullptr && bias == nullptr) {
        for (size_t k = 0; k < static_cast<size_t>(hxw); ++k) {
          const size_t at = row * inner + j * static_cast<size_t>(hxw) + k;
          result[at] = static_cast<float>((static_cast<double>(in[at]) - mean) * rstd);
        }
        continue;
      }
      const double scale = rstd * (weight == nullptr ? 1.0 : static_cast<double>(weight->data_as<const float>()[channel]));
      const double beta = -scale * mean + (bias == nullptr ? 0.0 : static_cast<double>(bias->data_as<const float>()[channel]));
      for (size_t k = 0; k < static_cast<size_t>(hxw); ++k) {
        const size_t at = row * inner + j * static_cast<size_t>(hxw) + k;
        result[at] = static_cast<float>(scale * static_cast<double>(in[at]) + beta);
      }
    }
    mean_out->data_as<float>()[row] = static_cast<float>(mean);
    rstd_out->data_as<float>()[row] = static_cast<float>(rstd);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
