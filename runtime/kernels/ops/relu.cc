// aten::relu.out(Tensor self, *, Tensor(a!) out): out = max(self, 0), NaN passed through as PyTorch does.
#include <cmath>

#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status relu_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*self, ScalarType::kFloat, "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_dim_order(*out, *self, "out", "self"));
  const float* in = self->data_as<const float>();
  float* result = out->data_as<float>();
  for (size_t i = 0; i < self->numel; ++i) {
    result[i] = (std::isnan(in[i]) || in[i] >= 0.0f) ? in[i] : 0.0f;
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
