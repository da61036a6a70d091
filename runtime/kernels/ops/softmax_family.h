// The softmax family (_softmax.out, _log_softmax.out), float32: the argument checks, the walk over every
// slice along dim, and the first two steps ExecuTorch's portable kernels share (the max along dim, then
// the sum of exp(x - max) folded from the first element). An op supplies the last step: each output from
// its input, the max and the sum. exp is portable_exp (kernels/exp.h).
#pragma once

#include <algorithm>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/exp.h"
#include "runtime/kernels/kernel.h"

namespace pte {
namespace ops {

// aten::_softmax.out / _log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out).
// Normalize(const float* in, float* out, size_t size, size_t stride, float max, float sum) writes one slice.
template <typename Normalize>
Status softmax_family_out(const KernelArgs& args, Normalize normalize) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(const bool half_to_float, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  if (half_to_float) return Status::failure(Error::kNotSupported, "half_to_float=True is not supported");
  PTE_RETURN_IF_ERROR(expect_scalar_type(*self, ScalarType::kFloat, "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  // A 0-d tensor is one slice of one element (dim 0 or -1, as in PyTorch).
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank == 0 ? 1 : self->rank, "dim"));
  if (self->numel == 0) return Status();
  const size_t size = self->rank == 0 ? 1 : static_cast<size_t>(self->sizes[dim]);
  const size_t stride = self->rank == 0 ? 1 : static_cast<size_t>(self->strides[dim]);
  const size_t outer = self->numel / (size * stride);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < stride; ++i) {
      const size_t base = o * size * stride + i;
      const float* in = self->data_as<const float>() + base;
      float max_value = in[0];
      for (size_t k = 1; k < size; ++k) max_value = std::max(in[k * stride], max_value);
      float sum = portable_exp(in[0] - max_value);
      for (size_t k = 1; k < size; ++k) sum = sum + portable_exp(in[k * stride] - max_value);
      normalize(in, out->data_as<float>() + base, size, stride, max_value, sum);
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
