// aten::floor.out(Tensor self, *, Tensor(a!) out): out has self's dtype.
// Integers pass through unchanged.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status floor_out(const KernelArgs& args) {
  return real_unary_out<kRealDtypes>(args, [](auto x) { return std::floor(x); });
}

}  // namespace ops
}  // namespace pte
