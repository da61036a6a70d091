#include "runtime/kernels/reduction.h"

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"

namespace pte {

Result<ReductionPlan> ReductionPlan::make(const Tensor& in, std::optional<Span<const int64_t>> dims, bool keepdim,
                                          const Tensor& out) {
  PTE_RETURN_IF_ERROR(expect_default_dim_order(in, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(out, "out"));
  bool reduced[kMaxRank] = {};
  const bool all = !dims.has_value() || dims->empty();
  for (uint32_t d = 0; d < in.rank; ++d) reduced[d] = all;
  if (!all) {
    for (const int64_t dim_arg : *dims) {
      PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, in.rank == 0 ? 1 : in.rank, "dim"));
      if (in.rank > 0) reduced[dim] = true;
    }
  }
  ReductionPlan plan;
  int32_t expected[kMaxRank];
  uint32_t out_rank = 0;
  for (uint32_t d = 0; d < in.rank; ++d) {
    const size_t size = static_cast<size_t>(in.sizes[d]);
    if (reduced[d]) {
      plan.reduced_sizes_[plan.reduced_rank_] = size;
      plan.reduced_strides_[plan.reduced_rank_++] = static_cast<size_t>(in.strides[d]);
      plan.reduced_count_ *= size;
      if (keepdim) expected[out_rank++] = 1;
    } else {
      plan.kept_sizes_[plan.kept_rank_] = size;
      plan.kept_strides_[plan.kept_rank_++] = static_cast<size_t>(in.strides[d]);
      expected[out_rank++] = in.sizes[d];
    }
  }
  PTE_RETURN_IF_ERROR(expect_shape(out, Span<const int32_t>(expected, out_rank), "out"));
  return plan;
}

}  // namespace pte
