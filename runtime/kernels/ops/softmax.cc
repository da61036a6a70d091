// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out), float32.
// The arithmetic follows ExecuTorch's portable kernel step for step (max, then a running sum of
// exp(x - max) from the first element, then exp(x - max) / sum). exp is portable_exp, correctly rounded
// and the same on every target, so outputs match ExecuTorch's wherever its libm's expf rounds correctly
// too (glibc's does on all but 170,648 of the 2^32 floats; runtime/README.md).
#include <algorithm>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/exp.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

void softmax_slice(const float* in, float* out, size_t size, size_t stride) {
  float max_value = in[0];
  for (size_t i = 1; i < size; ++i) max_value = std::max(in[i * stride], max_value);
  float sum = portable_exp(in[0] - max_value);
  for (size_t i = 1; i < size; ++i) sum = sum + portable_exp(in[i * stride] - max_value);
  for (size_t i = 0; i < size; ++i) out[i * stride] = portable_exp(in[i * stride] - max_value) / sum;
}

}  // namespace

Status softmax_out(const KernelArgs& args) {
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
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dim"));
  if (self->numel == 0) return Status();

  const size_t size = self->rank == 0 ? 1 : static_cast<size_t>(self->sizes[dim]);
  const size_t inner = self->rank == 0 ? 1 : static_cast<size_t>(self->strides[dim]);
  const size_t outer = self->numel / (size * inner);
  const float* in = self->data_as<const float>();
  float* result = out->data_as<float>();
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const size_t base = o * size * inner + i;
      softmax_slice(in + base, result + base, size, inner);
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
