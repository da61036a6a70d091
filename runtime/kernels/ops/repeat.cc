// aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out): self tiled repeats[d] times along
// each dim (repeats may be longer than self's rank: leading dims are new). Any dtype.
#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"
#include "runtime/kernels/strided_copy.h"

namespace pte {
namespace ops {

Status repeat_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Span<const int64_t> repeats, args.int_list(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  const uint32_t rank = static_cast<uint32_t>(repeats.size());
  if (rank < self->rank || rank > kMaxRank / 2) {
    return Status::failure(Error::kKernelFailed, "repeats %s does not fit self %s", ShapeText(repeats).c_str(),
                           ShapeText(*self).c_str());
  }
  // View out as [r0, s0, r1, s1, ...]: the copy walks every (repeat, source) coordinate pair, the
  // source stride is 0 along the repeat dims.
  const uint32_t leading = rank - self->rank;
  int32_t expected[kMaxRank];
  int32_t sizes[kMaxRank];
  int64_t source_strides[kMaxRank];
  int64_t out_strides[kMaxRank];
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t size = d < leading ? 1 : self->sizes[d - leading];
    if (repeats[d] < 0) return Status::failure(Error::kKernelFailed, "repeats %s is negative", ShapeText(repeats).c_str());
    expected[d] = static_cast<int32_t>(size * repeats[d]);
    sizes[2 * d] = static_cast<int32_t>(repeats[d]);
    sizes[2 * d + 1] = size;
    source_strides[2 * d] = 0;
    source_strides[2 * d + 1] = d < leading ? 0 : self->strides[d - leading];
  }
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(expected, rank), "out"));
  for (uint32_t d = 0; d < rank; ++d) {
    out_strides[2 * d + 1] = out->strides[d];
    out_strides[2 * d] = static_cast<int64_t>(out->strides[d]) * sizes[2 * d + 1];
  }
  strided_copy(self->data, out->data, element_size(self->scalar_type), Span<const int32_t>(sizes, 2 * rank),
               Span<const int64_t>(source_strides, 2 * rank), Span<const int64_t>(out_strides, 2 * rank));
  return Status();
}

}  // namespace ops
}  // namespace pte
