#include "runtime/npu_model/rescale.h"

namespace pte {
namespace npu_model {
namespace {

#if !defined(__SIZEOF_INT128__)
// A signed 128-bit two's complement number in two 64-bit halves (Cortex-M compilers have no __int128).
struct Wide {
  uint64_t high;
  uint64_t low;
};

Wide negate(Wide x) {
  Wide result{~x.high, ~x.low};
  result.low += 1;
  if (result.low == 0) result.high += 1;
  return result;
}

Wide add(Wide a, int64_t b) {
  const uint64_t b_low = static_cast<uint64_t>(b);
  const uint64_t b_high = b < 0 ? ~uint64_t{0} : 0;
  Wide result{a.high + b_high, a.low + b_low};
  if (result.low < a.low) result.high += 1;
  return result;
}

Wide multiply(int64_t value, uint32_t multiplier) {
  const bool negative = value < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  const uint64_t low_part = (magnitude & 0xffffffffu) * multiplier;
  const uint64_t high_part = (magnitude >> 32) * multiplier;
  Wide product{high_part >> 32, low_part + (high_part << 32)};
  if (product.low < low_part) product.high += 1;
  return negative ? negate(product) : product;
}

// Arithmetic shift right by 0..63, saturated to int64.
int64_t shift_right(Wide x, int shift) {
  const bool negative = (x.high >> 63) != 0;
  uint64_t high = x.high;
  uint64_t low = x.low;
  if (shift > 0) {
    low = (low >> shift) | (high << (64 - shift));
    high = negative ? ~(~high >> shift) : high >> shift;
  }
  // Fits in int64 when the high half is the sign extension of the low half.
  const uint64_t extension = (low >> 63) != 0 ? ~uint64_t{0} : 0;
  if (high != extension) return negative ? INT64_MIN : INT64_MAX;
  return static_cast<int64_t>(low);
}
#endif

}  // namespace

namespace detail {

int64_t apply_scale_wide(int64_t value, Scale scale, int64_t rounding) {
#if defined(__SIZEOF_INT128__)
  // Hosts with 128-bit integers take the short way; the result is the same.
  const __int128 result = (static_cast<__int128>(value) * scale.multiplier + rounding) >> scale.shift;
  return result > INT64_MAX ? INT64_MAX : (result < INT64_MIN ? INT64_MIN : static_cast<int64_t>(result));
#else
  return shift_right(add(multiply(value, scale.multiplier), rounding), scale.shift);
#endif
}

}  // namespace detail
}  // namespace npu_model
}  // namespace pte
