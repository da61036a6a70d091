// aten::abs.out(Tensor self, *, Tensor(a!) out): out has self's dtype.
// ExecuTorch's test is x < 0, so -0.0 stays -0.0.
#include <type_traits>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status abs_out(const KernelArgs& args) {
  return real_unary_out<kRealDtypes>(args, [](auto x) {
    if constexpr (std::is_unsigned_v<decltype(x)>) {
      return x;
    } else {
      return x < 0 ? -x : x;
    }
  });
}

}  // namespace ops
}  // namespace pte
