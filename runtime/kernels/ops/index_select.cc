// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out): the entries of self
// along dim named by index (int64 or int32, 0-d or 1-d), in that order. Any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status index_select_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* index, args.tensor(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(expect_index_dtype(index->scalar_type, "index"));
  if (index->rank > 1) return Status::failure(Error::kKernelFailed, "index %s is not 0-d or 1-d", ShapeText(*index).c_str());
  const uint32_t rank = self->rank == 0 ? 1 : self->rank;
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, rank, "dim"));
  int32_t expected[kMaxRank];
  for (uint32_t d = 0; d < self->rank; ++d) expected[d] = d == dim ? static_cast<int32_t>(index->numel) : self->sizes[d];
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank), "out"));
  PTE_ASSIGN_OR_RETURN(const LoadFn<int64_t> load_index, loader<int64_t>(index->scalar_type, "index"));
  const int64_t size = self->rank == 0 ? 1 : self->sizes[dim];
  // Each index picks one slice: copy it with dim of size 1.
  int32_t slice_sizes[kMaxRank];
  for (uint32_t d = 0; d < self->rank; ++d) slice_sizes[d] = d == dim ? 1 : self->sizes[d];
  const size_t element = element_size(self->scalar_type);
  const int64_t self_stride = self->rank == 0 ? 0 : self->strides[dim];
  const int64_t out_stride = out->rank == 0 ? 0 : out->strides[dim];
  for (size_t i = 0; i < index->numel; ++i) {
    const int64_t entry = load_index(index->data, i);
    if (entry < 0 || entry >= size) {
      return Status::failure(Error::kKernelFailed, "index %s is out of range for dim %lu of %s",
                             DecimalText(entry).c_str(), as_ulong(dim), ShapeText(*self).c_str());
    }
    strided_copy(static_cast<const uint8_t*>(self->data) + entry * self_stride * static_cast<int64_t>(element),
                 out->data_as<uint8_t>() + static_cast<int64_t>(i) * out_stride * static_cast<int64_t>(element),
                 element, Span<const int32_t>(slice_sizes, self->rank), strides_of(*self).span(self->rank),
                 strides_of(*out).span(out->rank));
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
