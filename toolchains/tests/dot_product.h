// The int8 dot product accumulated in int32 (the inner loop of quantized matmul and conv kernels), on
// inputs whose result has a closed form, so a test can check a toolchain's code without a reference.
#ifndef TOOLCHAINS_TESTS_DOT_PRODUCT_H_
#define TOOLCHAINS_TESTS_DOT_PRODUCT_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace toolchain_tests {

// Not a multiple of 16 (MVE's int8 lanes), so vector code needs its tail handled.
constexpr std::size_t kLength = 100;

using Int8Vector = std::array<int8_t, kLength>;

// start, start + 1, ..., wrapping like int8_t does not (|start| + kLength stays within int8).
inline Int8Vector Ramp(int start) {
  Int8Vector values{};
  for (std::size_t i = 0; i < kLength; ++i) values[i] = static_cast<int8_t>(start + static_cast<int>(i));
  return values;
}

// The plain loop a compiler may vectorise.
inline int32_t DotProduct(const Int8Vector& a, const Int8Vector& b) {
  int32_t sum = 0;
  for (std::size_t i = 0; i < kLength; ++i) sum += int32_t{a[i]} * int32_t{b[i]};
  return sum;
}

// Ramp(start) . Ramp(start) = the sum of k^2 for k in [start, start + kLength).
constexpr int32_t SumOfSquares(int start) {
  int32_t sum = 0;
  for (int k = start; k < start + static_cast<int>(kLength); ++k) sum += k * k;
  return sum;
}

}  // namespace toolchain_tests

#endif  // TOOLCHAINS_TESTS_DOT_PRODUCT_H_
