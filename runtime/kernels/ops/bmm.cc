// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out[b] = self[b] @ mat2[b], float32, each
// product summed from zero in k order (matmul.h).
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status bmm_out(const KernelArgs& args) { return batched_matmul_out(args, 3); }

}  // namespace ops
}  // namespace pte
