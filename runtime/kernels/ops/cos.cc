// aten::cos.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// libm's cosf, as ExecuTorch's kernel calls it.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float cos_of(float x) { return std::cos(x); }

}  // namespace

Status cos_out(const KernelArgs& args) { return float_unary_out(args, cos_of); }

}  // namespace ops
}  // namespace pte
