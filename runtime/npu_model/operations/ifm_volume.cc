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

Result<IfmVolume> gather_ifm(const FeatureMap& ifm, Upscale upscale, BumpArena& scratch) {
  const Extent& extent = ifm.extent();
  const int factor = upscale == Upscale::kNone ? 1 : 2;
  IfmVolume volume{extent.height * factor, extent.width * factor, extent.depth, nullptr};
  PTE_ASSIGN_OR_RETURN(int32_t * values,
                       scratch.allocate_array<int32_t>(static_cast<size_t>(volume.height) * volume.width * volume.depth,
                                                       "the IFM volume"));
  const int32_t zero_point = ifm.zero_point();
  for (int y = 0; y < volume.height; ++y) {
    for (int x = 0; x < volume.width; ++x) {
      int32_t* row = values + (static_cast<size_t>(y) * volume.width + x) * volume.depth;
      const bool inserted_zero = upscale == Upscale::kZeros && (y % 2 != 0 || x % 2 != 0);
      for (int c = 0; c < volume.depth; ++c) {
        row[c] = inserted_zero ? 0 : static_cast<int32_t>(ifm.read(y / factor, x / factor, c) - zero_point);
      }
    }
  }
  volume.values = values;
  return volume;
}

}  // namespace npu_model
}  // namespace pte
