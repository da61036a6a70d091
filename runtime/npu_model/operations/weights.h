// The weights and per-channel scales of a convolution or depthwise operation: the weight stream at
// WEIGHT_BASE (WEIGHT_LENGTH bytes, in WEIGHT_REGION) decoded and unpacked to dense OHWI, and one
// bias/multiplier/shift entry per OFM channel from the scale stream at SCALE_BASE. U55 streams use the
// compressed (MLW) format; U85 ones that or, per WEIGHT_FORMAT, the fast (FWD) one, either of them
// possibly holding 2:4 sparse weights (checked against sparse_weights.h's rule).
#pragma once

#include "runtime/core/result.h"
#include "runtime/npu_model/operation_context.h"
#include "runtime/npu_model/scale_stream.h"
#include "runtime/npu_model/weight_layout.h"

namespace pte {
namespace npu_model {

struct KernelWeights {
  WeightLayout layout;
  // [ofm][ky][kx][ifm], layout.dense_size() values.
  const int16_t* ohwi;
  // One per OFM channel.
  const ChannelScale* scales;

  const int16_t* filter(int ofm_channel, int ky, int kx) const {
    return ohwi + ((static_cast<size_t>(ofm_channel) * layout.kernel_height + ky) * layout.kernel_width + kx) *
                      layout.ifm_depth;
  }
};

struct WeightEncoding {
  bool fast;  // U85 FWD
  ScaleEntryFormat scales;
};

// The scale stream's first `channels` entries (SCALE_BASE, SCALE_LENGTH bytes, in SCALE_REGION).
Result<const ChannelScale*> load_scales(const OperationContext& context, int channels, ScaleEntryFormat format);

// `layout` says what the stream holds (its ofm_block_depth, and for the U55 the micro-block depths, are
// filled in from the registers and the architecture here).
Result<KernelWeights> load_weights(const OperationContext& context, WeightLayout layout, WeightEncoding encoding);

}  // namespace npu_model
}  // namespace pte
