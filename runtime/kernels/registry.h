// KernelRegistry: the kernels a method may call, found by the operator names the program lists.
// A fixed-size table filled explicitly at start-up (no static registration that a linker could drop).
#pragma once

#include <cstddef>

#include "runtime/core/status.h"
#include "runtime/kernels/kernel.h"

namespace pte {

class KernelRegistry {
 public:
  // Room for every reference kernel (about 90) and a target's own.
  static constexpr size_t kCapacity = 160;

  // Fails on a duplicate name or a full table.
  Status add(const Kernel& kernel);
  Status add_all(Span<const Kernel> kernels);

  // `name` and `overload` as the program stores them ("aten::add", "out"); an empty overload means the
  // bare name. Null when nothing is registered under that name.
  KernelFn find(const char* name, const char* overload) const;

  size_t size() const { return size_; }
  const Kernel& at(size_t index) const { return kernels_[index]; }

 private:
  Kernel kernels_[kCapacity] = {};
  size_t size_ = 0;
};

}  // namespace pte
