// aten::tril.out(Tensor self, int diagonal, *, Tensor(a!) out): the lower triangle of each matrix in the
// last two dims (elements with col - row <= diagonal), the rest zero. Any dtype (elements are copied, not
// computed); shapes equal; default dim order (ExecuTorch's portable tril walks contiguous strides).
// ExecuTorch has no triu kernel: a triu stays decomposed (arange, ge, where) in its programs.
#include <cstdint>
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status tril_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const int64_t diagonal, args.integer(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  if (self->rank < 2) {
    return Status::failure(Error::kKernelFailed, "self has rank %lu; it needs at least 2 (a matrix or a batch of them)",
                           as_ulong(self->rank));
  }
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_same_shape(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  if (out->numel == 0) return Status();
  const int64_t rows = self->sizes[self->rank - 2];
  const int64_t cols = self->sizes[self->rank - 1];
  const size_t element = element_size(self->scalar_type);
  const size_t row_bytes = static_cast<size_t>(cols) * element;
  const auto* source = static_cast<const uint8_t*>(self->data);
  auto* target = static_cast<uint8_t*>(out->data);
  const size_t matrices = out->numel / static_cast<size_t>(rows * cols);
  for (size_t m = 0; m < matrices; ++m) {
    for (int64_t row = 0; row < rows; ++row) {
      const size_t offset = (m * static_cast<size_t>(rows) + static_cast<size_t>(row)) * row_bytes;
      for (int64_t col = 0; col < cols; ++col) {
        const size_t at = offset + static_cast<size_t>(col) * element;
        if (col - row <= diagonal) {
          std::memcpy(target + at, source + at, element);
        } else {
          std::memset(target + at, 0, element);
        }
      }
    }
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
