// aten::rsqrt.out(Tensor self, *, Tensor(a!) out): any real or bool self, float32 out.
// 1.0 / sqrt(x) with a double 1.0, as ExecuTorch writes it: the quotient is rounded to double, then to float.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

float rsqrt_of(float x) { return static_cast<float>(1.0 / std::sqrt(x)); }

}  // namespace

Status rsqrt_out(const KernelArgs& args) { return float_unary_out(args, rsqrt_of); }

}  // namespace ops
}  // namespace pte
