// aten::mean.out(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype, Tensor(a!) out), float32
// out: the sum as sum.IntList_out adds it, divided by the element count as a float.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/ops/reduce.h"

namespace pte {
namespace ops {

Status mean_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(6));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const int64_t>> dims, args.optional_int_list(1));
  PTE_ASSIGN_OR_RETURN(const bool keepdim, args.boolean(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(4));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kFloat, "out"));
  PTE_ASSIGN_OR_RETURN(const ReductionPlan plan, ReductionPlan::make(*self, dims, keepdim, *out));
  PTE_ASSIGN_OR_RETURN(const LoadFn<float> load, loader<float>(self->scalar_type, "self"));
  const bool from_zero = starts_from_zero(*self, dims, *out);
  const float count = static_cast<float>(plan.reduced_count());
  float* result = out->data_as<float>();
  for (size_t o = 0; o < out->numel; ++o) result[o] = sum_of<float>(plan, load, self->data, from_zero, o) / count;
  return Status();
}

}  // namespace ops
}  // namespace pte
