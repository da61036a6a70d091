// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out = self @ mat2, float32 (matmul.h).
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status mm_out(const KernelArgs& args) { return batched_matmul_out(args, 2); }

}  // namespace ops
}  // namespace pte
