// Runs on every platform with an emulator: the toolchain's C++17, libstdc++/libc++ and printf, and the
// emulator's path for stdout and the exit status back to Bazel.
#include <cinttypes>
#include <cstdio>

#include "toolchains/tests/dot_product.h"

namespace {
// volatile: the compiler must not fold the whole test into a constant.
volatile int ramp_start = -50;
}  // namespace

int main() {
  using namespace toolchain_tests;
  const Int8Vector ramp = Ramp(ramp_start);
  const int32_t result = DotProduct(ramp, ramp);
  const int32_t expected = SumOfSquares(-50);
  // newlib-nano's printf has no %zu: sizes go out as unsigned long.
  std::printf("dot product of a %lu-element int8 ramp with itself: %" PRId32 " (expected %" PRId32 ")\n",
              static_cast<unsigned long>(kLength), result, expected);
  return result == expected ? 0 : 1;
}
