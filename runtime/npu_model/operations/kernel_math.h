// The inner products of the kernel operations. 8-bit activations (int16 after the zero point) times
// 9-bit weights fit 32-bit sums of up to 32768 terms, which compilers vectorise; wider activations
// accumulate in 64 bits.
#pragma once

#include <algorithm>
#include <cstdint>

namespace pte {
namespace npu_model {

// 32768 * 255 * 255 < 2^31.
constexpr int kExactInt32Terms = 32768;

inline int64_t dot(const int16_t* activations, const int16_t* weights, int count) {
  int64_t total = 0;
  for (int start = 0; start < count; start += kExactInt32Terms) {
    const int end = std::min(count, start + kExactInt32Terms);
    int32_t sum = 0;
    for (int i = start; i < end; ++i) sum += int32_t{activations[i]} * weights[i];
    total += sum;
  }
  return total;
}

inline int64_t dot(const int32_t* activations, const int16_t* weights, int count) {
  int64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += int64_t{activations[i]} * weights[i];
  return sum;
}

}  // namespace npu_model
}  // namespace pte
