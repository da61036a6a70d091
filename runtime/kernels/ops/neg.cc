// aten::neg.out(Tensor self, *, Tensor(a!) out): out has self's dtype.
// Negation in self's dtype (integers wrap as C++ does).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status neg_out(const KernelArgs& args) {
  return real_unary_out<kRealDtypes>(args, [](auto x) { return -x; });
}

}  // namespace ops
}  // namespace pte
