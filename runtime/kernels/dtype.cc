#include "runtime/kernels/dtype.h"

namespace pte {
namespace {

// Integer dtypes by rank in promotion, signed ones by width.
int integer_width(ScalarType type) {
  switch (type) {
    case ScalarType::kByte:
    case ScalarType::kChar:
      return 1;
    case ScalarType::kShort:
      return 2;
    case ScalarType::kInt:
      return 4;
    case ScalarType::kLong:
      return 8;
    default:
      return 0;
  }
}

}  // namespace

bool in_dtype_set(ScalarType type, unsigned set) {
  switch (type) {
    case ScalarType::kFloat:
      return (set & kFloatDtypes) != 0;
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
    case ScalarType::kLong:
      return (set & kIntegerDtypes) != 0;
    case ScalarType::kBool:
      return (set & kBoolDtype) != 0;
    default:
      return false;
  }
}

bool is_floating(ScalarType type) { return type == ScalarType::kFloat || type == ScalarType::kDouble; }

bool is_integral(ScalarType type, bool include_bool) {
  return integer_width(type) != 0 || (include_bool && type == ScalarType::kBool);
}

Status unsupported_dtype(ScalarType type, unsigned set, const char* what) {
  const char* accepted = set == kFloatDtypes                       ? "float32"
                         : set == kRealDtypes                      ? "float32 and the integer dtypes"
                         : set == kAllDtypes                       ? "float32, the integer dtypes and bool"
                         : set == kIntegerDtypes                   ? "the integer dtypes"
                         : set == (kIntegerDtypes | kBoolDtype)    ? "the integer dtypes and bool"
                                                                   : "other dtypes";
  return Status::failure(Error::kNotSupported, "%s is %s; this kernel takes %s", what, scalar_type_name(type),
                         accepted);
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::kBool) return b;
  if (b == ScalarType::kBool) return a;
  if (is_floating(a) || is_floating(b)) {
    if (a == ScalarType::kDouble || b == ScalarType::kDouble) return ScalarType::kDouble;
    return ScalarType::kFloat;
  }
  // Both integers: uint8 meets a signed type.
  if (a == ScalarType::kByte || b == ScalarType::kByte) {
    const ScalarType other = a == ScalarType::kByte ? b : a;
    return other == ScalarType::kChar ? ScalarType::kShort : other;
  }
  return integer_width(a) >= integer_width(b) ? a : b;
}

ScalarType promote_with_scalar(ScalarType tensor, const Scalar& scalar) {
  if (scalar.is_bool()) return tensor;
  if (!scalar.is_floating()) return tensor == ScalarType::kBool ? ScalarType::kLong : tensor;
  return is_floating(tensor) ? tensor : ScalarType::kFloat;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && is_integral(to, false)) return false;
  if (from != ScalarType::kBool && to == ScalarType::kBool) return false;
  return true;
}

Status expect_can_cast(ScalarType from, ScalarType to, const char* what) {
  if (can_cast(from, to)) return Status();
  return Status::failure(Error::kKernelFailed, "the result is %s and cannot be written to %s, which is %s",
                         scalar_type_name(from), what, scalar_type_name(to));
}

Status expect_index_dtype(ScalarType type, const char* what) {
  if (type == ScalarType::kLong || type == ScalarType::kInt) return Status();
  return Status::failure(Error::kKernelFailed, "%s is %s; indices are int64 or int32", what, scalar_type_name(type));
}

}  // namespace pte
