// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim, *, Tensor(a!)[] out):
// consecutive pieces of self along dim, one per out tensor (torch.split and torch.chunk come as this).
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status split_with_sizes_copy_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> split_sizes, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(const int64_t dim_arg, args.integer(2));
  PTE_ASSIGN_OR_RETURN(const Span<Tensor* const> outs, args.tensor_list(3));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_ASSIGN_OR_RETURN(const uint32_t dim, normalize_dim(dim_arg, self->rank, "dim"));
  if (split_sizes.size() != outs.size()) {
    return Status::failure(Error::kKernelFailed, "%lu split sizes for %lu out tensors", as_ulong(split_sizes.size()),
                           as_ulong(outs.size()));
  }
  int64_t total = 0;
  for (const int64_t size : split_sizes) total += size;
  if (total != self->sizes[dim]) {
    return Status::failure(Error::kKernelFailed, "split sizes %s do not add up to dim %lu of %s",
                           ShapeText(split_sizes).c_str(), as_ulong(dim), ShapeText(*self).c_str());
  }
  const size_t element = element_size(self->scalar_type);
  const Strides source = strides_of(*self);
  int64_t offset = 0;
  for (size_t i = 0; i < outs.size(); ++i) {
    Tensor& out = *outs[i];
    if (out.is_constant) return Status::failure(Error::kInvalidProgram, "out tensor %lu is a program constant", as_ulong(i));
    PTE_RETURN_IF_ERROR(expect_same_scalar_type(out, *self, "an out tensor", "self"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(out, "an out tensor"));
    int32_t expected[kMaxRank];
    for (uint32_t d = 0; d < self->rank; ++d) expected[d] = self->sizes[d];
    expected[dim] = static_cast<int32_t>(split_sizes[i]);
    PTE_RETURN_IF_ERROR(expect_shape(out, Span<const int32_t>(expected, self->rank), "an out tensor"));
    strided_copy(static_cast<const uint8_t*>(self->data) + offset * self->strides[dim] * element, out.data, element,
                 Span<const int32_t>(out.sizes, out.rank), source.span(self->rank), strides_of(out).span(out.rank));
    offset += split_sizes[i];
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
