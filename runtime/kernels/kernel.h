// The kernel interface: a kernel is a function over the EValues of one KernelCall instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

// A schema `Scalar` argument as the program stores it.
struct Scalar {
  enum class Kind : uint8_t { kBool, kInt, kDouble };
  Kind kind = Kind::kInt;
  int64_t integer = 0;  // kBool and kInt
  double real = 0.0;    // kDouble
  bool is_floating() const { return kind == Kind::kDouble; }
  bool is_bool() const { return kind == Kind::kBool; }
  // The value as ExecuTorch's scalar_to<T> gives it: a plain C++ conversion from the stored kind.
  template <typename T>
  T to() const {
    return kind == Kind::kDouble ? static_cast<T>(real) : static_cast<T>(integer);
  }
};

// The arguments of one kernel call: the operator schema's arguments in order, then its out arguments,
// then the returned values (which alias the out arguments). Accessors check the tag and say which
// argument is wrong when it is.
class KernelArgs {
 public:
  explicit KernelArgs(Span<EValue* const> values) : values_(values) {}

  size_t size() const { return values_.size(); }
  Status expect_count(size_t count) const;

  // A tensor with data (inputs and outputs alike).
  Result<Tensor*> tensor(size_t index) const;
  // A tensor the kernel writes: planned or caller memory, never a program constant.
  Result<Tensor*> out_tensor(size_t index) const;
  // Null for None.
  Result<Tensor*> optional_tensor(size_t index) const;
  Result<int64_t> integer(size_t index) const;
  // A Double, or an Int converted to double (schemas' `Scalar` arguments come as either).
  Result<double> real(size_t index) const;
  Result<bool> boolean(size_t index) const;
  Result<Span<const int64_t>> int_list(size_t index) const;
  // Empty optional for None.
  Result<std::optional<Span<const int64_t>>> optional_int_list(size_t index) const;
  // A ScalarType passed as an Int.
  Result<ScalarType> scalar_type(size_t index) const;
  // Empty optional for None.
  Result<std::optional<ScalarType>> optional_scalar_type(size_t index) const;
  // Empty optional for None.
  Result<std::optional<int64_t>> optional_integer(size_t index) const;
  // A schema `Scalar`: Bool, Int or Double, with its kind kept (type promotion depends on it).
  Result<Scalar> scalar(size_t index) const;
  // Empty optional for None.
  Result<std::optional<Scalar>> optional_scalar(size_t index) const;
  // `float[]?`: empty optional for None.
  Result<std::optional<Span<const double>>> optional_double_list(size_t index) const;
  // A String argument (e.g. div's rounding_mode, gelu's approximate); null for None.
  Result<const char*> optional_string(size_t index) const;
  // `Tensor[]`: every element a tensor with data.
  Result<Span<Tensor* const>> tensor_list(size_t index) const;
  // `Tensor?[]`: an element may be null (None).
  Result<Span<Tensor* const>> optional_tensor_list(size_t index) const;

 private:
  Result<const EValue*> value(size_t index, EValueTag expected) const;
  Span<EValue* const> values_;
};

using KernelFn = Status (*)(const KernelArgs& args);

// A kernel under its operator name: "<namespace>::<name>.<overload>", e.g. "aten::add.out".
struct Kernel {
  const char* name;
  KernelFn fn;
};

}  // namespace pte
