// NumPy .npy files (format versions 1-3, little-endian, C order) for the host runner: reading inputs and
// writing outputs in a form numpy and torch load directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace pte {
namespace npy {

struct Array {
  ScalarType scalar_type;
  std::vector<int64_t> shape;
  // Element bytes in C order.
  std::vector<uint8_t> data;
};

// kInvalidArgument naming what is wrong (not .npy, Fortran order, big-endian, unsupported dtype, size).
Result<Array> parse(Span<const uint8_t> file);

std::vector<uint8_t> serialize(ScalarType scalar_type, Span<const int32_t> shape, Span<const uint8_t> data);

}  // namespace npy
}  // namespace pte
