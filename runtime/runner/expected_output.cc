#include "runtime/runner/expected_output.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/runner/npy.h"

namespace pte {
namespace {

// An element's bits in hex, two digits per byte ("0x3f800000" for 1.0f). newlib-nano's printf has no %llx,
// so 8-byte elements are printed as two 32-bit halves.
struct ElementBits {
  ElementBits(const uint8_t* element, size_t size) {
    uint32_t halves[2] = {};
    for (size_t i = 0; i < size && i < 8; ++i) halves[i / 4] |= static_cast<uint32_t>(element[i]) << (8 * (i % 4));
    if (size > 4) {
      std::snprintf(text, sizeof(text), "0x%08lx%08lx", static_cast<unsigned long>(halves[1]),
                    static_cast<unsigned long>(halves[0]));
    } else {
      std::snprintf(text, sizeof(text), "0x%0*lx", static_cast<int>(2 * size), static_cast<unsigned long>(halves[0]));
    }
  }
  char text[20] = {};
};

OutputComparison differ(const char* format, ...) __attribute__((format(printf, 1, 2)));
OutputComparison differ(const char* format, ...) {
  OutputComparison comparison{false, {}};
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(comparison.difference, sizeof(comparison.difference), format, arguments);
  va_end(arguments);
  return comparison;
}

}  // namespace

Result<OutputComparison> compare_with_npy(const Tensor& output, Span<const uint8_t> expected_npy) {
  PTE_ASSIGN_OR_RETURN(const npy::Header expected, npy::parse_header(expected_npy));
  if (expected_npy.size() - expected.data_offset != expected.data_size) {
    return Status::failure(Error::kInvalidArgument, "the expected .npy holds %lu data bytes, its header says %lu",
                           as_ulong(expected_npy.size() - expected.data_offset), as_ulong(expected.data_size));
  }
  bool same_shape = expected.rank == output.rank;
  for (uint32_t dim = 0; same_shape && dim < output.rank; ++dim) same_shape = expected.shape[dim] == output.sizes[dim];
  if (expected.scalar_type != output.scalar_type || !same_shape) {
    int64_t shape[kMaxRank];
    for (uint32_t dim = 0; dim < expected.rank; ++dim) shape[dim] = expected.shape[dim];
    return differ("it is %s %s, expected %s %s", scalar_type_name(output.scalar_type), ShapeText(output).c_str(),
                  scalar_type_name(expected.scalar_type),
                  ShapeText(Span<const int64_t>(shape, expected.rank)).c_str());
  }
  if (!output.has_default_dim_order()) {
    return differ("its dim order is not contiguous; only contiguous outputs are compared");
  }
  const uint8_t* ours = static_cast<const uint8_t*>(output.data);
  const uint8_t* theirs = expected_npy.data() + expected.data_offset;
  const size_t size = element_size(output.scalar_type);
  for (size_t i = 0; i < output.numel; ++i) {
    if (std::memcmp(ours + i * size, theirs + i * size, size) != 0) {
      return differ("element %lu is %s, expected %s", as_ulong(i), ElementBits(ours + i * size, size).text,
                    ElementBits(theirs + i * size, size).text);
    }
  }
  return OutputComparison{true, {}};
}

}  // namespace pte
