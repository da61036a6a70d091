#include "runtime/npu_model/sparse_weights.h"

#include <algorithm>

namespace pte {
namespace npu_model {

Status check_sparse_weights(const WeightLayout& layout, Span<const int16_t> ohwi) {
  const int positions = layout.kernel_height * layout.kernel_width;
  for (int o = 0; o < layout.ofm_depth; ++o) {
    for (int position = 0; position < positions; ++position) {
      const int16_t* filter = ohwi.data() + (static_cast<size_t>(o) * positions + position) * layout.ifm_depth;
      for (int run = 0; run < layout.ifm_depth; run += kSparseRunChannels) {
        const int run_end = std::min(run + kSparseRunChannels, layout.ifm_depth);
        int non_zero = 0;
        for (int i = run; i < run_end; ++i) non_zero += filter[i] != 0;
        if (non_zero > kSparseRunWeights) {
          return Status::failure(Error::kDelegateFailed,
                                 "2:4 sparse weights hold %d non-zero weights in IFM channels %d-%d of OFM channel %d "
                                 "at kernel position (%d, %d); the format allows %d",
                                 non_zero, run, run_end - 1, o, position / layout.kernel_width,
                                 position % layout.kernel_width, kSparseRunWeights);
        }
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
