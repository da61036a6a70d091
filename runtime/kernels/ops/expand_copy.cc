// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit, Tensor(a!) out): self broadcast to
// `size` (-1 keeps a dim), copied; any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status expand_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> size, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  if (size.size() < self->rank || size.size() != out->rank) {
    return Status::failure(Error::kKernelFailed, "cannot expand %s to size %s (out %s)", ShapeText(*self).c_str(),
                           ShapeText(size).c_str(), ShapeText(*out).c_str());
  }
  // Source strides per out dim: 0 where self is broadcast (a new leading dim or a size-1 dim).
  int64_t source_strides[kMaxRank] = {};
  const uint32_t leading = out->rank - self->rank;
  for (uint32_t dim = 0; dim < out->rank; ++dim) {
    const int64_t wanted = size[dim];
    const int32_t have = dim < leading ? 1 : self->sizes[dim - leading];
    const int64_t target = (wanted == -1 && dim >= leading) ? have : wanted;
    if (target != out->sizes[dim] || (have != 1 && have != target)) {
      return Status::failure(Error::kKernelFailed, "cannot expand %s to size %s (out %s)", ShapeText(*self).c_str(),
                             ShapeText(size).c_str(), ShapeText(*out).c_str());
    }
    source_strides[dim] = (dim < leading || have == 1) ? 0 : self->strides[dim - leading];
  }
  strided_copy(self->data, out->data, element_size(self->scalar_type), Span<const int32_t>(out->sizes, out->rank),
               Span<const int64_t>(source_strides, out->rank), strides_of(*out).span(out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
