#include "runtime/kernels/ops/matmul.h"

#include "runtime/kernels/checks.h"

namespace pte {
namespace ops {

void matmul(const float* x, const float* y, float* z, size_t m, size_t n, size_t p, bool y_transposed) {
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < p; ++j) {
      float sum = 0.0f;
      for (size_t k = 0; k < n; ++k) sum += x[i * n + k] * (y_transposed ? y[j * n + k] : y[k * p + j]);
      z[i * p + j] = sum;
    }
  }
}

Status batched_matmul_out(const KernelArgs& args, uint32_t rank) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* mat2, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({self, mat2, out}));
  PTE_RETURN_IF_ERROR(expect_rank(*self, rank, "self"));
  PTE_RETURN_IF_ERROR(expect_rank(*mat2, rank, "mat2"));
  // The batch dim, when there is one, comes first.
  const uint32_t row = rank - 2;
  const int32_t batches = rank == 3 ? self->sizes[0] : 1;
  if ((rank == 3 && mat2->sizes[0] != batches) || self->sizes[row + 1] != mat2->sizes[row]) {
    return Status::failure(Error::kKernelFailed, "self %s and mat2 %s cannot be multiplied", ShapeText(*self).c_str(),
                           ShapeText(*mat2).c_str());
  }
  const int32_t out_shape[] = {batches, self->sizes[row], mat2->sizes[row + 1]};
  PTE_RETURN_IF_ERROR(expect_shape(*out, Span<const int32_t>(out_shape + (3 - rank), rank), "out"));
  const size_t m = static_cast<size_t>(self->sizes[row]);
  const size_t n = static_cast<size_t>(self->sizes[row + 1]);
  const size_t p = static_cast<size_t>(mat2->sizes[row + 1]);
  for (size_t b = 0; b < static_cast<size_t>(batches); ++b) {
    matmul(self->data_as<const float>() + b * m * n, mat2->data_as<const float>() + b * n * p,
           out->data_as<float>() + b * m * p, m, n, p, false);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
