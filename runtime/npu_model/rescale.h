// Fixed-point rescaling as the NPU's output and input scalers do it: value * multiplier, then an
// arithmetic right shift with one of three roundings. The product is kept exact (up to 96 bits), so
// a 40-bit accumulator times a 32-bit multiplier never wraps.
#pragma once

#include <cstdint>

#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {

// (value * scale.multiplier + rounding) >> scale.shift, where rounding is
//   kNatural:          2^(shift-1)                                  (round half up)
//   kSymmetric:        2^(shift-1), less 1 for negative values      (half away from zero)
//   kDouble:           2^(shift-1) + (shift > 31 - d ? +-2^(30-d) : 0), signed like the value
//   kDoubleAsymmetric: 2^(shift-1) + (shift > 31 - d ? 2^(30-d) : 0)
//   kTruncate:         value < 0 ? 2^shift - 1 : 0                  (towards zero)
//   kTruncateToLower:  0                                            (floor)
// with d = `double_round` (0 for TOSA's apply_scale_32), saturated to the int64 range.
inline int64_t apply_scale(int64_t value, Scale scale, RoundMode mode, int double_round = 0);

inline int64_t saturate(int64_t value, int64_t low, int64_t high) {
  return value < low ? low : (value > high ? high : value);
}

namespace detail {
// The exact product and shift for values whose product with the multiplier may not fit 64 bits.
int64_t apply_scale_wide(int64_t value, Scale scale, int64_t rounding);
}  // namespace detail

inline int64_t apply_scale(int64_t value, Scale scale, RoundMode mode, int double_round) {
  const int shift = scale.shift;
  const bool negative = value < 0;
  const int64_t half = shift > 0 ? int64_t{1} << (shift - 1) : 0;
  const int64_t second = shift > 31 - double_round ? int64_t{1} << (30 - double_round) : 0;
  int64_t rounding = 0;
  switch (mode) {
    case RoundMode::kNatural:
      rounding = half;
      break;
    case RoundMode::kSymmetric:
      rounding = negative && half > 0 ? half - 1 : half;
      break;
    case RoundMode::kDouble:
      rounding = half + (negative ? -second : second);
      break;
    case RoundMode::kDoubleAsymmetric:
      rounding = half + second;
      break;
    case RoundMode::kTruncate:
      rounding = negative && shift > 0 ? (int64_t{1} << shift) - 1 : 0;
      break;
    case RoundMode::kTruncateToLower:
      rounding = 0;
      break;
  }
  // The product and rounding fit 64 bits for values of up to 29 bits (any shift), or of 32 bits with a
  // shift of at most 32.
  constexpr int64_t kSmall = int64_t{1} << 29;
  if ((value > -kSmall && value < kSmall) || (value >= INT32_MIN && value <= INT32_MAX && shift <= 32)) {
    return (value * static_cast<int64_t>(scale.multiplier) + rounding) >> shift;
  }
  return detail::apply_scale_wide(value, scale, rounding);
}

}  // namespace npu_model
}  // namespace pte
