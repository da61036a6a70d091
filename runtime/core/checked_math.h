// Overflow-checked arithmetic for every number that comes from a file (sizes, strides, offsets, counts).
// A .pte or a delegate blob is untrusted input: a product of sizes that wraps can pass a bounds check and
// then address memory it should not, and signed overflow is undefined behaviour besides. Each helper
// returns false instead of overflowing; the caller turns that into an Error naming the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace pte {

// *result = a + b when the sum fits in T; false (and *result unspecified) when it does not.
template <typename T>
[[nodiscard]] constexpr bool checked_add(T a, T b, T* result) {
  static_assert(std::is_integral<T>::value, "checked_add is for integers");
  return !__builtin_add_overflow(a, b, result);
}

// *result = a * b when the product fits in T.
template <typename T>
[[nodiscard]] constexpr bool checked_mul(T a, T b, T* result) {
  static_assert(std::is_integral<T>::value, "checked_mul is for integers");
  return !__builtin_mul_overflow(a, b, result);
}

// *result = value when `value` is representable in To (a negative size, or a 64-bit offset on a 32-bit
// target, is not).
template <typename To, typename From>
[[nodiscard]] constexpr bool checked_cast(From value, To* result) {
  static_assert(std::is_integral<To>::value && std::is_integral<From>::value, "checked_cast is for integers");
  return !__builtin_add_overflow(value, From{0}, result);
}

// Whether [offset, offset + size) lies inside [0, limit), without computing offset + size.
constexpr bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// (value + alignment - 1) rounded down to a multiple of `alignment` (a power of two), when that fits.
[[nodiscard]] constexpr bool checked_align_up(size_t value, size_t alignment, size_t* result) {
  size_t bumped = 0;
  if (!checked_add(value, alignment - 1, &bumped)) return false;
  *result = bumped & ~(alignment - 1);
  return true;
}

}  // namespace pte
