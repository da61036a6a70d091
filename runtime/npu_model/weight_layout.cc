#include "runtime/npu_model/weight_layout.h"

#include <algorithm>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

// Sub-kernels are at most 8x8 elements before dilation is applied.
constexpr int kSubKernelMax = 8;

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

// Calls visit(o, ky, kx, i, valid) for each value of a U55 stream in stream order.
template <typename Visit>
void walk_u55_stream(const WeightLayout& layout, Visit&& visit) {
  const bool depthwise = layout.traversal == WeightTraversal::kDepthwise;
  const bool part_kernel = layout.traversal == WeightTraversal::kPartKernelFirst;
  const int ifm_block_depth = (part_kernel || layout.ifm_bits == 16) ? 16 : 32;
  const int decomposition_x = kSubKernelMax / layout.dilation_x;
  const int decomposition_y = kSubKernelMax / layout.dilation_y;
  // Depthwise and part-kernel-first pad each sub-kernel to a multiple of these many elements.
  const int element_round = depthwise ? 4 : (part_kernel ? (layout.ifm_bits == 16 ? 2 : 4) : 1);
  const int ifm_ublock = layout.ifm_ublock_depth;
  const int ofm_ublock = layout.ofm_ublock_depth;
  for (int ofm_block = 0; ofm_block < layout.ofm_depth; ofm_block += layout.ofm_block_depth) {
    const int block_depth = std::min(layout.ofm_block_depth, layout.ofm_depth - ofm_block);
    for (int ifm_block = 0; ifm_block < (depthwise ? 1 : layout.ifm_depth); ifm_block += ifm_block_depth) {
      const int ifm_depth = depthwise ? ifm_ublock
                                      : (part_kernel ? std::min(ifm_block_depth, layout.ifm_depth - ifm_block)
                                                     : ifm_block_depth);
      for (int sub_y = 0; sub_y < layout.kernel_height; sub_y += decomposition_y) {
        const int sub_height = std::min(layout.kernel_height - sub_y, decomposition_y);
        for (int sub_x = 0; sub_x < layout.kernel_width; sub_x += decomposition_x) {
          const int sub_width = std::min(layout.kernel_width - sub_x, decomposition_x);
          const int elements = round_up(sub_width * sub_height, element_round);
          const int ifm_outer_depth = part_kernel ? ifm_depth : 1;
          const int ifm_inner_depth = part_kernel ? 1 : ifm_depth;
          for (int ifm_outer = 0; ifm_outer < ifm_outer_depth; ifm_outer += ifm_ublock) {
            for (int ofm_ublock_start = 0; ofm_ublock_start < block_depth; ofm_ublock_start += ofm_ublock) {
              for (int element = 0; element < elements; ++element) {
                const int kx = element % sub_width;
                const int ky = element / sub_width;
                for (int ifm_inner = 0; ifm_inner < ifm_inner_depth; ifm_inner += ifm_ublock) {
                  for (int oz = 0; oz < ofm_ublock; ++oz) {
                    for (int iz = 0; iz < (depthwise ? 1 : ifm_ublock); ++iz) {
                      const int i = ifm_block + ifm_outer + ifm_inner + iz;
                      const int o = ofm_block + ofm_ublock_start + oz;
                      const bool valid =
                          i < (depthwise ? 1 : layout.ifm_depth) && o < layout.ofm_depth && ky < sub_height;
                      visit(o, sub_y + ky, sub_x + kx, i, valid);
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// U85 weights come in OFM micro-block groups of this many channels.
constexpr int kInterleaveDepth = 4;

// Calls visit(o, ky, kx, i, valid) for each value of a U85 stream (one weight decoder core) in stream
// order. 2:4 sparse weights come 16 IFM channels at a time instead of 8 (as Vela's U85 encoder orders
// them); part-kernel-first then keeps a 16-bit IFM's channels in one micro-block and rounds sub-kernels
// to 10 elements, as it does for 16-bit IFMs.
template <typename Visit>
void walk_u85_stream(const WeightLayout& layout, Visit&& visit) {
  const bool depthwise = layout.traversal == WeightTraversal::kDepthwise;
  const bool part_kernel = layout.traversal == WeightTraversal::kPartKernelFirst;
  const bool ifm16 = layout.ifm_bits == 16;
  const int stride_x = layout.traversal == WeightTraversal::kDepthFirst ? 1 : layout.stride_x;
  const int stride_y = layout.traversal == WeightTraversal::kDepthFirst ? 1 : layout.stride_y;
  const int ifm_block_depth = layout.ifm_block_depth;
  const bool sparse = layout.sparse;
  const int element_round = part_kernel ? (ifm16 || sparse ? 10 : 5) : (depthwise ? 10 : 1);
  const int ifm_ublock =
      part_kernel ? (ifm16 && !sparse ? 8 : ifm_block_depth) : (depthwise ? 1 : ifm_block_depth);
  const int ifm_inner_step = depthwise ? 1 : (sparse ? 16 : 8);
  const int depthwise_padding = (!ifm16 && layout.macs_per_cycle <= 256) ? 0 : (layout.macs_per_cycle <= 512 ? 2 : 6);
  const int decomposition_x = kSubKernelMax / layout.dilation_x;
  const int decomposition_y = kSubKernelMax / layout.dilation_y;
  const int ofm_ublock = layout.ofm_ublock_depth;
  const int ifm_limit = depthwise ? 1 : layout.ifm_depth;
  auto zeros = [&](int count) {
    for (int i = 0; i < count; ++i) visit(0, 0, 0, 0, false);
  };

  int ifm_step = -ifm_block_depth;
  int ifm_start = 0;
  for (int ofm_block = 0; ofm_block < layout.ofm_depth; ofm_block += layout.ofm_block_depth) {
    ifm_step = -ifm_step;  // IFM blocks go up for one OFM block and back down for the next
    const int block_depth = std::min(layout.ofm_block_depth, layout.ofm_depth - ofm_block);
    for (int ifm_block = ifm_start; ifm_block < ifm_limit && ifm_block >= 0; ifm_block += ifm_step) {
      ifm_start = ifm_block;
      const int ifm_depth = std::min(ifm_block_depth, layout.ifm_depth - ifm_block);
      for (int sub_x = 0; sub_x < layout.kernel_width; sub_x += decomposition_x) {
        const int sub_width = std::min(layout.kernel_width - sub_x, decomposition_x);
        for (int sub_y = 0; sub_y < layout.kernel_height; sub_y += decomposition_y) {
          const int sub_height = std::min(layout.kernel_height - sub_y, decomposition_y);
          const int ifm_outer_depth = depthwise ? 1 : ifm_depth;
          for (int ifm_outer = 0; ifm_outer < ifm_outer_depth; ifm_outer += ifm_ublock) {
            for (int ofm_outer = 0; ofm_outer < block_depth; ofm_outer += ofm_ublock) {
              int elements_left = round_up(sub_width * sub_height, element_round);
              for (int phase_y = 0; phase_y < stride_y; ++phase_y) {
                const int strided_height = (sub_height + stride_y - 1 - phase_y) / stride_y;
                for (int phase_x = 0; phase_x < stride_x; ++phase_x) {
                  const int strided_width = (sub_width + stride_x - 1 - phase_x) / stride_x;
                  for (int y = 0; y < strided_height; ++y) {
                    for (int column = 0; column < strided_width; ++column) {
                      const int x = y % 2 == 0 ? column : strided_width - 1 - column;  // rows alternate direction
                      --elements_left;
                      const int wx = sub_x + phase_x + x * stride_x;
                      const int wy = sub_y + phase_y + y * stride_y;
                      for (int ifm_inner = 0; ifm_inner < ifm_ublock; ifm_inner += ifm_inner_step) {
                        for (int ofm_group = 0; ofm_group < ofm_ublock; ofm_group += kInterleaveDepth) {
                          for (int oz = 0; oz < kInterleaveDepth; ++oz) {
                            for (int iz = 0; iz < ifm_inner_step; ++iz) {
                              const int i = ifm_block + ifm_outer + ifm_inner + iz;
                              const int o = ofm_block + ofm_outer + ofm_group + oz;
                              visit(o, wy, wx, i, i < ifm_limit && o < layout.ofm_depth);
                            }
                          }
                        }
                      }
                      if (depthwise && elements_left % element_round == 0) zeros(depthwise_padding * ofm_ublock);
                    }
                  }
                }
              }
              if (elements_left > 0) {
                zeros((elements_left + (depthwise ? depthwise_padding : 0)) * ifm_ublock * ofm_ublock);
              }
            }
          }
        }
      }
    }
  }
}

template <typename Visit>
void walk_stream(const WeightLayout& layout, Visit&& visit) {
  if (layout.generation == NpuProduct::kEthosU85) {
    walk_u85_stream(layout, visit);
  } else {
    walk_u55_stream(layout, visit);
  }
}

}  // namespace

size_t stream_values(const WeightLayout& layout) {
  size_t count = 0;
  walk_stream(layout, [&](int, int, int, int, bool) { ++count; });
  return count;
}

Status unpack_weights(Span<const int16_t> stream, const WeightLayout& layout, Span<int16_t> ohwi) {
  const size_t expected = stream_values(layout);
  if (stream.size() != expected || ohwi.size() < layout.dense_size()) {
    return Status::failure(Error::kDelegateFailed,
                           "the weight stream holds %lu values, a %dx%dx%dx%d kernel in this layout takes %lu",
                           as_ulong(stream.size()), layout.ofm_depth, layout.kernel_height, layout.kernel_width,
                           layout.ifm_depth, as_ulong(expected));
  }
  size_t position = 0;
  walk_stream(layout, [&](int o, int ky, int kx, int i, bool valid) {
    const int16_t value = stream[position++];
    if (valid) {
      ohwi[((static_cast<size_t>(o) * layout.kernel_height + ky) * layout.kernel_width + kx) * layout.ifm_depth + i] =
          value;
    }
  });
  return Status();
}

}  // namespace npu_model
}  // namespace pte
