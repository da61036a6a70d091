// Kernel operations (convolution, depthwise, pooling) read their IFM through a window that slides over
// it with the kernel's stride, dilation and padding, optionally after upscaling it 2x. IfmVolume holds
// the IFM as those operations see it: upscaled, zero point removed, dense [y][x][c]. 8-bit IFMs fit
// int16 values (which the kernels multiply in 32 bits); wider ones take int32.
#pragma once

#include <cstdint>

#include "runtime/core/arena.h"
#include "runtime/core/result.h"
#include "runtime/npu_model/feature_map.h"
#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {

struct KernelGeometry {
  Extent ofm;
  Kernel kernel;
  Padding padding;
  Upscale upscale;
  // The IFM as stored (before upscaling).
  Extent ifm;

  // IFM row (or column) of the window's first element for OFM row oy (column ox), in the upscaled IFM.
  int window_y(int oy) const { return oy * kernel.stride_y - padding.top; }
  int window_x(int ox) const { return ox * kernel.stride_x - padding.left; }
};

// The geometry the registers describe. The IFM's height and width are not registers: they are what the
// OFM, kernel and padding need, which is how the NPU bounds its reads (the bottom and right padding
// say where the IFM ends). `ifm_depth` is the IFM's channel count.
KernelGeometry kernel_geometry(const RegisterFile& registers, int ifm_depth);

template <typename T>
struct IfmVolume {
  int height;
  int width;
  int depth;
  const T* values;

  const T* at(int y, int x) const { return values + (static_cast<size_t>(y) * width + x) * depth; }
  bool contains(int y, int x) const { return y >= 0 && y < height && x >= 0 && x < width; }
};

// `ifm` must be bound, and for T = int16_t hold 8-bit values. Upscaling repeats each element (nearest)
// or puts it at even positions with zeros between (zeros); either way the volume is twice the IFM's
// height and width.
template <typename T>
Result<IfmVolume<T>> gather_ifm(const FeatureMap& ifm, Upscale upscale, BumpArena& scratch);

}  // namespace npu_model
}  // namespace pte
