#include "runtime/delegate/backend_registry.h"

#include <cstring>

#include "runtime/core/decimal_text.h"

namespace pte {

Status BackendRegistry::add(const char* id, Backend& backend) {
  if (find(id) != nullptr) {
    return Status::failure(Error::kInvalidArgument, "backend '%s' is registered twice", id);
  }
  if (size_ == kCapacity) {
    return Status::failure(Error::kInvalidArgument,
                           "backend registry is full (%lu backends); raise BackendRegistry::kCapacity to add '%s'",
                           as_ulong(kCapacity), id);
  }
  entries_[size_++] = Entry{id, &backend};
  return Status();
}

Backend* BackendRegistry::find(const char* id) const {
  for (size_t i = 0; i < size_; ++i) {
    if (std::strcmp(entries_[i].id, id) == 0) return entries_[i].backend;
  }
  return nullptr;
}

}  // namespace pte
