// Copies elements between two layouts of the same logical tensor: the engine of the layout kernels
// (permute_copy, _clone_dim_order). Element-size generic, so any dtype moves bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace pte {

// Walks `sizes` in row-major order; element at coordinate c moves from source[sum(c * source_strides)]
// to destination[sum(c * destination_strides)]. Strides are in elements.
void strided_copy(const void* source, void* destination, size_t element_size, Span<const int32_t> sizes,
                  Span<const int64_t> source_strides, Span<const int64_t> destination_strides);

// A tensor's strides (in elements) widened for strided_copy.
struct Strides {
  int64_t values[kMaxRank] = {};
  Span<const int64_t> span(uint32_t rank) const { return Span<const int64_t>(values, rank); }
};
Strides strides_of(const Tensor& tensor);

// Copies `source` into `destination` (same shape, same dtype) whatever their dim orders.
void copy_layout(const Tensor& source, Tensor& destination);

}  // namespace pte
