// aten::hardtanh.out(Tensor self, Scalar min_val, Scalar max_val, *, Tensor(a!) out): ReLU6 and friends;
// min(max(self, min_val), max_val) in self's dtype, NaN propagated.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status hardtanh_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar min, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(const Scalar max, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  return switch_dtype<kRealDtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T low = min.to<T>();
    const T high = max.to<T>();
    return map_unary<T>(*self, *out, [&](T x) { return nan_min(nan_max(x, low), high); });
  });
}

}  // namespace ops
}  // namespace pte
