// NumPy .npy files (format versions 1-3, little-endian, C order) for the runners: reading inputs and
// writing outputs in a form numpy and torch load directly. The header functions use no heap, so firmware
// reads and writes .npy files through them too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace pte {
namespace npy {

// What a .npy file's header says about the array that follows it.
struct Header {
  ScalarType scalar_type;
  uint32_t rank;
  int64_t shape[kMaxRank];
  // The element bytes start here, and take data_size bytes.
  size_t data_offset;
  size_t data_size;
};

// A version 1.0 header never needs more: the dict for kMaxRank ten-digit dims, padded to 64 bytes.
constexpr size_t kMaxWrittenHeaderSize = 320;

// kInvalidArgument naming what is wrong (not .npy, Fortran order, big-endian, unsupported dtype, a header
// running past the end of `file`). Only the header is read: `file` may end where the data starts.
Result<Header> parse_header(Span<const uint8_t> file);

// Writes a version 1.0 header (data 64-byte aligned) into `out` and returns its length.
Result<size_t> write_header(ScalarType scalar_type, Span<const int32_t> shape, Span<uint8_t> out);

struct Array {
  ScalarType scalar_type;
  std::vector<int64_t> shape;
  // Element bytes in C order.
  std::vector<uint8_t> data;
};

// parse_header, then the data, which must fill the rest of the file exactly.
Result<Array> parse(Span<const uint8_t> file);

std::vector<uint8_t> serialize(ScalarType scalar_type, Span<const int32_t> shape, Span<const uint8_t> data);

}  // namespace npy
}  // namespace pte
