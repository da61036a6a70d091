// The build's inner loops (scalar on the host, Helium on Cortex-M55 under QEMU) against the scalar
// reference arithmetic of runtime/kernels/quantization.h, bit for bit, on every tail length and on the
// values where a vector unit could differ: ties, NaN, infinities, denormals, values beyond int32/int64.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "runtime/inner_loops/inner_loops.h"
#include "runtime/kernels/quantization.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

constexpr size_t kCount = 1027;  // not a multiple of 4 or 16: every loop ends in a predicated tail

// A fixed-seed generator, so the QEMU and host runs check the same numbers.
uint32_t next_random(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state;
}

void fill_inputs(float* values) {
  uint32_t state = 12345;
  const float specials[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -2.5f, 127.5f, -128.5f,
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min(),
                            3e9f, -3e9f, 9.3e18f, -9.3e18f, 1e30f, 2.0e-39f};
  const size_t special_count = sizeof(specials) / sizeof(specials[0]);
  for (size_t i = 0; i < kCount; ++i) {
    if (i < special_count) {
      values[i] = specials[i];
    } else {
      // Spread over [-3, 3] and onto exact ties of the grids used below.
      const int32_t integer = static_cast<int32_t>(next_random(&state) % 60001u) - 30000;
      values[i] = (i % 3 == 0) ? (static_cast<float>(integer % 300) + 0.5f) / 40.0f
                               : static_cast<float>(integer) / 10000.0f;
    }
  }
}

struct Grid {
  float scale;
  int32_t zero_point;
  int32_t quant_min;
  int32_t quant_max;
};

const Grid kGrids[] = {{0.025f, 0, -128, 127}, {0.0078125f, -38, -128, 127}, {3.0f, 5, -127, 127},
                       {1e-3f, 127, -128, 127}};

TEST(quantize_matches_the_reference_on_every_tail) {
  static float input[kCount];
  static int8_t got[kCount];
  fill_inputs(input);
  for (const Grid& grid : kGrids) {
    const float inverse_scale = 1.0f / grid.scale;
    for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{5}, size_t{17}, kCount}) {
      std::memset(got, 0x55, sizeof(got));
      inner_loops::quantize_float_to_int8(input, got, count, inverse_scale, grid.zero_point, grid.quant_min,
                                          grid.quant_max);
      for (size_t i = 0; i < count; ++i) {
        const int8_t want =
            quantize_value<int8_t>(input[i], inverse_scale, grid.zero_point, grid.quant_min, grid.quant_max);
        if (got[i] != want) {
          // The input's bits in hex: newlib-nano's printf has no floating-point conversions.
          uint32_t bits = 0;
          std::memcpy(&bits, &input[i], sizeof(bits));
          std::printf("  element %lu of %lu (float bits 0x%08lx): got %d, want %d\n", static_cast<unsigned long>(i),
                      static_cast<unsigned long>(count), static_cast<unsigned long>(bits), got[i], want);
        }
        EXPECT_EQ(got[i], want);
      }
      // Nothing past the end is written.
      if (count < kCount) EXPECT_EQ(got[count], static_cast<int8_t>(0x55));
    }
  }
}

TEST(dequantize_matches_the_reference_on_every_tail) {
  static int8_t input[kCount];
  static float got[kCount];
  for (size_t i = 0; i < kCount; ++i) input[i] = static_cast<int8_t>(i * 37 + 11);
  for (const Grid& grid : kGrids) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{16}, kCount}) {
      inner_loops::dequantize_int8_to_float(input, got, count, grid.zero_point, grid.scale);
      for (size_t i = 0; i < count; ++i) {
        const float want = dequantize_value<int8_t>(input[i], grid.zero_point, grid.scale);
        EXPECT_TRUE(std::memcmp(&got[i], &want, sizeof(float)) == 0);
      }
    }
  }
}

TEST(copy_bytes_copies_exactly_the_asked_bytes_at_any_alignment) {
  static uint8_t source[400];
  static uint8_t destination[400];
  for (size_t i = 0; i < sizeof(source); ++i) source[i] = static_cast<uint8_t>(i * 7 + 1);
  for (size_t offset = 0; offset < 4; ++offset) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{63}, size_t{64},
                          size_t{65}, size_t{255}, size_t{390}}) {
      std::memset(destination, 0, sizeof(destination));
      inner_loops::copy_bytes(destination + offset, source + 3 - offset % 3, count);
      EXPECT_TRUE(std::memcmp(destination + offset, source + 3 - offset % 3, count) == 0);
      EXPECT_EQ(destination[offset + count], 0);
    }
  }
}

TEST(names_its_implementation) {
  std::printf("inner loops: %s\n", inner_loops::implementation_name());
  EXPECT_TRUE(std::strlen(inner_loops::implementation_name()) > 0);
}

}  // namespace
}  // namespace pte
