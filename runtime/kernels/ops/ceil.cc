// aten::ceil.out(Tensor self, *, Tensor(a!) out): out has self's dtype.
// Integers pass through unchanged.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status ceil_out(const KernelArgs& args) {
  return real_unary_out<kRealDtypes>(args, [](auto x) { return std::ceil(x); });
}

}  // namespace ops
}  // namespace pte
