// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) and aten::div.out_mode(Tensor self,
// Tensor other, *, str? rounding_mode, Tensor(a!) out).
// True division always computes in float32 (integers too) and writes float32. With "trunc" or "floor"
// it computes in promote_types(self, other), as ExecuTorch does: floor is Python's floor division
// ((a - fmod(a, b)) / b, corrected by one where the signs differ), and an integer divisor of zero fails.
// aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out): self's float dtype (float32 for
// integer and bool self), divided by `other` cast to it once.
#include <cmath>
#include <cstring>

#include "runtime/kernels/elementwise.h"
#include "runtime/kernels/ops/ops.h"

namespace pte {
namespace ops {
namespace {

template <typename T>
T floor_divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    const T quotient = static_cast<T>(a / b);
    if ((a < 0) == (b < 0)) return quotient;
    return static_cast<T>(a % b) != 0 ? static_cast<T>(quotient - 1) : quotient;
  } else {
    if (b == 0) return std::signbit(a) ? -INFINITY : INFINITY;
    const T mod = std::fmod(a, b);
    const T quotient = (a - mod) / b;
    if (mod != 0 && std::signbit(b) != std::signbit(mod)) return quotient - 1;
    return quotient;
  }
}

Status true_divide(const Tensor& self, const Tensor& other, Tensor& out) {
  PTE_RETURN_IF_ERROR(expect_scalar_type(out, ScalarType::kFloat, "out"));
  return map_binary<float>(self, other, out, [](float x, float y) { return x / y; });
}

}  // namespace

Status div_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  return true_divide(*self, *other, *out);
}

Status div_scalar_out(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(4));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Scalar other, args.scalar(1));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(2));
  PTE_RETURN_IF_ERROR(expect_scalar_type(*out, ScalarType::kFloat, "out"));
  const float divisor = other.to<float>();
  return map_unary<float>(*self, *out, [divisor](float x) { return x / divisor; });
}

Status div_out_mode(const KernelArgs& args) {
  PTE_RETURN_IF_ERROR(args.expect_count(5));
  PTE_ASSIGN_OR_RETURN(const Tensor* self, args.tensor(0));
  PTE_ASSIGN_OR_RETURN(const Tensor* other, args.tensor(1));
  PTE_ASSIGN_OR_RETURN(const char* mode, args.optional_string(2));
  PTE_ASSIGN_OR_RETURN(Tensor * out, args.out_tensor(3));
  if (mode == nullptr) return true_divide(*self, *other, *out);
  const bool trunc = std::strcmp(mode, "trunc") == 0;
  if (!trunc && std::strcmp(mode, "floor") != 0) {
    return Status::failure(Error::kKernelFailed, "rounding_mode is '%s'; div takes 'trunc', 'floor' or None", mode);
  }
  const ScalarType common = promote_types(self->scalar_type, other->scalar_type);
  PTE_RETURN_IF_ERROR(expect_can_cast(common, out->scalar_type, "out"));
  bool divided_by_zero = false;
  PTE_RETURN_IF_ERROR(switch_dtype<kRealDtypes>(common, "the common dtype of self and other", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_binary<T>(*self, *other, *out, [&](T x, T y) -> T {
      if constexpr (std::is_integral_v<T>) {
        if (y == 0) {
          divided_by_zero = true;
          return 0;
        }
      }
      if (trunc) return static_cast<T>(std::trunc(x / y));
      return floor_divide(x, y);
    });
  }));
  if (divided_by_zero) return Status::failure(Error::kKernelFailed, "integer division by zero");
  return Status();
}

}  // namespace ops
}  // namespace pte
