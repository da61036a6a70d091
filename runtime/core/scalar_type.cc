#include "runtime/core/scalar_type.h"

namespace pte {
namespace {

struct ScalarTypeInfo {
  ScalarType type;
  size_t size;
  const char* name;
};

constexpr ScalarTypeInfo kScalarTypes[] = {
    {ScalarType::kByte, 1, "uint8"},      {ScalarType::kChar, 1, "int8"},
    {ScalarType::kShort, 2, "int16"},     {ScalarType::kInt, 4, "int32"},
    {ScalarType::kLong, 8, "int64"},      {ScalarType::kHalf, 2, "float16"},
    {ScalarType::kFloat, 4, "float32"},   {ScalarType::kDouble, 8, "float64"},
    {ScalarType::kBool, 1, "bool"},       {ScalarType::kQInt8, 1, "qint8"},
    {ScalarType::kQUInt8, 1, "quint8"},   {ScalarType::kQInt32, 4, "qint32"},
    {ScalarType::kBFloat16, 2, "bfloat16"}, {ScalarType::kBits16, 2, "bits16"},
    {ScalarType::kUInt16, 2, "uint16"},   {ScalarType::kUInt32, 4, "uint32"},
    {ScalarType::kUInt64, 8, "uint64"},
};

const ScalarTypeInfo* find(ScalarType type) {
  for (const ScalarTypeInfo& info : kScalarTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

}  // namespace

size_t element_size(ScalarType type) {
  const ScalarTypeInfo* info = find(type);
  return info ? info->size : 0;
}

const char* scalar_type_name(ScalarType type) {
  const ScalarTypeInfo* info = find(type);
  return info ? info->name : "unknown";
}

}  // namespace pte
