// The arithmetic of the kernel operations, shared by every NPU generation: accumulators of a
// convolution or depthwise convolution for each OFM element, handed with their coordinates to an
// `output(oy, ox, channel, accumulator)` callable that scales and stores them the generation's way.
#pragma once

#include <cstdint>
#include <type_traits>

#include "runtime/npu_model/operations/ifm_volume.h"
#include "runtime/npu_model/operations/kernel_math.h"
#include "runtime/npu_model/operations/weights.h"

namespace pte {
namespace npu_model {

// acc = bias + sum over the kernel window and IFM depth of (ifm - ifm_zero_point) * weight. Padding
// holds the zero point, so it adds nothing.
template <typename T, typename Output>
void convolve(const KernelGeometry& g, const IfmVolume<T>& volume, const KernelWeights& weights, Output&& output) {
  const Kernel& kernel = g.kernel;
  const WeightLayout& layout = weights.layout;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      for (int o = 0; o < g.ofm.depth; ++o) {
        int64_t accumulator = weights.scales[o].bias;
        for (int ky = 0; ky < layout.kernel_height; ++ky) {
          const int iy = g.window_y(oy) + ky * kernel.dilation_y;
          for (int kx = 0; kx < layout.kernel_width; ++kx) {
            const int ix = g.window_x(ox) + kx * kernel.dilation_x;
            if (!volume.contains(iy, ix)) continue;
            accumulator += dot(volume.at(iy, ix), weights.filter(o, ky, kx), volume.depth);
          }
        }
        output(oy, ox, o, accumulator);
      }
    }
  }
}

// Like convolve, but OFM channel c only sees IFM channel c. `by_position` holds the weights as
// [ky][kx][c] (contiguous over channels); `accumulators` has room for the OFM depth.
template <typename T, typename Output>
void depthwise_convolve(const KernelGeometry& g, const IfmVolume<T>& volume, const KernelWeights& weights,
                        const int16_t* by_position, int64_t* accumulators, Output&& output) {
  const Kernel& kernel = g.kernel;
  const int depth = g.ofm.depth;
  const WeightLayout& layout = weights.layout;
  for (int oy = 0; oy < g.ofm.height; ++oy) {
    for (int ox = 0; ox < g.ofm.width; ++ox) {
      for (int c = 0; c < depth; ++c) accumulators[c] = weights.scales[c].bias;
      for (int ky = 0; ky < layout.kernel_height; ++ky) {
        const int iy = g.window_y(oy) + ky * kernel.dilation_y;
        for (int kx = 0; kx < layout.kernel_width; ++kx) {
          const int ix = g.window_x(ox) + kx * kernel.dilation_x;
          if (!volume.contains(iy, ix)) continue;
          const T* input = volume.at(iy, ix);
          const int16_t* weight = by_position + static_cast<size_t>(ky * layout.kernel_width + kx) * depth;
          for (int c = 0; c < depth; ++c) accumulators[c] += int64_t{input[c]} * weight[c];
        }
      }
      for (int c = 0; c < depth; ++c) output(oy, ox, c, accumulators[c]);
    }
  }
}

// Depthwise weights rearranged as [ky][kx][c] for depthwise_convolve.
Result<const int16_t*> weights_by_position(const KernelWeights& weights, BumpArena& scratch);

// Runs `run(volume)` with the IFM gathered as int16 (8-bit IFMs) or int32 values; `run` returns
// nothing or a Status.
template <typename T, typename Run>
Status run_on_volume(const IfmVolume<T>& volume, Run& run) {
  if constexpr (std::is_same_v<decltype(run(volume)), Status>) {
    return run(volume);
  } else {
    run(volume);
    return Status();
  }
}

template <typename Run>
Status with_ifm_volume(const FeatureMap& ifm, Upscale upscale, BumpArena& scratch, Run&& run) {
  if (ifm.precision().bits == 8) {
    PTE_ASSIGN_OR_RETURN(const IfmVolume<int16_t> volume, gather_ifm<int16_t>(ifm, upscale, scratch));
    return run_on_volume(volume, run);
  }
  PTE_ASSIGN_OR_RETURN(const IfmVolume<int32_t> volume, gather_ifm<int32_t>(ifm, upscale, scratch));
  return run_on_volume(volume, run);
}

}  // namespace npu_model
}  // namespace pte
