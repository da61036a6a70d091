#include "runtime/core/arena.h"

#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"

namespace pte {

Result<void*> BumpArena::allocate(size_t size, size_t alignment, const char* what) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(base_) + used_;
  const size_t padding = (alignment - address % alignment) % alignment;
  const size_t available = capacity_ - used_;
  if (!range_within(padding, size, available)) {
    // A lower bound: later allocations of the same load come on top of it.
    return Status::failure(Error::kArenaTooSmall,
                           "runtime arena too small: %s needs %lu bytes at offset %lu, the arena has %lu "
                           "(give at least %lu bytes)",
                           what, as_ulong(size), as_ulong(used_ + padding), as_ulong(capacity_),
                           as_ulong(used_ + padding + size));
  }
  uint8_t* memory = base_ + used_ + padding;
  used_ += padding + size;
  return static_cast<void*>(memory);
}

}  // namespace pte
