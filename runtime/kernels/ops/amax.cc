// aten::amax.out(Tensor self, int[1] dim, bool keepdim, *, Tensor(a!) out) and aten::amin.out(...): the
// largest (smallest) element over dim, NaN propagated, folded from the first element in index order.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/reduction.h"

namespace pte {
namespace ops {
namespace {

Status extreme_out(const KernelArgs& args, bool largest) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dims, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const bool keepdim, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_ASSIGN_OR_RETURN(const ReductionPlan plan,
                       ReductionPlan::make(*self, std::optional<Span<const int64_t>>(dims), keepdim, *out));
  if (plan.reduced_count() == 0) return Status::failure(Error::kKernelFailed, "cannot reduce over an empty dim");
  return switch_dtype<kAllDtypes>(self->scalar_type, "self", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = self->data_as<const T>();
    T* result = out->data_as<T>();
    for (size_t o = 0; o < out->numel; ++o) {
      bool first = true;
      T value = T();
      plan.for_each_input(o, [&](size_t i) {
        value = first ? in[i] : (largest ? nan_max(value, in[i]) : nan_min(value, in[i]));
        first = false;
      });
      result[o] = value;
    }
    return Status();
  });
}

}  // namespace

Status amax_out(const KernelArgs& args) { return extreme_out(args, true); }
Status amin_out(const KernelArgs& args) { return extreme_out(args, false); }

}  // namespace ops
}  // namespace pte
