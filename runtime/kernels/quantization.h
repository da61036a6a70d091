// Affine int quantization as ExecuTorch's quantized kernels compute it, so results match bit for bit:
//   quantize:   q = clamp(float(zero_point) + nearbyint(x * (1.0f / float(scale))), quant_min, quant_max)
//   dequantize: x = float(q - zero_point) * float(scale)
#pragma once

#include <cmath>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace pte {

template <typename Q>
Q quantize_value(float value, float inverse_scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  const float rounded = static_cast<float>(static_cast<int32_t>(zero_point)) + std::nearbyint(inverse_scale * value);
  // Out of int64's range (or NaN) the conversion is undefined; x86, which ExecuTorch's results come from,
  // yields INT64_MIN there, which clamps to quant_min. Written so NaN fails the test.
  constexpr float kInt64Limit = 9.2e18f;
  int64_t integer = INT64_MIN;
  if (rounded > -kInt64Limit && rounded < kInt64Limit) integer = static_cast<int64_t>(rounded);
  if (integer < quant_min) integer = quant_min;
  if (integer > quant_max) integer = quant_max;
  return static_cast<Q>(integer);
}

template <typename Q>
float dequantize_value(Q value, int64_t zero_point, float scale) {
  return static_cast<float>(static_cast<int64_t>(value) - static_cast<int32_t>(zero_point)) * scale;
}

// Checks quant_min/quant_max against the quantized type `type` (int8, uint8, int16, uint16, int32).
Status check_quant_range(ScalarType type, int64_t quant_min, int64_t quant_max);

// Calls fn(Q{}) with the C++ type of a quantized ScalarType; kNotSupported for others.
template <typename Fn>
Status dispatch_quantized_type(ScalarType type, Fn fn) {
  switch (type) {
    case ScalarType::kChar:
      fn(int8_t{});
      return Status();
    case ScalarType::kByte:
      fn(uint8_t{});
      return Status();
    case ScalarType::kShort:
      fn(int16_t{});
      return Status();
    case ScalarType::kUInt16:
    case ScalarType::kBits16:
      fn(uint16_t{});
      return Status();
    case ScalarType::kInt:
      fn(int32_t{});
      return Status();
    default:
      return Status::failure(Error::kNotSupported, "quantized type %s is not supported (int8, uint8, int16, uint16, "
                             "int32)", scalar_type_name(type));
  }
}

// Per-channel parameters: channel c's scale and zero point, read from tensors of any dtype ExecuTorch
// emits for them (scales float32/float64, zero points int32/int64, or none).
class ChannelParameters {
 public:
  static Result<ChannelParameters> read(const Tensor& scales, const Tensor* zero_points, size_t channels);
  float scale(size_t channel) const;
  int64_t zero_point(size_t channel) const;

 private:
  const Tensor* scales_ = nullptr;
  const Tensor* zero_points_ = nullptr;
};

// The channel of each element along `axis` for a contiguous tensor: (index / block) % channels.
struct ChannelLayout {
  size_t block;
  size_t channels;
  size_t channel_of(size_t index) const { return (index / block) % channels; }
};
ChannelLayout channel_layout(const Tensor& tensor, uint32_t axis);

}  // namespace pte
