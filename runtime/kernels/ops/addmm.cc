// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta, Scalar alpha, Tensor(a!) out):
// out = alpha * (mat1 @ mat2) + beta * self, with self broadcast to the output. float32.
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/matmul.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {

Status addmm_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(7));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* mat1, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const Tensor* mat2, args.tensor(2));
  PTE_ASSIGN_OR_RETURN(const double beta, args.real(3));
  PTE_ASSIGN_OR_RETURN(const double alpha, args.real(4));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(5));
  PTE_RETURN_IF_ERROR(expect_float32_default_order({self, mat1, mat2, out}));
  PTE_RETURN_IF_ERROR(expect_rank(*mat1, 2, "mat1"));
  PTE_RETURN_IF_ERROR(expect_rank(*mat2, 2, "mat2"));
  if (mat1->sizes[1] != mat2->sizes[0]) {
    return Status::failure(Error::kKernelFailed, "mat1 %s and mat2 %s cannot be multiplied",
                           ShapeText(*mat1).c_str(), ShapeText(*mat2).c_str());
  }
  const int32_t out_shape[] = {mat1->sizes[0], mat2->sizes[1]};
  PTE_RETURN_IF_ERROR(expect_shape(*out, out_shape, "out"));
  PTE_RETURN_IF_ERROR(check_broadcast(*out, *self, *out));

  const size_t m = static_cast<size_t>(mat1->sizes[0]);
  const size_t n = static_cast<size_t>(mat1->sizes[1]);
  const size_t p = static_cast<size_t>(mat2->sizes[1]);
  float* result = out->data_as<float>();
  matmul(mat1->data_as<const float>(), mat2->data_as<const float>(), result, m, n, p, false);
  const float* addend = self->data_as<const float>();
  const float alpha_value = static_cast<float>(alpha);
  const float beta_value = static_cast<float>(beta);
  for_each_broadcast(*out, *self, *out, [&](size_t i, size_t, size_t self_index) {
    result[i] = result[i] * alpha_value + addend[self_index] * beta_value;
  });
  return Status();
}

}  // namespace ops
}  // namespace pte
