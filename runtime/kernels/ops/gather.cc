// aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad, Tensor(a!) out):
// out[i][j][k] = self[index[i][j][k]][j][k] for dim 0 (and so on), out shaped like index; a negative
// index counts from the end. Any dtype.
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/dtype.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status gather_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(6));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* index, args.tensor(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(4));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *index, "out", "index"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*index, "index"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(expect_index_dtype(index->scalar_type, "index"));
  if (index->rank != self->rank) {
    return Status::failure(Error::kKernelFailed, "index %s and self %s differ in rank", ShapeText(*index).c_str(),
                           ShapeText(*self).c_str());
  }
  if (self->rank == 0) {
    std::memcpy(out->data, self->data, out->nbytes);
    return Status();
  }
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dim"));
  for (uint32_t d = 0; d < self->rank; ++d) {
    if (d != dim && index->sizes[d] > self->sizes[d]) {
      return Status::failure(Error::kKernelFailed, "index %s is larger than self %s outside dim %lu",
                             ShapeText(*index).c_str(), ShapeText(*self).c_str(), as_ulong(dim));
    }
  }
  PTE_ASSIGN_OR_RETURN(const LoadFn<int64_t> load_index, loader<int64_t>(index->scalar_type, "index"));
  const size_t element = element_size(self->scalar_type);
  const int64_t size = self->sizes[dim];
  int64_t coordinate[kMaxRank] = {};
  for (size_t i = 0; i < out->numel; ++i) {
    int64_t entry = load_index(index->data, i);
    if (entry < -size || entry >= size) {
      return Status::failure(Error::kKernelFailed, "index %s is out of range for dim %lu of %s",
                             DecimalText(entry).c_str(), as_ulong(dim), ShapeText(*self).c_str());
    }
    if (entry < 0) entry += size;
    int64_t source = 0;
    for (uint32_t d = 0; d < self->rank; ++d) source += (d == dim ? entry : coordinate[d]) * self->strides[d];
    std::memcpy(out->data_as<uint8_t>() + i * element, self->data_as<const uint8_t>() + source * element, element);
    for (uint32_t d = out->rank; d-- > 0;) {
      if (++coordinate[d] < out->sizes[d]) break;
      coordinate[d] = 0;
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
