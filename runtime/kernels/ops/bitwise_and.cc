// aten::bitwise_and.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out).
// Integers and bool (where it is logical and).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status bitwise_and_out(const KernelArgs& args) {
  return binary_op_out<kIntegerDtypes | kBoolDtype>(args, [](auto x, auto y) { return x & y; });
}

}  // namespace ops
}  // namespace pte
