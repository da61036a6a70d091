// aten::exp.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// ExecuTorch calls std::exp; portable_exp is the same correctly rounded value on every target (kernels/exp.h).
#include "runtime/kernels/exp.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float exp_of(float x) { return portable_exp(x); }

}  // namespace

Status exp_out(const KernelArgs& args) { return float_unary_out(args, exp_of); }

}  // namespace ops
}  // namespace pte
