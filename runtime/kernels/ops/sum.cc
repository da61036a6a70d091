// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype, Tensor(a!) out):
// each input element cast to out's dtype and added in increasing index order, in out's dtype.
// ExecuTorch starts from 0 on its fast path (one innermost dim, same dtype) and from the first element
// otherwise; the two differ only for a sum of -0.0s, and we follow each.
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/reduce.h"

namespace pte {
namespace ops {

Status sum_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(6));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const int64_t>> dims, args.optional_int_list(1));
  PTE_ASSIGN_OR_RETURN(const bool keepdim, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(4));
  PTE_ASSIGN_OR_RETURN(const ReductionPlan plan, ReductionPlan::make(*self, dims, keepdim, *out));
  const bool from_zero = starts_from_zero(*self, dims, *out);
  return switch_dtype<kRealDtypes>(out->scalar_type, "out", [&](auto tag) {
    using T = typename decltype(tag)::type;
    PTE_ASSIGN_OR_RETURN(const LoadFn<T> load, loader<T>(self->scalar_type, "self"));
    T* result = out->data_as<T>();
    for (size_t o = 0; o < out->numel; ++o) result[o] = sum_of<T>(plan, load, self->data, from_zero, o);
    return Status();
  });
}

}  // namespace ops
}  // namespace pte
