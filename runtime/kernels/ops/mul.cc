// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out): out = self * other in
// promote_types(self, other).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status mul_out(const KernelArgs& args) {
  return binary_op_out<kRealDtypes>(args, [](auto x, auto y) { return x * y; });
}

}  // namespace ops
}  // namespace pte
