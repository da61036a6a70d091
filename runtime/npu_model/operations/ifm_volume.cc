#include "runtime/npu_model/operations/ifm_volume.h"

namespace pte {
namespace npu_model {

KernelGeometry kernel_geometry(const RegisterFile& registers, int ifm_depth) {
  KernelGeometry geometry;
  geometry.ofm = Extent{registers.get(Cmd0::NPU_SET_OFM_HEIGHT_M1) + 1, registers.get(Cmd0::NPU_SET_OFM_WIDTH_M1) + 1,
                        registers.get(Cmd0::NPU_SET_OFM_DEPTH_M1) + 1};
  geometry.kernel = kernel(registers);
  geometry.padding = padding(registers);
  geometry.upscale = upscale(registers);
  const int factor = geometry.upscale == Upscale::kNone ? 1 : 2;
  const int read_height = (geometry.ofm.height - 1) * geometry.kernel.stride_y + geometry.kernel.dilated_height -
                          geometry.padding.top - geometry.padding.bottom;
  const int read_width = (geometry.ofm.width - 1) * geometry.kernel.stride_x + geometry.kernel.dilated_width -
                         geometry.padding.left - geometry.padding.right;
  geometry.ifm = Extent{(read_height + factor - 1) / factor, (read_width + factor - 1) / factor, ifm_depth};
  return geometry;
}

template <typename T>
Result<IfmVolume<T>> gather_ifm(const FeatureMap& ifm, Upscale upscale, BumpArena& scratch) {
  const Extent& extent = ifm.extent();
  const int factor = upscale == Upscale::kNone ? 1 : 2;
  IfmVolume<T> volume{extent.height * factor, extent.width * factor, extent.depth, nullptr};
  PTE_ASSIGN_OR_RETURN(
      T * values,
      scratch.allocate_array<T>(static_cast<size_t>(volume.height) * volume.width * volume.depth, "the IFM volume"));
  const int64_t zero_point = ifm.zero_point();
  const bool signed_bytes = ifm.precision().bits == 8 && ifm.precision().is_signed;
  for (int y = 0; y < volume.height; ++y) {
    for (int x = 0; x < volume.width; ++x) {
      T* out = values + (static_cast<size_t>(y) * volume.width + x) * volume.depth;
      if (upscale == Upscale::kZeros && (y % 2 != 0 || x % 2 != 0)) continue;  // inserted zeros (arena is zeroed)
      if (ifm.chained()) {
        for (int c = 0; c < volume.depth; ++c) out[c] = static_cast<T>(ifm.read(y / factor, x / factor, c) - zero_point);
        continue;
      }
      const uint8_t* pixel = ifm.pixel(y / factor, x / factor);
      if (signed_bytes) {
        for (int c = 0; c < volume.depth; ++c) {
          out[c] = static_cast<T>(static_cast<int8_t>(pixel[ifm.channel_offset(c)]) - zero_point);
        }
      } else {
        for (int c = 0; c < volume.depth; ++c) out[c] = static_cast<T>(ifm.load(pixel + ifm.channel_offset(c)) - zero_point);
      }
    }
  }
  volume.values = values;
  return volume;
}

template Result<IfmVolume<int16_t>> gather_ifm<int16_t>(const FeatureMap&, Upscale, BumpArena&);
template Result<IfmVolume<int32_t>> gather_ifm<int32_t>(const FeatureMap&, Upscale, BumpArena&);

}  // namespace npu_model
}  // namespace pte
