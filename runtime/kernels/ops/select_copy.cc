// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out): self[..., index, ...]
// with dim removed; a negative index counts from the end. Any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status select_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(1));
  PTE_ASSIGN_OR_RETURN(int64_t index, args.integer(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dim"));
  const int64_t size = self->sizes[dim];
  if (index < -size || index >= size) {
    return Status::failure(Error::kKernelFailed, "index %s is out of range for dim %lu of %s",
                           DecimalText(index).c_str(), as_ulong(dim), ShapeText(*self).c_str());
  }
  if (index < 0) index += size;
  int32_t expected[kMaxRank];
  int64_t source_strides[kMaxRank];
  for (uint32_t d = 0, o = 0; d < self->rank; ++d) {
    if (d == dim) continue;
    expected[o] = self->sizes[d];
    source_strides[o++] = self->strides[d];
  }
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, self->rank - 1), "out"));
  const size_t element = element_size(self->scalar_type);
  strided_copy(static_cast<const uint8_t*>(self->data) + index * self->strides[dim] * element, out->data, element,
               Span<const int32_t>(out->sizes, out->rank), Span<const int64_t>(source_strides, out->rank),
               strides_of(*out).span(out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
