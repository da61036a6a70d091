// The reductions' walk (sum, mean, amax, argmax, ...): which input elements fold into each output element,
// in the order ExecuTorch's portable kernels fold them (increasing input index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "runtime/core/result.h"
#include "runtime/core/tensor.h"

namespace pte {

class ReductionPlan {
 public:
  // `dims` None or empty reduces every dim. out must have the kept dims (and size-1 reduced dims when
  // keepdim). Both tensors are contiguous in the default dim order.
  static Result<ReductionPlan> make(const Tensor& in, std::optional<Span<const int64_t>> dims, bool keepdim,
                                    const Tensor& out);

  // How many input elements fold into each output element.
  size_t reduced_count() const { return reduced_count_; }

  // Calls fn(input_index) for each input element of output element `out_index`, in increasing order.
  template <typename Fn>
  void for_each_input(size_t out_index, Fn fn) const {
    // The kept coordinates of out_index give the base; the reduced dims then run as an odometer.
    size_t base = 0;
    size_t rest = out_index;
    for (uint32_t k = kept_rank_; k-- > 0;) {
      base += (rest % kept_sizes_[k]) * kept_strides_[k];
      rest /= kept_sizes_[k];
    }
    size_t coordinate[kMaxRank] = {};
    size_t offset = 0;
    for (size_t i = 0; i < reduced_count_; ++i) {
      fn(base + offset);
      for (uint32_t r = reduced_rank_; r-- > 0;) {
        ++coordinate[r];
        offset += reduced_strides_[r];
        if (coordinate[r] < reduced_sizes_[r]) break;
        offset -= reduced_strides_[r] * coordinate[r];
        coordinate[r] = 0;
      }
    }
  }

 private:
  uint32_t kept_rank_ = 0;
  uint32_t reduced_rank_ = 0;
  size_t kept_sizes_[kMaxRank] = {};
  size_t kept_strides_[kMaxRank] = {};
  size_t reduced_sizes_[kMaxRank] = {};
  size_t reduced_strides_[kMaxRank] = {};
  size_t reduced_count_ = 1;
};

}  // namespace pte
