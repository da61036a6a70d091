// aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) and
// aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out).
// libm's pow in float32 when the promoted dtype is float32, else in double (ExecuTorch's compute types);
// the result is cast to out's dtype.
#include <cmath>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

template <typename Compute>
Status pow_tensor(const Tensor& self, const Tensor& exponent, Tensor& out) {
  return map_binary<Compute>(self, exponent, out, [](Compute x, Compute y) { return std::pow(x, y); });
}

}  // namespace

Status pow_tensor_tensor_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* exponent, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  const ScalarType common = promote_types(self->scalar_type, exponent->scalar_type);
  if (common == ScalarType::kBool) return unsupported_dtype(common, kRealDtypes, "the common dtype");
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  if (common == ScalarType::kFloat) return pow_tensor<float>(*self, *exponent, *out);
  return pow_tensor<double>(*self, *exponent, *out);
}

Status pow_tensor_scalar_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar exponent, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  const ScalarType common = promote_with_scalar(self->scalar_type, exponent);
  if (common == ScalarType::kBool) return unsupported_dtype(common, kRealDtypes, "the common dtype");
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  if (common == ScalarType::kFloat) {
    const float y = exponent.to<float>();
    return map_unary<float>(*self, *out, [y](float x) { return std::pow(x, y); });
  }
  const double y = exponent.to<double>();
  return map_unary<double>(*self, *out, [y](double x) { return std::pow(x, y); });
}

}  // namespace ops
}  // namespace pte
