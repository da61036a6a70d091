#include "runtime/kernels/registry.h"

#include <cstring>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace {

// Whether `full` is `name` + "." + `overload` (or just `name` when the overload is empty).
bool names_match(const char* full, const char* name, const char* overload) {
  const size_t name_length = std::strlen(name);
  if (std::strncmp(full, name, name_length) != 0) return false;
  const char* rest = full + name_length;
  if (overload == nullptr || overload[0] == '\0') return rest[0] == '\0';
  return rest[0] == '.' && std::strcmp(rest + 1, overload) == 0;
}

}  // namespace

Status KernelRegistry::add(const Kernel& kernel) {
  for (size_t i = 0; i < size_; ++i) {
    if (std::strcmp(kernels_[i].name, kernel.name) == 0) {
      return Status::failure(Error::kInvalidArgument, "kernel '%s' is registered twice", kernel.name);
    }
  }
  if (size_ == kCapacity) {
    return Status::failure(Error::kInvalidArgument,
                           "kernel registry is full (%lu kernels); raise KernelRegistry::kCapacity to add '%s'",
                           as_ulong(kCapacity), kernel.name);
  }
  kernels_[size_++] = kernel;
  return Status();
}

Status KernelRegistry::add_all(Span<const Kernel> kernels) {
  for (const Kernel& kernel : kernels) PTE_RETURN_IF_ERROR(add(kernel));
  return Status();
}

KernelFn KernelRegistry::find(const char* name, const char* overload) const {
  for (size_t i = 0; i < size_; ++i) {
    if (names_match(kernels_[i].name, name, overload)) return kernels_[i].fn;
  }
  return nullptr;
}

}  // namespace pte
