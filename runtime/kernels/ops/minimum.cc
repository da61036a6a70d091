// aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out).
// Elementwise min in the promoted dtype, NaN propagated.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status minimum_out(const KernelArgs& args) {
  return binary_op_out<kRealDtypes>(args, [](auto x, auto y) { return nan_min(x, y); });
}

}  // namespace ops
}  // namespace pte
