// aten::erf.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// libm's erff, as ExecuTorch's kernel calls it.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float erf_of(float x) { return std::erf(x); }

}  // namespace

Status erf_out(const KernelArgs& args) { return float_unary_out(args, erf_of); }

}  // namespace ops
}  // namespace pte
