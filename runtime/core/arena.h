// BumpArena: hands out memory from one caller-provided block and never frees it piecemeal. Everything a
// loaded method needs at run time lives in such a block, so nothing touches the heap after load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include "runtime/core/decimal_text.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

class BumpArena {
 public:
  BumpArena(void* base, size_t capacity) : base_(static_cast<uint8_t*>(base)), capacity_(capacity) {}
  explicit BumpArena(Span<uint8_t> memory) : BumpArena(memory.data(), memory.size()) {}
  BumpArena(const BumpArena&) = delete;
  BumpArena& operator=(const BumpArena&) = delete;

  // `alignment` must be a power of two. `what` names the allocation in the error message.
  Result<void*> allocate(size_t size, size_t alignment, const char* what);

  // `count` default-constructed Ts (zero-filled first, so plain structs start at zero).
  template <typename T>
  Result<T*> allocate_array(size_t count, const char* what) {
    if (count != 0 && sizeof(T) > SIZE_MAX / count) {
      return Status::failure(Error::kArenaTooSmall, "%s: %lu elements of %lu bytes overflow", what,
                             as_ulong(count), as_ulong(sizeof(T)));
    }
    PTE_ASSIGN_OR_RETURN(void* memory, allocate(sizeof(T) * count, alignof(T), what));
    T* items = static_cast<T*>(memory);
    for (size_t i = 0; i < count; ++i) new (&items[i]) T();
    return items;
  }

  size_t used() const { return used_; }
  size_t capacity() const { return capacity_; }

 private:
  uint8_t* base_;
  size_t capacity_;
  size_t used_ = 0;
};

}  // namespace pte
