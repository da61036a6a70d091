// aten::log.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// libm's logf, as ExecuTorch's kernel calls it.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float log_of(float x) { return std::log(x); }

}  // namespace

Status log_out(const KernelArgs& args) { return float_unary_out(args, log_of); }

}  // namespace ops
}  // namespace pte
