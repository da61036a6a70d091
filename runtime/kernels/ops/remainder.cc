// aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) in promote_types(self, other), and
// aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) in promote_with_scalar(self, other).
// ExecuTorch's arithmetic: for floats fmod(a, b) in float, plus b where exactly one of a and b is
// negative and the result is not zero; for integers C++'s a % b (truncating). An integer divisor of zero
// fails.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

namespace {

// Python's remainder (the sign of the divisor); `divided_by_zero` is set for an integer divisor of zero.
struct Remainder {
  bool& divided_by_zero;

  template <typename T>
  T operator()(T a, T b) const {
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
  }
};

Status remainder_status(bool divided_by_zero) {
  if (divided_by_zero) return Status::failure(Error::kKernelFailed, "integer remainder by zero");
  return Status();
}

}  // namespace

Status remainder_tensor_out(const KernelArgs& args) {
  bool divided_by_zero = false;
  PTE_RETURN_IF_ERROR(binary_op_out<kRealDtypes>(args, Remainder{divided_by_zero}));
  return remainder_status(divided_by_zero);
}

Status remainder_scalar_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  bool divided_by_zero = false;
  PTE_RETURN_IF_ERROR(map_with_scalar<kRealDtypes>(*self, other, *out, Remainder{divided_by_zero}));
  return remainder_status(divided_by_zero);
}

}  // namespace ops
}  // namespace pte
