// aten::sqrt.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// IEEE square root: the same bits everywhere.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float sqrt_of(float x) { return std::sqrt(x); }

}  // namespace

Status sqrt_out(const KernelArgs& args) { return float_unary_out(args, sqrt_of); }

}  // namespace ops
}  // namespace pte
