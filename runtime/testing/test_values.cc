#include "runtime/testing/test_values.h"

#include <cstdio>
#include <cstdlib>

namespace pte {
namespace testing {

TestTensor::TestTensor(ScalarType type, std::initializer_list<int32_t> sizes, std::initializer_list<uint8_t> dim_order)
    : sizes_(sizes), dim_order_(dim_order) {
  if (dim_order_.empty()) {
    for (size_t dim = 0; dim < sizes_.size(); ++dim) dim_order_.push_back(static_cast<uint8_t>(dim));
  }
  strides_.resize(sizes_.size());
  const Status strides = compute_strides(Span<const int32_t>(sizes_.data(), sizes_.size()),
                                         Span<const uint8_t>(dim_order_.data(), dim_order_.size()),
                                         Span<int32_t>(strides_.data(), strides_.size()));
  // A test's shapes are constants in its source: one that overflows is a mistake in the test.
  if (!strides.ok()) {
    std::fprintf(stderr, "TestTensor: %s\n", strides.message());
    std::abort();
  }
  size_t numel = 1;
  for (int32_t size : sizes_) numel *= static_cast<size_t>(size);
  storage_.resize(numel * element_size(type) + 16);
  tensor_.scalar_type = type;
  tensor_.rank = static_cast<uint32_t>(sizes_.size());
  tensor_.sizes = sizes_.data();
  tensor_.dim_order = dim_order_.data();
  tensor_.strides = strides_.data();
  tensor_.data = storage_.data();
  tensor_.numel = numel;
  tensor_.nbytes = numel * element_size(type);
  value_.tag = EValueTag::kTensor;
  value_.payload.tensor = &tensor_;
}

TestIntList::TestIntList(std::initializer_list<int64_t> items) : items_(items) {
  value_.tag = EValueTag::kIntList;
  value_.payload.list = {items_.data(), items_.size()};
}

EValue int_value(int64_t value) {
  EValue result;
  result.tag = EValueTag::kInt;
  result.payload.int_value = value;
  return result;
}

EValue double_value(double value) {
  EValue result;
  result.tag = EValueTag::kDouble;
  result.payload.double_value = value;
  return result;
}

EValue bool_value(bool value) {
  EValue result;
  result.tag = EValueTag::kBool;
  result.payload.bool_value = value;
  return result;
}

EValue none_value() { return EValue(); }

}  // namespace testing
}  // namespace pte
