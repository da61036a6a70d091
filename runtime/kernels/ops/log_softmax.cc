// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out), float32.
// ExecuTorch's steps: the max along dim, the sum of exp(x - max) folded from the first element, then
// x - max - log(sum). exp is portable_exp (kernels/exp.h), log libm's.
#include <algorithm>
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/exp.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

void log_softmax_slice(const float* in, float* out, size_t size, size_t stride) {
  float max_value = in[0];
  for (size_t i = 1; i < size; ++i) max_value = std::max(in[i * stride], max_value);
  float sum = portable_exp(in[0] - max_value);
  for (size_t i = 1; i < size; ++i) sum = sum + portable_exp(in[i * stride] - max_value);
  const float log_sum = std::log(sum);
  for (size_t i = 0; i < size; ++i) out[i * stride] = in[i * stride] - max_value - log_sum;
}

}  // namespace

Status log_softmax_out(const KernelArgs& args) {
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
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank == 0 ? 1 : self->rank, "dim"));
  if (self->numel == 0) return Status();
  const size_t size = self->rank == 0 ? 1 : static_cast<size_t>(self->sizes[dim]);
  const size_t inner = self->rank == 0 ? 1 : static_cast<size_t>(self->strides[dim]);
  const size_t outer = self->numel / (size * inner);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const size_t base = o * size * inner + i;
      log_softmax_slice(self->data_as<const float>() + base, out->data_as<float>() + base, size, inner);
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
