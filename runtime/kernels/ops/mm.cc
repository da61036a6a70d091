// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out = self @ mat2. float32.
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status mm_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* mat2, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  for (const Tensor* tensor : {self, mat2, static_cast<const Tensor*>(out)}) {
    PTE_RETURN_IF_ERROR(expect_scalar_type(*tensor, ScalarType::kFloat, "every tensor"));
    PTE_RETURN_IF_ERROR(expect_default_dim_order(*tensor, "every tensor"));
  }
  PTE_RETURN_IF_ERROR(expect_rank(*self, 2, "self"));
  PTE_RETURN_IF_ERROR(expect_rank(*mat2, 2, "mat2"));
  if (self->sizes[1] != mat2->sizes[0]) {
    return Status::failure(Error::kKernelFailed, "self %s and mat2 %s cannot be multiplied",
                           ShapeText(*self).c_str(), ShapeText(*mat2).c_str());
  }
  const int32_t out_shape[] = {self->sizes[0], mat2->sizes[1]};
  PTE_RETURN_IF_ERROR(expect_shape(*out, out_shape, "out"));
  matmul(self->data_as<const float>(), mat2->data_as<const float>(), out->data_as<float>(),
         static_cast<size_t>(self->sizes[0]), static_cast<size_t>(self->sizes[1]), static_cast<size_t>(mat2->sizes[1]),
         false);
  return Status();
}

}  // namespace ops
}  // namespace pte
