// aten::sin.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// libm's sinf, as ExecuTorch's kernel calls it.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float sin_of(float x) { return std::sin(x); }

}  // namespace

Status sin_out(const KernelArgs& args) { return float_unary_out(args, sin_of); }

}  // namespace ops
}  // namespace pte
