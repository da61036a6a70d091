#include "runtime/core/tensor.h"

#include <cstdio>

#include "runtime/core/checked_math.h"

namespace pte {

bool Tensor::has_default_dim_order() const {
  for (uint32_t dim = 0; dim < rank; ++dim) {
    if (dim_order[dim] != dim) return false;
  }
  return true;
}

bool Tensor::same_shape(const Tensor& other) const {
  if (rank != other.rank) return false;
  for (uint32_t dim = 0; dim < rank; ++dim) {
    if (sizes[dim] != other.sizes[dim]) return false;
  }
  return true;
}

Status compute_strides(Span<const int32_t> sizes, Span<const uint8_t> dim_order, Span<int32_t> strides) {
  int32_t stride = 1;
  for (size_t position = dim_order.size(); position > 0; --position) {
    const uint8_t dim = dim_order[position - 1];
    strides[dim] = stride;
    // A zero-sized dim makes numel 0 but not the strides of the dims outside it: they still multiply.
    if (sizes[dim] < 0 || !checked_mul(stride, sizes[dim] == 0 ? 1 : sizes[dim], &stride)) {
      return Status::failure(Error::kInvalidProgram, "the strides of shape %s overflow int32",
                             ShapeText(sizes).c_str());
    }
  }
  return Status();
}

namespace {

template <typename Int>
void format_sizes(Span<const Int> sizes, char* text, size_t capacity) {
  size_t length = 0;
  length += std::snprintf(text + length, capacity - length, "[");
  for (size_t i = 0; i < sizes.size() && length < capacity; ++i) {
    length += std::snprintf(text + length, capacity - length, "%s%ld", i ? ", " : "",
                            static_cast<long>(sizes[i]));
  }
  if (length < capacity) std::snprintf(text + length, capacity - length, "]");
}

}  // namespace

ShapeText::ShapeText(Span<const int32_t> sizes) { format_sizes(sizes, text_, sizeof(text_)); }
ShapeText::ShapeText(Span<const int64_t> sizes) { format_sizes(sizes, text_, sizeof(text_)); }

}  // namespace pte
