// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out), float32:
// x - max - log(sum), ExecuTorch's portable steps (softmax_family.h); log is libm's.
#include <cmath>

#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/softmax_family.h"

namespace pte {
namespace ops {

Status log_softmax_out(const KernelArgs& args) {
  return softmax_family_out(args, [](const float* in, float* out, size_t size, size_t stride, float max, float sum) {
    const float log_sum = std::log(sum);
    for (size_t i = 0; i < size; ++i) out[i * stride] = in[i * stride] - max - log_sum;
  });
}

}  // namespace ops
}  // namespace pte
