#include "runtime/npu_model/operations/kernel_engines.h"

namespace pte {
namespace npu_model {

Result<const int16_t*> weights_by_position(const KernelWeights& weights, BumpArena& scratch) {
  const int depth = weights.layout.ofm_depth;
  const int positions = weights.layout.kernel_height * weights.layout.kernel_width;
  PTE_ASSIGN_OR_RETURN(int16_t * by_position,
                       scratch.allocate_array<int16_t>(static_cast<size_t>(positions) * depth, "weights"));
  for (int c = 0; c < depth; ++c) {
    for (int k = 0; k < positions; ++k) by_position[static_cast<size_t>(k) * depth + c] = weights.ohwi[c * positions + k];
  }
  return static_cast<const int16_t*>(by_position);
}

}  // namespace npu_model
}  // namespace pte
