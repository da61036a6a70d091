// The Vela bin stream: the blob an "EthosUBackend" delegate holds in a .pte (written by
// arm/ethosu/bin_stream.py). A sequence of blocks, each
//   name (16 bytes, NUL padded) | length (u32 LE) | external (u8) | 11 reserved bytes | data, padded to 16
// in the fixed order vela_bin_stream, cmd_data, weight_data, scratch_size, inputs, outputs, vela_end_stream.
// The parser checks every length and offset and returns views into the blob; nothing is copied.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace ethosu {

// The NPU's base-pointer regions as Vela assigns them.
enum class Region : int32_t {
  kWeights = 0,
  // Holds the delegate's inputs and outputs at their offsets, and its intermediate tensors.
  kScratch = 1,
  kFastScratch = 2,
};

// Vela describes every delegate input and output with a 6D shape.
constexpr size_t kIoRank = 6;

struct VelaIo {
  int32_t shape[kIoRank];
  int32_t element_size;
  // Byte offset in `region`.
  int32_t offset;
  int32_t region;

  size_t element_count() const;
  size_t byte_size() const { return element_count() * static_cast<size_t>(element_size); }
};

// The `inputs` or `outputs` block: a count, then the entries (read on demand; the blob may be unaligned).
class VelaIoTable {
 public:
  VelaIoTable() = default;
  VelaIoTable(const uint8_t* entries, size_t count) : entries_(entries), count_(count) {}
  size_t size() const { return count_; }
  // index < size().
  VelaIo at(size_t index) const;

 private:
  const uint8_t* entries_ = nullptr;
  size_t count_ = 0;
};

struct VelaBinStream {
  Span<const uint8_t> command_stream;
  Span<const uint8_t> weights;
  uint32_t scratch_size = 0;
  VelaIoTable inputs;
  VelaIoTable outputs;
};

// kInvalidDelegateBlob with the block and the offending numbers when `blob` is not a well-formed stream.
Result<VelaBinStream> parse_vela_bin_stream(Span<const uint8_t> blob);

}  // namespace ethosu
}  // namespace pte
