// EValue: one entry of a method's value table, the things instructions read and write.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace pte {

enum class EValueTag : uint8_t {
  kNone,
  kInt,
  kDouble,
  kBool,
  kString,
  kTensor,
  kIntList,
  kDoubleList,
  kBoolList,
  kTensorList,
  // Like kTensorList; an element may be null (None).
  kOptionalTensorList,
};

const char* evalue_tag_name(EValueTag tag);

struct EValue {
  EValueTag tag = EValueTag::kNone;
  union {
    int64_t int_value;
    double double_value;
    bool bool_value;
    Tensor* tensor;
    struct {
      const void* items;
      size_t size;
    } list;
  } payload = {};

  bool is_none() const { return tag == EValueTag::kNone; }
  bool is_tensor() const { return tag == EValueTag::kTensor; }

  // Accessors for the held type; the caller checks the tag first.
  Span<const char> string() const { return {static_cast<const char*>(payload.list.items), payload.list.size}; }
  Span<const int64_t> int_list() const {
    return {static_cast<const int64_t*>(payload.list.items), payload.list.size};
  }
  Span<const double> double_list() const {
    return {static_cast<const double*>(payload.list.items), payload.list.size};
  }
  // Flatbuffers store bools as bytes; reading them as bytes keeps any value other than 0/1 defined.
  Span<const uint8_t> bool_list() const {
    return {static_cast<const uint8_t*>(payload.list.items), payload.list.size};
  }
  // For kOptionalTensorList an element may be null.
  Span<Tensor* const> tensor_list() const {
    return {static_cast<Tensor* const*>(payload.list.items), payload.list.size};
  }
};

}  // namespace pte
