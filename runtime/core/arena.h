// BumpArena: hands out memory from one caller-provided block and never frees it piecemeal. Everything a
// loaded method needs at run time lives in such a block, so nothing touches the heap after load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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

  // `size` raw bytes, not cleared: what they back (planned buffers, file contents, the runtime arena's
  // own block) is written before it is read. Memory planning gives every byte of a planned buffer to a
  // tensor that a kernel, a delegate or set_input writes first, and files are read in whole. (The
  // Ethos-U scratch is cleared by its backend: a Vela stream may read bytes it never wrote.) Clearing them cost the
  // Corstone-300 firmware 14.7 M of its 17.3 M instructions per load of MobileNetV2 (U55-128, QEMU
  // -icount; 13x the 1.1 M of an inference's CPU share), most of it the unused tail of its 32 MiB region; the host runner fills them with a pattern instead (runner/host_program.cc), so every host
  // test checks that nothing reads them first. `alignment` must be a power of two; `what` names the
  // allocation in the error message.
  Result<void*> allocate(size_t size, size_t alignment, const char* what);

  // `count` default-constructed Ts, zero-filled first: the runtime's own tables and descriptors, whose
  // plain structs must start at zero.
  template <typename T>
  Result<T*> allocate_array(size_t count, const char* what) {
    if (count != 0 && sizeof(T) > SIZE_MAX / count) {
      return Status::failure(Error::kArenaTooSmall, "%s: %lu elements of %lu bytes overflow", what,
                             as_ulong(count), as_ulong(sizeof(T)));
    }
    PTE_ASSIGN_OR_RETURN(void* memory, allocate(sizeof(T) * count, alignof(T), what));
    std::memset(memory, 0, sizeof(T) * count);
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
