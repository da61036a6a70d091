// BackendRegistry: the delegate backends a method may use, by id. Filled explicitly at start-up.
#pragma once

#include <cstddef>

#include "runtime/core/status.h"
#include "runtime/delegate/backend.h"

namespace pte {

class BackendRegistry {
 public:
  static constexpr size_t kCapacity = 8;

  // `id` must outlive the registry. Fails on a duplicate id or a full table.
  Status add(const char* id, Backend& backend);
  // Null when no backend has this id.
  Backend* find(const char* id) const;

  size_t size() const { return size_; }
  const char* id(size_t index) const { return entries_[index].id; }

 private:
  struct Entry {
    const char* id;
    Backend* backend;
  };
  Entry entries_[kCapacity] = {};
  size_t size_ = 0;
};

}  // namespace pte
