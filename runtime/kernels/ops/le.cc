// aten::le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) and aten::le.Scalar_out(Tensor self,
// Scalar other, *, Tensor(a!) out): self <= other in the promoted dtype; out bool (or 0/1 in out's dtype).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status le_tensor_out(const KernelArgs& args) {
  return compare_tensor_out(args, [](auto x, auto y) { return x <= y; });
}

Status le_scalar_out(const KernelArgs& args) {
  return compare_scalar_out(args, [](auto x, auto y) { return x <= y; });
}

}  // namespace ops
}  // namespace pte
