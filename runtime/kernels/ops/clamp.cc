// aten::clamp.out(Tensor self, Scalar? min, Scalar? max, *, Tensor(a!) out): max(self, min) then
// min(., max), NaN propagated; computed in self's dtype promoted with the bounds, which must be out's.
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status clamp_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Scalar> min, args.optional_scalar(1));
  PTE_ASSIGN_OR_RETURN(const std::optional<Scalar> max, args.optional_scalar(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  if (!min.has_value() && !max.has_value()) {
    return Status::failure(Error::kKernelFailed, "clamp needs min or max (both are None)");
  }
  ScalarType common = self->scalar_type;
  if (min.has_value()) common = promote_with_scalar(common, *min);
  if (max.has_value()) common = promote_with_scalar(common, *max);
  if (common != out->scalar_type) {
    return Status::failure(Error::kKernelFailed, "self and the bounds promote to %s but out is %s",
                           scalar_type_name(common), scalar_type_name(out->scalar_type));
  }
  return switch_dtype<kRealDtypes>(common, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_unary<T>(*self, *out, [&](T x) {
      if (min.has_value()) x = nan_max(x, min->to<T>());
      if (max.has_value()) x = nan_min(x, max->to<T>());
      return x;
    });
  });
}

}  // namespace ops
}  // namespace pte
