// aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out).
// Elementwise max in the promoted dtype, NaN propagated.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status maximum_out(const KernelArgs& args) {
  return binary_op_out<kRealDtypes>(args, [](auto x, auto y) { return nan_max(x, y); });
}

}  // namespace ops
}  // namespace pte
