// dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking, int[]? dim_order, Tensor(a!) out):
// a copy of self laid out in out's dim order (ExecuTorch emits it for .contiguous() and memory_format
// changes).
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status clone_dim_order_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const std::optional<Span<const int64_t>> dim_order, args.optional_int_list(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  if (dim_order.has_value()) {
    bool matches = dim_order->size() == out->rank;
    for (uint32_t i = 0; matches && i < out->rank; ++i) matches = (*dim_order)[i] == out->dim_order[i];
    if (!matches) {
      return Status::failure(Error::kKernelFailed, "dim_order %s is not out's dim order",
                             ShapeText(*dim_order).c_str());
    }
  }
  int64_t source_strides[kMaxRank];
  int64_t out_strides[kMaxRank];
  for (uint32_t dim = 0; dim < self->rank; ++dim) {
    source_strides[dim] = self->strides[dim];
    out_strides[dim] = out->strides[dim];
  }
  strided_copy(self->data, out->data, element_size(self->scalar_type), Span<const int32_t>(self->sizes, self->rank),
               Span<const int64_t>(source_strides, self->rank), Span<const int64_t>(out_strides, out->rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
