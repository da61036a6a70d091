// The U85's chaining buffers: an operation's OFM kept on the chip for a following operation's IFM or
// IFM2, named by the REGION register when the feature map's storage is "chained". The model keeps a
// chained result whole (dense [y][x][c] values) until the next operation that writes the same buffer.
#pragma once

#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace npu_model {

class ChainBuffers {
 public:
  static constexpr uint32_t kCount = 8;

  explicit ChainBuffers(Span<uint8_t> memory) : memory_(memory), arena_(memory) {}

  // Empties every buffer (at the start of a command stream).
  void reset();

  // Room for `height * width * depth` values in buffer `index`, replacing what it held.
  Result<int64_t*> write(uint32_t index, int height, int width, int depth);
  // Buffer `index`'s values, which must have been written with this extent.
  Result<const int64_t*> read(uint32_t index, int height, int width, int depth) const;

 private:
  struct Buffer {
    int64_t* values;
    size_t capacity;
    int height;
    int width;
    int depth;
  };

  Span<uint8_t> memory_;
  BumpArena arena_;
  Buffer buffers_[kCount] = {};
};

}  // namespace npu_model
}  // namespace pte
