// The kernel interface: a kernel is a function over the EValues of one KernelCall instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

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
