// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out[b] = self[b] @ mat2[b], float32, each
// product summed from zero in k order (the matrix kernels' shared matmul).
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status bmm_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* mat2, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  for (const Tensor* tensor : {self, mat2, static_cast<const Tensor*>(out)}) {
    PTE_RETURN_IF_ERROR(expect_scalar_type(*tensor, ScalarType::kFloat, "every tensor"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(*tensor, "every tensor"));
  }
  PTE_RETURN_IF_ERROR(expect_rank(*self, 3, "self"));
  PTE_RETURN_IF_ERROR(expect_rank(*mat2, 3, "mat2"));
  if (self->sizes[0] != mat2->sizes[0] || self->sizes[2] != mat2->sizes[1]) {
    return Status::failure(Error::kKernelFailed, "self %s and mat2 %s cannot be batch-multiplied",
                           ShapeText(*self).c_str(), ShapeText(*mat2).c_str());
  }
  const int32_t out_shape[] = {self->sizes[0], self->sizes[1], mat2->sizes[2]};
  PTE_RETURN_IF_ERROR(expect_shape(*out, out_shape, "out"));
  const size_t m = static_cast<size_t>(self->sizes[1]);
  const size_t n = static_cast<size_t>(self->sizes[2]);
  const size_t p = static_cast<size_t>(mat2->sizes[2]);
  for (int32_t b = 0; b < self->sizes[0]; ++b) {
    matmul(self->data_as<const float>() + b * m * n, mat2->data_as<const float>() + b * n * p,
           out->data_as<float>() + b * m * p, m, n, p, false);
  }
  return Status();
}

}  // namespace ops
}  // namespace pte
