// aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out), float32.
// ExecuTorch's two formulas with its constants and its mix of float and double steps: "none" is
// 0.5 * x * (1 + erf(x * M_SQRT1_2)) evaluated in double, "tanh" is 0.5 * x * (1 + tanh(kBeta * (x +
// kKappa * x^3))) with kBeta and kKappa rounded to float. erf and tanh are libm's.
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;  // M_SQRT1_2
constexpr double kSqrt2 = 1.41421356237309504880;     // M_SQRT2
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // M_2_SQRTPI

float gelu_erf(float x) {
  if (x == -std::numeric_limits<float>::infinity()) return 0.0f;
  if (x == std::numeric_limits<float>::infinity()) return x;
  return static_cast<float>(0.5 * x * (1 + std::erf(x * kSqrtHalf)));
}

float gelu_tanh(float x) {
  if (x == -std::numeric_limits<float>::infinity()) return 0.0f;
  if (x == std::numeric_limits<float>::infinity()) return x;
  const float beta = static_cast<float>(kSqrt2 * kTwoOverSqrtPi * 0.5);
  const float kappa = 0.044715f;
  const float x_cubed = x * x * x;
  const float inner = beta * (x + kappa * x_cubed);
  return static_cast<float>(0.5 * x * (1.0 + std::tanh(inner)));
}

}  // namespace

Status gelu_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const char* approximate, args.optional_string(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*self, ScalarType::kFloat, "self"));
  PTE_RETURN_IF_ERROR(expect_same_scalar_type(*out, *self, "out", "self"));
  if (approximate == nullptr || std::strcmp(approximate, "none") == 0) return map_unary<float>(*self, *out, gelu_erf);
  if (std::strcmp(approximate, "tanh") == 0) return map_unary<float>(*self, *out, gelu_tanh);
  return Status::failure(Error::kKernelFailed, "approximate is '%s'; gelu takes 'none' or 'tanh'", approximate);
}

}  // namespace ops
}  // namespace pte
