// Hand-built EValues for host tests of kernels and backends. Each object owns its storage and must not
// move (the EValue points into it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace pte {
namespace testing {

class TestTensor {
 public:
  template <typename T>
  TestTensor(std::initializer_list<int32_t> sizes, std::initializer_list<T> data,
             std::initializer_list<uint8_t> dim_order = {})
      : TestTensor(ScalarTypeOf<T>::value, sizes, dim_order) {
    std::memcpy(storage_.data(), data.begin(), std::min(storage_.size(), data.size() * sizeof(T)));
  }
  // Zero-filled.
  TestTensor(ScalarType type, std::initializer_list<int32_t> sizes, std::initializer_list<uint8_t> dim_order = {});
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor& tensor() { return tensor_; }
  EValue* value() { return &value_; }
  template <typename T>
  std::vector<T> values() const {
    const T* data = static_cast<const T*>(tensor_.data);
    return std::vector<T>(data, data + tensor_.numel);
  }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  // operator new aligns to at least 16 bytes on the hosts tests run on, like planned memory.
  std::vector<uint8_t> storage_;
  Tensor tensor_;
  EValue value_;
};

class TestIntList {
 public:
  explicit TestIntList(std::initializer_list<int64_t> items);
  TestIntList(const TestIntList&) = delete;
  TestIntList& operator=(const TestIntList&) = delete;
  EValue* value() { return &value_; }

 private:
  std::vector<int64_t> items_;
  EValue value_;
};

// Scalars. These own nothing; keep them alive (as locals) while the call runs.
EValue int_value(int64_t value);
EValue double_value(double value);
EValue bool_value(bool value);
EValue none_value();

}  // namespace testing
}  // namespace pte
