// Tensor: a typed view of memory the runtime does not own (program constants, planned arenas or caller
// buffers). Shapes are static: sizes and dim order point into the program and never change.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/status.h"

namespace pte {

// ExecuTorch's own limit (kTensorDimensionLimit).
constexpr uint32_t kMaxRank = 16;

struct Tensor {
  ScalarType scalar_type = ScalarType::kFloat;
  uint32_t rank = 0;
  const int32_t* sizes = nullptr;
  // Dimensions from outermost to innermost in memory; {0, 1, ..., rank-1} is the contiguous layout.
  const uint8_t* dim_order = nullptr;
  // In elements, derived from sizes and dim_order.
  const int32_t* strides = nullptr;
  // Null until bound (an unplanned input) or after a FreeCall.
  void* data = nullptr;
  size_t numel = 0;
  size_t nbytes = 0;
  // Data inside the program (weights): never an out argument, and may sit in read-only flash.
  bool is_constant = false;

  int32_t size(uint32_t dim) const { return sizes[dim]; }
  bool has_default_dim_order() const;
  bool same_shape(const Tensor& other) const;
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }
};

// Writes the row-major-in-dim-order strides of `sizes` into `strides` (all spans of length rank).
// kInvalidProgram when a size is negative or a stride does not fit in int32.
Status compute_strides(Span<const int32_t> sizes, Span<const uint8_t> dim_order, Span<int32_t> strides);

// "[2, 3, 4]": a tensor's shape for error messages.
class ShapeText {
 public:
  explicit ShapeText(const Tensor& tensor) : ShapeText(Span<const int32_t>(tensor.sizes, tensor.rank)) {}
  explicit ShapeText(Span<const int32_t> sizes);
  explicit ShapeText(Span<const int64_t> sizes);
  const char* c_str() const { return text_; }

 private:
  char text_[96] = {};
};

}  // namespace pte
