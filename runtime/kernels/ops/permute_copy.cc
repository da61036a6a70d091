// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out): out's dim i is self's dim dims[i].
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status permute_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dims, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  if (dims.size() != self->rank) {
    return Status::failure(Error::kKernelFailed, "dims has %lu entries for self %s", as_ulong(dims.size()),
                           ShapeText(*self).c_str());
  }
  int32_t expected[kMaxRank];
  int64_t source_strides[kMaxRank];
  int64_t out_strides[kMaxRank];
  bool seen[kMaxRank] = {};
  for (uint32_t i = 0; i < self->rank; ++i) {
    PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dims[i], self->rank, "dims entry"));
    if (seen[dim]) return Status::failure(Error::kKernelFailed, "dims %s repeats a dim", ShapeText(dims).c_str());
    seen[dim] = true;
    expected[i] = self->sizes[dim];
    source_strides[i] = self->strides[dim];
    out_strides[i] = out->strides[i];
  }
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank), "out"));
  strided_copy(self->data, out->data, element_size(self->scalar_type), Span<const int32_t>(out->sizes, out->rank),
               Span<const int64_t>(source_strides, self->rank), Span<const int64_t>(out_strides, out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
