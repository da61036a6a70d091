#include "runtime/kernels/strided_copy.h"

#include <cstring>

#include "runtime/core/tensor.h"

namespace pte {

void strided_copy(const void* source, void* destination, size_t element_size, Span<const int32_t> sizes,
                  Span<const int64_t> source_strides, Span<const int64_t> destination_strides) {
  size_t count = 1;
  for (int32_t size : sizes) count *= static_cast<size_t>(size);
  const uint8_t* from = static_cast<const uint8_t*>(source);
  uint8_t* to = static_cast<uint8_t*>(destination);
  int64_t coordinate[kMaxRank] = {};
  int64_t source_index = 0;
  int64_t destination_index = 0;
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(to + destination_index * static_cast<int64_t>(element_size),
                from + source_index * static_cast<int64_t>(element_size), element_size);
    for (size_t dim = sizes.size(); dim-- > 0;) {
      ++coordinate[dim];
      source_index += source_strides[dim];
      destination_index += destination_strides[dim];
      if (coordinate[dim] < sizes[dim]) break;
      source_index -= source_strides[dim] * coordinate[dim];
      destination_index -= destination_strides[dim] * coordinate[dim];
      coordinate[dim] = 0;
    }
  }
}

Strides strides_of(const Tensor& tensor) {
  Strides strides;
  for (uint32_t dim = 0; dim < tensor.rank; ++dim) strides.values[dim] = tensor.strides[dim];
  return strides;
}

void copy_layout(const Tensor& source, Tensor& destination) {
  strided_copy(source.data, destination.data, element_size(source.scalar_type),
               Span<const int32_t>(source.sizes, source.rank), strides_of(source).span(source.rank),
               strides_of(destination).span(destination.rank));
}

}  // namespace pte
