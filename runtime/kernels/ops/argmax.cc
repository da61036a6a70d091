// aten::argmax.out(Tensor self, int? dim, bool keepdim, *, Tensor(a!) out) and aten::argmin.out(...):
// the int64 position of the largest (smallest) element along dim (of the flattened tensor for None);
// the first NaN wins, else the first of equal extremes.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/reduce.h"

namespace pte {
namespace ops {
namespace {

Status arg_extreme_out(const KernelArgs& args, bool largest) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<int64_t> dim, args.optional_integer(1));
  PTE_ASSIGN_OR_RETURN(const bool keepdim, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kLong, "out"));
  std::optional<Span<const int64_t>> dims;
  if (dim.has_value()) dims = Span<const int64_t>(&*dim, 1);
  PTE_ASSIGN_OR_RETURN(const ReductionPlan plan, ReductionPlan::make(*self, dims, keepdim && dim.has_value(), *out));
  if (plan.reduced_count() == 0) return Status::failure(Error::kKernelFailed, "cannot reduce over an empty dim");
  return switch_dtype<kRealDtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t* result = out->data_as<int64_t>();
    for (size_t o = 0; o < out->numel; ++o) result[o] = extreme_of(plan, self->data_as<const T>(), o, largest).index;
    return Status();
  });
}

}  // namespace

Status argmax_out(const KernelArgs& args) { return arg_extreme_out(args, true); }
Status argmin_out(const KernelArgs& args) { return arg_extreme_out(args, false); }

}  // namespace ops
}  // namespace pte
