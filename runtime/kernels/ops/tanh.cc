// aten::tanh.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// libm's tanhf, as ExecuTorch's kernel calls it.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float tanh_of(float x) { return std::tanh(x); }

}  // namespace

Status tanh_out(const KernelArgs& args) { return float_unary_out(args, tanh_of); }

}  // namespace ops
}  // namespace pte
