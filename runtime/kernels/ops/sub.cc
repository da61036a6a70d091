// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out): out = self - alpha * other,
// in promote_types(self, other) with alpha cast to that dtype (ExecuTorch's order of operations), and
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha, *, Tensor(a!) out): the same with `other` a
// Scalar, in promote_with_scalar(self, other). The alpha family (elementwise.h) holds both walks.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

constexpr auto kSub = [](auto x, auto alpha, auto y) { return x - alpha * y; };

}  // namespace

Status sub_out(const KernelArgs& args) { return alpha_tensor_out(args, kSub); }

Status sub_scalar_out(const KernelArgs& args) { return alpha_scalar_out(args, kSub); }

}  // namespace ops
}  // namespace pte
