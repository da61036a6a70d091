// aten::logical_not.out(Tensor self, *, Tensor(a!) out): any dtype; out bool (or 0/1 in out's dtype).
// An element is true when non-zero.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status logical_not_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(3));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(1));
  return map_unary<bool>(*self, *out, [](bool x) { return !x; });
}

}  // namespace ops
}  // namespace pte
