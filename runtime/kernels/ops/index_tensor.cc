// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out): advanced indexing, x[i, j]
// and x[:, i]. The index tensors (int64 or int32; None for a whole dim) broadcast together to shape B; out
// is B put where the indexed dims were when they are adjacent, else in front, around the other dims of
// self. A negative index counts from the end. Bool masks are not taken: their output shape depends on
// the data. Any dtype.
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

// How out's dims map back to self: out dim j is either self dim `self_dim[j]` (a whole dim) or dim
// `b_dim[j]` of the broadcast index shape.
struct IndexPlan {
  uint32_t b_rank = 0;
  int32_t b_sizes[kMaxRank] = {};
  // Per self dim: its index tensor, or null.
  const Tensor* index[kMaxRank] = {};
  LoadFn<int64_t> load[kMaxRank] = {};
  // Per self dim and B dim: the index tensor's stride (0 where it broadcasts).
  int64_t index_strides[kMaxRank][kMaxRank] = {};
  int32_t self_dim[kMaxRank] = {};
  int32_t b_dim[kMaxRank] = {};
};

Result<IndexPlan> plan_index(const Tensor& self, Span<Tensor* const> indices, const Tensor& out) {
  IndexPlan plan;
  if (indices.size() > self.rank) {
    return Status::failure(Error::kKernelFailed, "%lu indices for self %s", as_ulong(indices.size()),
                           ShapeText(self).c_str());
  }
  int first = -1;
  int last = -1;
  bool adjacent = true;
  for (uint32_t d = 0; d < indices.size(); ++d) {
    const Tensor* index = indices[d];
    if (index == nullptr) continue;
    if (index->scalar_type == ScalarType::kBool || index->scalar_type == ScalarType::kByte) {
      return Status::failure(Error::kNotSupported, "index %lu is a %s mask; masks give data-dependent shapes",
                             as_ulong(d), scalar_type_name(index->scalar_type));
    }
    PTE_RETURN_IF_ERROR(expect_index_dtype(index->scalar_type, "an index tensor"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(*index, "an index tensor"));
    PTE_ASSIGN_OR_RETURN(plan.load[d], loader<int64_t>(index->scalar_type, "an index tensor"));
    plan.index[d] = index;
    if (last >= 0 && static_cast<int>(d) != last + 1) adjacent = false;
    if (first < 0) first = static_cast<int>(d);
    last = static_cast<int>(d);
    if (index->rank > plan.b_rank) plan.b_rank = index->rank;
  }
  if (first < 0) return Status::failure(Error::kKernelFailed, "index.Tensor has no index tensor");
  // Broadcast shape B, and each index tensor's strides over it.
  for (uint32_t b = 0; b < plan.b_rank; ++b) plan.b_sizes[b] = 1;
  for (uint32_t d = 0; d < self.rank; ++d) {
    const Tensor* index = plan.index[d];
    if (index == nullptr) continue;
    for (uint32_t k = 0; k < index->rank; ++k) {
      const uint32_t b = plan.b_rank - index->rank + k;
      const int32_t size = index->sizes[k];
      if (size != 1 && plan.b_sizes[b] != 1 && plan.b_sizes[b] != size) {
        return Status::failure(Error::kKernelFailed, "index tensors of shape %s do not broadcast together",
                               ShapeText(*index).c_str());
      }
      if (size != 1) plan.b_sizes[b] = size;
      plan.index_strides[d][b] = size == 1 ? 0 : index->strides[k];
    }
  }
  // out = self dims before, B, self dims after (adjacent), or B, then every unindexed self dim.
  const uint32_t b_at = adjacent ? static_cast<uint32_t>(first) : 0;
  int32_t expected[kMaxRank];
  uint32_t rank = 0;
  uint32_t self_d = 0;
  auto push_self_dims_until = [&](uint32_t stop) {
    for (; self_d < stop; ++self_d) {
      if (plan.index[self_d] != nullptr) continue;
      plan.self_dim[rank] = static_cast<int32_t>(self_d);
      plan.b_dim[rank] = -1;
      expected[rank++] = self.sizes[self_d];
    }
  };
  push_self_dims_until(b_at);
  if (rank + plan.b_rank > kMaxRank) return Status::failure(Error::kKernelFailed, "index.Tensor out exceeds rank 16");
  for (uint32_t b = 0; b < plan.b_rank; ++b) {
    plan.self_dim[rank] = -1;
    plan.b_dim[rank] = static_cast<int32_t>(b);
    expected[rank++] = plan.b_sizes[b];
  }
  push_self_dims_until(self.rank);
  PTE_RETURN_IF_ERROR(expect_shape(out, Span<const int32_t>(expected, rank), "out"));
  return plan;
}

}  // namespace

Status index_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<Tensor* const> indices, args.optional_tensor_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const IndexPlan plan, plan_index(*self, indices, *out));
  const size_t element = element_size(self->scalar_type);
  int64_t coordinate[kMaxRank] = {};
  for (size_t i = 0; i < out->numel; ++i) {
    int64_t source = 0;
    for (uint32_t j = 0; j < out->rank; ++j) {
      if (plan.self_dim[j] >= 0) source += coordinate[j] * self->strides[plan.self_dim[j]];
    }
    for (uint32_t d = 0; d < self->rank; ++d) {
      if (plan.index[d] == nullptr) continue;
      int64_t offset = 0;
      for (uint32_t j = 0; j < out->rank; ++j) {
        if (plan.b_dim[j] >= 0) offset += coordinate[j] * plan.index_strides[d][plan.b_dim[j]];
      }
      int64_t entry = plan.load[d](plan.index[d]->data, static_cast<size_t>(offset));
      const int64_t size = self->sizes[d];
      if (entry < -size || entry >= size) {
        return Status::failure(Error::kKernelFailed, "index %s is out of range for dim %lu of %s",
                               DecimalText(entry).c_str(), as_ulong(d), ShapeText(*self).c_str());
      }
      if (entry < 0) entry += size;
      source += entry * self->strides[d];
    }
    std::memcpy(out->data_as<uint8_t>() + i * element, self->data_as<const uint8_t>() + source * element, element);
    for (uint32_t j = out->rank; j-- > 0;) {
      if (++coordinate[j] < out->sizes[j]) break;
      coordinate[j] = 0;
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
