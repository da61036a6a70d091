// aten::sigmoid.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// 1 / (1 + exp(-x)) in float, ExecuTorch's formula; exp is portable_exp (kernels/exp.h).
#include "runtime/kernels/exp.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float sigmoid_of(float x) { return 1.0f / (1.0f + portable_exp(-x)); }

}  // namespace

Status sigmoid_out(const KernelArgs& args) { return float_unary_out(args, sigmoid_of); }

}  // namespace ops
}  // namespace pte
