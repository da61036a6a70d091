// Host-side file and buffer helpers shared by the runner and the host tests (not for device builds: they
// use the heap and stdio).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/program.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {

// Heap memory aligned to kBufferAlignment, as Program::load and planned buffers require.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t size) : size_(size), blocks_(size / kBufferAlignment + 1) {}
  // A copy of `bytes`.
  explicit AlignedBuffer(Span<const uint8_t> bytes);

  uint8_t* data() { return reinterpret_cast<uint8_t*>(blocks_.data()); }
  size_t size() const { return size_; }
  Span<uint8_t> span() { return Span<uint8_t>(data(), size_); }

 private:
  struct alignas(kBufferAlignment) Block {
    uint8_t bytes[kBufferAlignment];
  };
  size_t size_;
  std::vector<Block> blocks_;
};

Result<std::vector<uint8_t>> read_file(const std::string& path);
Status write_file(const std::string& path, Span<const uint8_t> bytes);

}  // namespace pte
