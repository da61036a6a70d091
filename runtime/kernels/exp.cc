#include "runtime/kernels/exp.h"

#include <cstdint>
#include <cstring>

namespace pte {
namespace {

// exp(x) = 2^(k / 32) * exp(r) with k = round(x * 32 / ln 2) and |r| <= ln 2 / 64.
constexpr int kTableBits = 5;
constexpr int kTableSize = 1 << kTableBits;

// 2^(j / 32), each the double nearest to the exact value.
constexpr double kPowersOfTwo[kTableSize] = {
    0x1.0000000000000p+0, 0x1.059b0d3158574p+0, 0x1.0b5586cf9890fp+0, 0x1.11301d0125b51p+0,
    0x1.172b83c7d517bp+0, 0x1.1d4873168b9aap+0, 0x1.2387a6e756238p+0, 0x1.29e9df51fdee1p+0,
    0x1.306fe0a31b715p+0, 0x1.371a7373aa9cbp+0, 0x1.3dea64c123422p+0, 0x1.44e086061892dp+0,
    0x1.4bfdad5362a27p+0, 0x1.5342b569d4f82p+0, 0x1.5ab07dd485429p+0, 0x1.6247eb03a5585p+0,
    0x1.6a09e667f3bcdp+0, 0x1.71f75e8ec5f74p+0, 0x1.7a11473eb0187p+0, 0x1.82589994cce13p+0,
    0x1.8ace5422aa0dbp+0, 0x1.93737b0cdc5e5p+0, 0x1.9c49182a3f090p+0, 0x1.a5503b23e255dp+0,
    0x1.ae89f995ad3adp+0, 0x1.b7f76f2fb5e47p+0, 0x1.c199bdd85529cp+0, 0x1.cb720dcef9069p+0,
    0x1.d5818dcfba487p+0, 0x1.dfc97337b9b5fp+0, 0x1.ea4afa2a490dap+0, 0x1.f50765b6e4540p+0,
};

constexpr double kThirtyTwoOverLn2 = 0x1.71547652b82fep+5;
// ln 2 / 32 split in two: the high part has 37 significant bits, so k * kLn2Over32High is exact for the
// |k| < 2^13 seen here, and x - k * kLn2Over32High is exact too (both are multiples of 2^-42).
constexpr double kLn2Over32High = 0x1.62e42fefa0000p-6;
constexpr double kLn2Over32Low = 0x1.cf79abc9e3b3ap-45;
// Adding and subtracting 1.5 * 2^52 rounds a double of magnitude below 2^51 to the nearest integer.
constexpr double kRoundingShift = 0x1.8p52;

// Beyond these, exp(x) rounds to +inf (above 88.72) or to 0 (below -103.97) whatever the arithmetic.
constexpr float kOverflowBound = 89.0f;
constexpr float kUnderflowBound = -104.0f;

// 2^exponent for the normal doubles' exponent range.
double power_of_two(int exponent) {
  const uint64_t bits = static_cast<uint64_t>(exponent + 1023) << 52;
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

float portable_exp(float x) {
  if (x != x) return x + x;  // NaN stays NaN (quieted).
  if (x > kOverflowBound) return static_cast<float>(power_of_two(128));
  if (x < kUnderflowBound) return 0.0f;

  const double xd = x;
  const double kd = (xd * kThirtyTwoOverLn2 + kRoundingShift) - kRoundingShift;
  const int k = static_cast<int>(kd);
  const double r = (xd - kd * kLn2Over32High) - kd * kLn2Over32Low;

  // exp(r) - 1 by its Taylor series to r^6: the first omitted term is below 2^-58 for |r| <= ln 2 / 64.
  const double tail =
      r * r * (0x1p-1 + r * (0x1.5555555555555p-3 + r * (0x1.5555555555555p-5 + r * (0x1.1111111111111p-7 +
                                                                                     r * 0x1.6c16c16c16c17p-10))));
  const double expm1_r = r + tail;

  // Arithmetic shift: k = 32 * exponent + index with 0 <= index < 32, also for negative k.
  const int index = k & (kTableSize - 1);
  const int exponent = (k - index) / kTableSize;
  const double scaled = kPowersOfTwo[index] + kPowersOfTwo[index] * expm1_r;
  return static_cast<float>(scaled * power_of_two(exponent));
}

}  // namespace pte
