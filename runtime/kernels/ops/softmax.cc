// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out), float32: exp(x - max) / sum,
// ExecuTorch's portable steps (softmax_family.h). exp is portable_exp, correctly rounded and the same on
// every target, so outputs match ExecuTorch's wherever its libm's expf rounds correctly too (glibc's does
// on all but 170,648 of the 2^32 floats; runtime/README.md).
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/softmax_family.h"

namespace pte {
namespace ops {

Status softmax_out(const KernelArgs& args) {
  return softmax_family_out(args, [](const float* in, float* out, size_t size, size_t stride, float max, float sum) {
    for (size_t i = 0; i < size; ++i) out[i * stride] = portable_exp(in[i * stride] - max) / sum;
  });
}

}  // namespace ops
}  // namespace pte
