// aten::round.out(Tensor self, *, Tensor(a!) out): round half to even, out has self's dtype.
// ExecuTorch's formula, double products included: x - floor(x) == 0.5 ? round(x * 0.5) * 2.0 : round(x).
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float round_half_to_even(float x) {
  return x - std::floor(x) == 0.5f ? static_cast<float>(std::round(x * 0.5) * 2.0) : std::round(x);
}

}  // namespace

Status round_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  if (self->scalar_type != ScalarType::kFloat) {
    // Integers are already round.
    return real_unary_out<kIntegerDtypes>(args, [](auto x) { return x; });
  }
  return real_unary_out<kFloatDtypes>(args, [](float x) { return round_half_to_even(x); });
}

}  // namespace ops
}  // namespace pte
