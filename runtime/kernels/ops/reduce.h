// Folds shared by the reduction kernels (sum, mean, amax, amin, argmax, max.dim).
#pragma once

#include <optional>

#include "runtime/kernels/dtype.h"
#include "runtime/kernels/reduction.h"

namespace pte {
namespace ops {

// ExecuTorch's sum and mean start from 0 on their fast path (a single innermost dim, self and out of one
// dtype) and from the first element otherwise.
bool starts_from_zero(const Tensor& self, std::optional<Span<const int64_t>> dims, const Tensor& out);

template <typename T>
T sum_of(const ReductionPlan& plan, LoadFn<T> load, const void* data, bool from_zero, size_t out_index) {
  T sum = 0;
  bool first = !from_zero;
  plan.for_each_input(out_index, [&](size_t i) {
    sum = first ? load(data, i) : static_cast<T>(sum + load(data, i));
    first = false;
  });
  return sum;
}

// The index (within the reduced elements, in order) and value of the largest (`largest`) or smallest
// element; the first NaN wins, else the first of equal extremes (ExecuTorch's argmax/argmin/max.dim rule).
template <typename T>
struct Extreme {
  T value;
  int64_t index;
};

template <typename T>
Extreme<T> extreme_of(const ReductionPlan& plan, const T* data, size_t out_index, bool largest) {
  Extreme<T> best{T(), -1};
  int64_t position = 0;
  plan.for_each_input(out_index, [&](size_t i) {
    const T value = data[i];
    const bool best_is_nan = best.value != best.value;
    const bool better = largest ? value > best.value : value < best.value;
    if (best.index < 0 || (!best_is_nan && (value != value || better))) best = Extreme<T>{value, position};
    ++position;
  });
  return best;
}

}  // namespace ops
}  // namespace pte
