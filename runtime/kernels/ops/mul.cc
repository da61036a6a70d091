// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out): out = self * other in
// promote_types(self, other); aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) in
// promote_with_scalar(self, other).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status mul_out(const KernelArgs& args) {
  return binary_op_out<kRealDtypes>(args, [](auto x, auto y) { return x * y; });
}

Status mul_scalar_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  return map_with_scalar<kRealDtypes>(*self, other, *out, [](auto x, auto value) { return x * value; });
}

}  // namespace ops
}  // namespace pte
