// aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out): self reversed along each of dims. Any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status flip_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> dims, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  // Read each flipped dim from its last entry backwards: a negative stride from an offset start.
  Strides source = strides_of(*self);
  int64_t start = 0;
  bool flipped[kMaxRank] = {};
  for (const int64_t dim_arg : dims) {
    PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dims entry"));
    if (flipped[dim]) return Status::failure(Error::kKernelFailed, "dims %s repeats a dim", ShapeText(dims).c_str());
    flipped[dim] = true;
    start += (self->sizes[dim] - 1) * source.values[dim];
    source.values[dim] = -source.values[dim];
  }
  if (self->numel == 0) return Status();
  const size_t element = element_size(self->scalar_type);
  strided_copy(static_cast<const uint8_t*>(self->data) + start * static_cast<int64_t>(element), out->data, element,
               Span<const int32_t>(out->sizes, out->rank), source.span(self->rank), strides_of(*out).span(out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
