// aten::add.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out): out = self + alpha * other.
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/checks.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

template <typename T>
void add(const Tensor& self, const Tensor& other, T alpha, Tensor& out) {
  const T* a = self.data_as<const T>();
  const T* b = other.data_as<const T>();
  T* result = out.data_as<T>();
  for_each_broadcast(self, other, out,
                     [&](size_t i, size_t a_index, size_t b_index) { result[i] = a[a_index] + alpha * b[b_index]; });
}

}  // namespace

Status add_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const double alpha, args.real(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*other, *self, "other", "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*self, "self"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*other, "other"));
  PTE_RETURN_IF_ERROR(expect_default_dim_order(*out, "out"));
  PTE_RETURN_IF_ERROR(check_broadcast(*self, *other, *out));
  switch (self->scalar_type) {
    case ScalarType::kFloat:
      add<float>(*self, *other, static_cast<float>(alpha), *out);
      return Status();
    case ScalarType::kInt:
      add<int32_t>(*self, *other, static_cast<int32_t>(alpha), *out);
      return Status();
    default:
      return Status::failure(Error::kNotSupported, "%s is not supported (float32, int32)",
                             scalar_type_name(self->scalar_type));
  }
}

}  // namespace ops
}  // namespace pte
