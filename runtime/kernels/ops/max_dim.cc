// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values)
// and aten::min.dim_min(...): the largest (smallest) element along dim and its int64 position (the
// second out, despite its name); the first NaN wins, else the first of equal extremes.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/reduce.h"

namespace pte {
namespace ops {
namespace {

Status extreme_dim_out(const KernelArgs& args, bool largest) {
  PTE_RETURN_IF_ERROR(args.expect_count(6));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim, args.integer(1));
  PTE_ASSIGN_OR_RETURN(const bool keepdim, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * values, args.out_tensor(3));
  PTE_ASSIGN_OR_RETURN(Tensor * indices, args.out_tensor(4));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*values, *self, "max", "self"));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*indices, ScalarType::kLong, "max_values (the indices)"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*indices, *values, "max_values (the indices)", "max"));
  PTE_ASSIGN_OR_RETURN(const ReductionPlan plan,
                       ReductionPlan::make(*self, Span<const int64_t>(&dim, 1), keepdim, *values));
  if (plan.reduced_count() == 0) return Status::failure(Error::kKernelFailed, "cannot reduce over an empty dim");
  return switch_dtype<kRealDtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t o = 0; o < values->numel; ++o) {
      const Extreme<T> best = extreme_of(plan, self->data_as<const T>(), o, largest);
      values->data_as<T>()[o] = best.value;
      indices->data_as<int64_t>()[o] = best.index;
    }
    return Status();
  });
}

}  // namespace

Status max_dim_out(const KernelArgs& args) { return extreme_dim_out(args, true); }
Status min_dim_out(const KernelArgs& args) { return extreme_dim_out(args, false); }

}  // namespace ops
}  // namespace pte
