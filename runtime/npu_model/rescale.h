// Fixed-point rescaling as the NPU's output and input scalers do it: value * multiplier, then an
// arithmetic right shift with one of three roundings. The product is kept exact (up to 96 bits), so
// a 40-bit accumulator times a 32-bit multiplier never wraps.
#pragma once

#include <cstdint>

#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {

// (value * scale.multiplier + rounding) >> scale.shift, where rounding is
//   kNatural:  2^(shift-1)                                        (round half up)
//   kDouble:   2^(shift-1) + (shift > 31 ? +-2^30 : 0), the sign of value   (TOSA's double_round)
//   kTruncate: value < 0 ? 2^shift - 1 : 0                         (towards zero)
// saturated to the int64 range.
int64_t apply_scale(int64_t value, Scale scale, RoundMode mode);

int64_t saturate(int64_t value, int64_t low, int64_t high);

}  // namespace npu_model
}  // namespace pte
