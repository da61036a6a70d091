// aten::add.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out): out = self + alpha * other,
// in promote_types(self, other) with alpha cast to that dtype (ExecuTorch's order of operations), and
// aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha, *, Tensor(a!) out): the same with `other` a
// Scalar, in promote_with_scalar(self, other). The alpha family (elementwise.h) holds both walks.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

constexpr auto kAdd = [](auto x, auto alpha, auto y) { return x + alpha * y; };

}  // namespace

Status add_out(const KernelArgs& args) { return alpha_tensor_out(args, kAdd); }

Status add_scalar_out(const KernelArgs& args) { return alpha_scalar_out(args, kAdd); }

}  // namespace ops
}  // namespace pte
