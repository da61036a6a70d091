// aten::leaky_relu.out(Tensor self, Scalar negative_slope, *, Tensor(a!) out), float32:
// x >= 0 ? x : x * negative_slope, the slope rounded to float first.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status leaky_relu_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar negative_slope, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*self, ScalarType::kFloat, "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  const float slope = negative_slope.to<float>();
  return map_unary<float>(*self, *out, [&](float x) { return x >= 0.0f ? x : x * slope; });
}

}  // namespace ops
}  // namespace pte
