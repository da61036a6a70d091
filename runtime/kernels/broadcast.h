// PyTorch broadcasting for binary elementwise kernels over contiguous tensors.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/status.h"
#include "runtime/core/tensor.h"

namespace pte {

// Checks that `a` and `b` broadcast to exactly `out`'s shape.
Status check_broadcast(const Tensor& a, const Tensor& b, const Tensor& out);

// Calls fn(out_index, a_index, b_index) for every element of `out`, in memory order. All three tensors
// are contiguous in the default dim order and check_broadcast passed.
template <typename Fn>
void for_each_broadcast(const Tensor& a, const Tensor& b, const Tensor& out, Fn fn) {
  if (a.same_shape(out) && b.same_shape(out)) {
    for (size_t i = 0; i < out.numel; ++i) fn(i, i, i);
    return;
  }
  // Per output dim: how far a step moves in a and b (0 where they are broadcast).
  size_t a_step[kMaxRank];
  size_t b_step[kMaxRank];
  const uint32_t rank = out.rank;
  for (uint32_t dim = 0; dim < rank; ++dim) {
    const uint32_t from_end = rank - 1 - dim;
    a_step[dim] = (from_end < a.rank && a.sizes[a.rank - 1 - from_end] != 1)
                      ? static_cast<size_t>(a.strides[a.rank - 1 - from_end])
                      : 0;
    b_step[dim] = (from_end < b.rank && b.sizes[b.rank - 1 - from_end] != 1)
                      ? static_cast<size_t>(b.strides[b.rank - 1 - from_end])
                      : 0;
  }
  size_t coordinate[kMaxRank] = {};
  size_t a_index = 0;
  size_t b_index = 0;
  for (size_t i = 0; i < out.numel; ++i) {
    fn(i, a_index, b_index);
    // Odometer: bump the innermost dim, carry outwards.
    for (uint32_t dim = rank; dim-- > 0;) {
      ++coordinate[dim];
      a_index += a_step[dim];
      b_index += b_step[dim];
      if (coordinate[dim] < static_cast<size_t>(out.sizes[dim])) break;
      a_index -= a_step[dim] * coordinate[dim];
      b_index -= b_step[dim] * coordinate[dim];
      coordinate[dim] = 0;
    }
  }
}

// Checks that every input broadcasts to `out` and that `out` is exactly their broadcast shape.
Status check_broadcast_all(Span<const Tensor* const> inputs, const Tensor& out);

// for_each_broadcast over N inputs: fn(out_index, index) with index[k] the element of inputs[k].
template <size_t N, typename Fn>
void for_each_broadcast_n(const Tensor* const (&inputs)[N], const Tensor& out, Fn fn) {
  size_t index[N] = {};
  size_t step[N][kMaxRank];
  const uint32_t rank = out.rank;
  for (size_t k = 0; k < N; ++k) {
    const Tensor& in = *inputs[k];
    for (uint32_t dim = 0; dim < rank; ++dim) {
      const uint32_t from_end = rank - 1 - dim;
      step[k][dim] = (from_end < in.rank && in.sizes[in.rank - 1 - from_end] != 1)
                         ? static_cast<size_t>(in.strides[in.rank - 1 - from_end])
                         : 0;
    }
  }
  size_t coordinate[kMaxRank] = {};
  for (size_t i = 0; i < out.numel; ++i) {
    fn(i, static_cast<const size_t(&)[N]>(index));
    for (uint32_t dim = rank; dim-- > 0;) {
      ++coordinate[dim];
      for (size_t k = 0; k < N; ++k) index[k] += step[k][dim];
      if (coordinate[dim] < static_cast<size_t>(out.sizes[dim])) break;
      for (size_t k = 0; k < N; ++k) index[k] -= step[k][dim] * coordinate[dim];
      coordinate[dim] = 0;
    }
  }
}

}  // namespace pte
