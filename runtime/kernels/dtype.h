// The one dtype switch of the reference kernels: a runtime ScalarType becomes a C++ element type for a
// template, and elements convert between dtypes as ExecuTorch's portable kernels convert them (a plain
// static_cast, through the op's compute type). Also PyTorch's type promotion, which decides that type.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/status.h"
#include "runtime/kernels/kernel.h"

namespace pte {

// An element type carried as a value, so generic lambdas can receive it: [&](auto tag) { using T =
// typename decltype(tag)::type; ... }.
template <typename T>
struct DtypeTag {
  using type = T;
};

// Which dtypes a kernel accepts. Double, half and the quantized storage types are not among them: no
// program the flow makes leaves them on the CPU, and each dtype multiplies a device build's code size.
enum DtypeSet : unsigned {
  kFloatDtypes = 1u << 0,    // float32
  kIntegerDtypes = 1u << 1,  // uint8, int8, int16, int32, int64
  kBoolDtype = 1u << 2,
  kRealDtypes = kFloatDtypes | kIntegerDtypes,
  kAllDtypes = kRealDtypes | kBoolDtype,
};

bool in_dtype_set(ScalarType type, unsigned set);
bool is_floating(ScalarType type);
bool is_integral(ScalarType type, bool include_bool);

// kNotSupported: "<what> is <dtype>; this kernel takes <set>".
Status unsupported_dtype(ScalarType type, unsigned set, const char* what);

// Calls fn(DtypeTag<T>{}) (which returns a Status) with `type`'s element type when `type` is in `Set`.
// Only the dtypes in Set are instantiated, so a kernel's code holds no cases it rejects.
template <unsigned Set, typename Fn>
Status switch_dtype(ScalarType type, const char* what, Fn&& fn) {
  switch (type) {
    case ScalarType::kFloat:
      if constexpr ((Set & kFloatDtypes) != 0) return fn(DtypeTag<float>{});
      break;
    case ScalarType::kByte:
      if constexpr ((Set & kIntegerDtypes) != 0) return fn(DtypeTag<uint8_t>{});
      break;
    case ScalarType::kChar:
      if constexpr ((Set & kIntegerDtypes) != 0) return fn(DtypeTag<int8_t>{});
      break;
    case ScalarType::kShort:
      if constexpr ((Set & kIntegerDtypes) != 0) return fn(DtypeTag<int16_t>{});
      break;
    case ScalarType::kInt:
      if constexpr ((Set & kIntegerDtypes) != 0) return fn(DtypeTag<int32_t>{});
      break;
    case ScalarType::kLong:
      if constexpr ((Set & kIntegerDtypes) != 0) return fn(DtypeTag<int64_t>{});
      break;
    case ScalarType::kBool:
      if constexpr ((Set & kBoolDtype) != 0) return fn(DtypeTag<bool>{});
      break;
    default:
      break;
  }
  return unsupported_dtype(type, Set, what);
}

// PyTorch's promote_types over the dtypes above (bool < integers < float32; uint8 with int8 gives int16).
ScalarType promote_types(ScalarType a, ScalarType b);
// The dtype of `tensor op scalar` (ExecuTorch's promote_type_with_scalar): the tensor's, except that an
// Int scalar lifts bool to int64 and a Double scalar lifts integers and bool to float32.
ScalarType promote_with_scalar(ScalarType tensor, const Scalar& scalar);
// Whether a value of `from` may be written to a tensor of `to` (PyTorch's can_cast: no float into an
// integer, nothing but bool into bool).
bool can_cast(ScalarType from, ScalarType to);
// kKernelFailed naming both when can_cast fails.
Status expect_can_cast(ScalarType from, ScalarType to, const char* what);

// Index tensors (gather, index_select, embedding, index.Tensor) are int64 or int32.
Status expect_index_dtype(ScalarType type, const char* what);

// Element i of memory holding `From`, as `To`.
template <typename To>
using LoadFn = To (*)(const void* data, size_t index);
// Writes a `From` value as element i of memory holding the tensor's dtype.
template <typename From>
using StoreFn = void (*)(From value, void* data, size_t index);

template <typename To, typename From>
To load_element(const void* data, size_t index) {
  return static_cast<To>(static_cast<const From*>(data)[index]);
}

template <typename From, typename To>
void store_element(From value, void* data, size_t index) {
  static_cast<To*>(data)[index] = static_cast<To>(value);
}

template <typename To>
Result<LoadFn<To>> loader(ScalarType from, const char* what) {
  LoadFn<To> fn = nullptr;
  PTE_RETURN_IF_ERROR(switch_dtype<kAllDtypes>(from, what, [&](auto tag) {
    fn = &load_element<To, typename decltype(tag)::type>;
    return Status();
  }));
  return fn;
}

template <typename From>
Result<StoreFn<From>> storer(ScalarType to, const char* what) {
  StoreFn<From> fn = nullptr;
  PTE_RETURN_IF_ERROR(switch_dtype<kAllDtypes>(to, what, [&](auto tag) {
    fn = &store_element<From, typename decltype(tag)::type>;
    return Status();
  }));
  return fn;
}

}  // namespace pte
