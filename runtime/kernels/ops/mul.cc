// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out): out = self * other.
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

template <typename T>
void mul(const Tensor& self, const Tensor& other, Tensor& out) {
  const T* a = self.data_as<const T>();
  const T* b = other.data_as<const T>();
  T* result = out.data_as<T>();
  for_each_broadcast(self, other, out,
                     [&](size_t i, size_t a_index, size_t b_index) { result[i] = a[a_index] * b[b_index]; });
}

}  // namespace

Status mul_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*other, *self, "other", "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*other, "other"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_broadcast(*self, *other, *out));
  switch (self->scalar_type) {
    case ScalarType::kFloat:
      mul<float>(*self, *other, *out);
      return Status();
    case ScalarType::kInt:
      mul<int32_t>(*self, *other, *out);
      return Status();
    default:
      return Status::failure(Error::kNotSupported, "%s is not supported (float32, int32)",
                             scalar_type_name(self->scalar_type));
  }
}

}  // namespace ops
}  // namespace pte
