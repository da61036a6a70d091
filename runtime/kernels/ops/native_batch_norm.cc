// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias, Tensor
// running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0, Tensor(b!) out1,
// Tensor(c!) out2), float32: batch norm in eval mode over dim 1. ExecuTorch's arithmetic: invstd = 1.0 /
// sqrt(var + eps) in double rounded to float, then (x - mean) * invstd * weight + bias in float. out1 and
// out2 are left empty, as ExecuTorch leaves them.
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status native_batch_norm_no_training_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(11));
  PTE_ASSIGN_OR_RETURN(const Tensor* input, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* weight, args.optional_tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* bias, args.optional_tensor(2));
  PTE_ASSIGN_OR_RETURN(const Tensor* running_mean, args.tensor(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* running_var, args.tensor(4));
  PTE_ASSIGN_OR_RETURN(const double eps, args.real(6));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(7));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({input, weight, bias, running_mean, running_var, out}));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *input, "out", "input"));
  const uint32_t channel_dim = input->rank >= 1 ? 1 : 0;
  if (input->rank < 2) return Status::failure(Error::kKernelFailed, "input %s has no channel dim", ShapeText(*input).c_str());
  const size_t channels = static_cast<size_t>(input->sizes[channel_dim]);
  for (const Tensor* per_channel : {weight, bias, running_mean, running_var}) {
    if (per_channel != nullptr && per_channel->numel != channels) {
      return Status::failure(Error::kKernelFailed, "a per-channel tensor %s does not have %lu elements",
                             ShapeText(*per_channel).c_str(), static_cast<unsigned long>(channels));
    }
  }
  const size_t inner = static_cast<size_t>(input->strides[channel_dim]);
  const size_t outer = input->numel / (channels * inner == 0 ? 1 : channels * inner);
  const float* in = input->data_as<const float>();
  float* result = out->data_as<float>();
  for (size_t o = 0; o < outer; ++o) {
    for (size_t c = 0; c < channels; ++c) {
      const float mean = running_mean->data_as<const float>()[c];
      const float var = running_var->data_as<const float>()[c];
      const float invstd = static_cast<float>(1.0 / std::sqrt(var + eps));
      const float w = weight != nullptr ? weight->data_as<const float>()[c] : 1.0f;
      const float b = bias != nullptr ? bias->data_as<const float>()[c] : 0.0f;
      for (size_t j = 0; j < inner; ++j, ++in, ++result) *result = (*in - mean) * invstd * w + b;
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
