// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) in promote_types(self, other).
// ExecuTorch's arithmetic: for floats fmod(a, b) in float, plus b where exactly one of a and b is
// negative and the result is not zero; for integers C++'s a % b (truncating). An integer divisor of zero
// fails.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status remainder_tensor_out(const KernelArgs& args) {
  bool divided_by_zero = false;
  PTE_RETURN_IF_ERROR(binary_op_out<kRealDtypes>(args, [&](auto a, auto b) -> decltype(a) {
    using T = decltype(a);
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) {
        divided_by_zero = true;
        return 0;
      }
      return static_cast<T>(a % b);
    } else {
      float rem = std::fmod(a, b);
      if (((a < 0) ^ (b < 0)) && rem != 0) rem += b;
      return rem;
    }
  }));
  if (divided_by_zero) return Status::failure(Error::kKernelFailed, "integer remainder by zero");
  return Status();
}

}  // namespace ops
}  // namespace pte
