// Element types of tensors, numbered as ExecuTorch's scalar_type.fbs numbers them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pte {

enum class ScalarType : int8_t {
  kByte = 0,  // uint8
  kChar = 1,  // int8
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kBool = 11,
  kQInt8 = 12,
  kQUInt8 = 13,
  kQInt32 = 14,
  kBFloat16 = 15,
  kBits16 = 22,
  kUInt16 = 27,
  kUInt32 = 28,
  kUInt64 = 29,
};

// Bytes per element; 0 for a value this runtime does not know (so callers can reject it).
size_t element_size(ScalarType type);

// "float32", "int8", ...; "unknown" for a value this runtime does not know.
const char* scalar_type_name(ScalarType type);

// The ScalarType of a C++ element type, for kernels written as templates.
template <typename T>
struct ScalarTypeOf;
template <>
struct ScalarTypeOf<uint8_t> {
  static constexpr ScalarType value = ScalarType::kByte;
};
template <>
struct ScalarTypeOf<int8_t> {
  static constexpr ScalarType value = ScalarType::kChar;
};
template <>
struct ScalarTypeOf<int16_t> {
  static constexpr ScalarType value = ScalarType::kShort;
};
template <>
struct ScalarTypeOf<uint16_t> {
  static constexpr ScalarType value = ScalarType::kUInt16;
};
template <>
struct ScalarTypeOf<int32_t> {
  static constexpr ScalarType value = ScalarType::kInt;
};
template <>
struct ScalarTypeOf<int64_t> {
  static constexpr ScalarType value = ScalarType::kLong;
};
template <>
struct ScalarTypeOf<float> {
  static constexpr ScalarType value = ScalarType::kFloat;
};
template <>
struct ScalarTypeOf<double> {
  static constexpr ScalarType value = ScalarType::kDouble;
};
template <>
struct ScalarTypeOf<bool> {
  static constexpr ScalarType value = ScalarType::kBool;
};

}  // namespace pte
