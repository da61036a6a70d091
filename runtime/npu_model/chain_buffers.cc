#include "runtime/npu_model/chain_buffers.h"

#include <new>

namespace pte {
namespace npu_model {

void ChainBuffers::reset() {
  arena_.~BumpArena();
  new (&arena_) BumpArena(memory_);
  for (Buffer& buffer : buffers_) buffer = Buffer{};
}

Result<int64_t*> ChainBuffers::write(uint32_t index, int height, int width, int depth) {
  if (index >= kCount) {
    return Status::failure(Error::kDelegateFailed, "chaining buffer %lu does not exist (0..%lu)",
                           static_cast<unsigned long>(index), static_cast<unsigned long>(kCount - 1));
  }
  Buffer& buffer = buffers_[index];
  const size_t count = static_cast<size_t>(height) * width * depth;
  if (count > buffer.capacity) {
    // The old values are not needed any more; their memory comes back at the next reset.
    PTE_ASSIGN_OR_RETURN(buffer.values, arena_.allocate_array<int64_t>(count, "a chaining buffer"));
    buffer.capacity = count;
  }
  buffer.height = height;
  buffer.width = width;
  buffer.depth = depth;
  return buffer.values;
}

Result<const int64_t*> ChainBuffers::read(uint32_t index, int height, int width, int depth) const {
  if (index >= kCount || buffers_[index].values == nullptr) {
    return Status::failure(Error::kDelegateFailed, "chaining buffer %lu is read before any operation wrote it",
                           static_cast<unsigned long>(index));
  }
  const Buffer& buffer = buffers_[index];
  if (buffer.height != height || buffer.width != width || buffer.depth != depth) {
    return Status::failure(Error::kDelegateFailed,
                           "chaining buffer %lu holds %dx%dx%d values, the operation reads %dx%dx%d",
                           static_cast<unsigned long>(index), buffer.height, buffer.width, buffer.depth, height, width,
                           depth);
  }
  return static_cast<const int64_t*>(buffer.values);
}

}  // namespace npu_model
}  // namespace pte
