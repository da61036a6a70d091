// aten::logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out): any dtypes, each element taken as
// true when non-zero; out bool (or 0/1 in out's dtype).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status logical_xor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  return map_binary<bool>(*self, *other, *out, [](bool x, bool y) { return x != y; });
}

}  // namespace ops
}  // namespace pte
