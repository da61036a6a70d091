// aten::ceil.out(Tensor self, *, Tensor(a!) out): out has self's dtype.
// Integers pass through unchanged (not through a double, which would round int64s above 2^53).
#include <cmath>
#include <type_traits>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status ceil_out(const KernelArgs& args) {
  return real_unary_out<kRealDtypes>(args, [](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>) {
      return x;
    } else {
      return std::ceil(x);
    }
  });
}

}  // namespace ops
}  // namespace pte
