// Where each value of a decoded weight stream belongs. The NPU consumes weights in the order its MAC
// array needs them, which Vela's weight encoder produces. On the U55: OFM blocks of OFM_BLK_DEPTH
// channels; within a block, IFM blocks of 32 channels (16 for 16-bit IFMs or part-kernel-first
// traversal), then sub-kernels of up to 8x8 (4x4 with dilation 2), then micro-blocks of the OFM and IFM
// depth. The U85 walks IFM blocks back and forth from one OFM block to the next, sub-kernels column by
// column, kernel rows in alternating directions (split by the stride for part-kernel-first and
// depthwise), and OFM micro-blocks in groups of 4 channels, each channel's weights 8 IFM channels at a
// time (16 with 2:4 sparse weights). Missing channels and kernel positions are zeros, as is the padding
// that rounds sub-kernels up. Unpacking walks the same order and writes each value to its place in a
// dense OHWI array.
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/npu_model/driver_payload.h"

namespace pte {
namespace npu_model {

enum class WeightTraversal : uint8_t { kDepthFirst, kPartKernelFirst, kDepthwise };

struct WeightLayout {
  NpuProduct generation;
  WeightTraversal traversal;
  // Channels the stream covers (the operation's OFM depth), IFM channels (1 for depthwise) and the
  // kernel without dilation.
  int ofm_depth;
  int ifm_depth;
  int kernel_height;
  int kernel_width;
  int dilation_x;
  int dilation_y;
  // NPU_SET_OFM_BLK_DEPTH_M1 + 1.
  int ofm_block_depth;
  int ifm_bits;
  // The MAC array's micro-block depths (U55: architecture constants; U85: from ACC_FORMAT, IFM unused).
  int ofm_ublock_depth;
  int ifm_ublock_depth;
  // U85 only: the IFM block depth, the kernel stride, and the MACs per cycle (depthwise padding).
  int ifm_block_depth;
  int stride_x;
  int stride_y;
  int macs_per_cycle;
  // U85 only: 2:4 sparse weights (WEIGHT_FORMAT). The stream still holds every weight, zeros included,
  // in an order of its own; sparse_weights.h says what the format promises of them.
  bool sparse;

  size_t dense_size() const {
    return static_cast<size_t>(ofm_depth) * kernel_height * kernel_width * ifm_depth;
  }
};

// How many values a stream in this layout holds (padding included).
size_t stream_values(const WeightLayout& layout);

// Writes the stream's values to `ohwi` (dense_size() entries, [ofm][ky][kx][ifm]); kDelegateFailed
// when the stream holds a different number of values than the layout consumes.
Status unpack_weights(Span<const int16_t> stream, const WeightLayout& layout, Span<int16_t> ohwi);

}  // namespace npu_model
}  // namespace pte
