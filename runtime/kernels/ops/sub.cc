// aten::sub.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out): out = self - alpha * other,
// in promote_types(self, other) with alpha cast to that dtype (ExecuTorch's order of operations).
// aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha, *, Tensor(a!) out): the same with `other` a
// Scalar, in promote_with_scalar(self, other).
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status sub_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Scalar alpha, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  return switch_dtype<kRealDtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T scale = alpha.to<T>();
    return map_binary<T>(*self, *other, *out, [&](T x, T y) { return static_cast<T>(x - scale * y); });
  });
}

Status sub_scalar_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(const Scalar alpha, args.scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  return map_with_scalar<kRealDtypes>(*self, other, *out, [&](auto x, auto value) {
    using T = decltype(x);
    return static_cast<T>(x - alpha.to<T>() * value);
  });
}

}  // namespace ops
}  // namespace pte
