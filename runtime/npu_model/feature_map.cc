#include "runtime/npu_model/feature_map.h"

#include <algorithm>
#include <cstdio>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

// The registers of one feature-map slot.
struct SlotRegisters {
  const char* name;
  Cmd0 region;
  Cmd1 base[4];
  Cmd0 height0_m1;
  Cmd0 height1_m1;
  Cmd0 width0_m1;
  Cmd1 stride_x;
  Cmd1 stride_y;
  Cmd1 stride_c;
  Cmd0 zero_point;
};

constexpr SlotRegisters kSlots[] = {
    {"IFM", Cmd0::NPU_SET_IFM_REGION,
     {Cmd1::NPU_SET_IFM_BASE0, Cmd1::NPU_SET_IFM_BASE1, Cmd1::NPU_SET_IFM_BASE2, Cmd1::NPU_SET_IFM_BASE3},
     Cmd0::NPU_SET_IFM_HEIGHT0_M1, Cmd0::NPU_SET_IFM_HEIGHT1_M1, Cmd0::NPU_SET_IFM_WIDTH0_M1,
     Cmd1::NPU_SET_IFM_STRIDE_X, Cmd1::NPU_SET_IFM_STRIDE_Y, Cmd1::NPU_SET_IFM_STRIDE_C, Cmd0::NPU_SET_IFM_ZERO_POINT},
    {"IFM2", Cmd0::NPU_SET_IFM2_REGION,
     {Cmd1::NPU_SET_IFM2_BASE0, Cmd1::NPU_SET_IFM2_BASE1, Cmd1::NPU_SET_IFM2_BASE2, Cmd1::NPU_SET_IFM2_BASE3},
     Cmd0::NPU_SET_IFM2_HEIGHT0_M1, Cmd0::NPU_SET_IFM2_HEIGHT1_M1, Cmd0::NPU_SET_IFM2_WIDTH0_M1,
     Cmd1::NPU_SET_IFM2_STRIDE_X, Cmd1::NPU_SET_IFM2_STRIDE_Y, Cmd1::NPU_SET_IFM2_STRIDE_C,
     Cmd0::NPU_SET_IFM2_ZERO_POINT},
    {"OFM", Cmd0::NPU_SET_OFM_REGION,
     {Cmd1::NPU_SET_OFM_BASE0, Cmd1::NPU_SET_OFM_BASE1, Cmd1::NPU_SET_OFM_BASE2, Cmd1::NPU_SET_OFM_BASE3},
     Cmd0::NPU_SET_OFM_HEIGHT0_M1, Cmd0::NPU_SET_OFM_HEIGHT1_M1, Cmd0::NPU_SET_OFM_WIDTH0_M1,
     Cmd1::NPU_SET_OFM_STRIDE_X, Cmd1::NPU_SET_OFM_STRIDE_Y, Cmd1::NPU_SET_OFM_STRIDE_C, Cmd0::NPU_SET_OFM_ZERO_POINT},
};

Precision slot_precision(const RegisterFile& registers, FeatureMapSlot slot) {
  switch (slot) {
    case FeatureMapSlot::kIfm:
      return ifm_precision(registers).precision;
    case FeatureMapSlot::kIfm2:
      return ifm2_precision(registers);
    case FeatureMapSlot::kOfm:
      return ofm_precision(registers).precision;
  }
  return Precision{};
}

}  // namespace

FeatureMap FeatureMap::from_registers(const RegisterFile& registers, FeatureMapSlot slot, Extent extent) {
  const SlotRegisters& slot_registers = kSlots[static_cast<int>(slot)];
  FeatureMap map;
  map.name_ = slot_registers.name;
  map.region_ = registers.get(slot_registers.region) & 0x7;
  for (int tile = 0; tile < 4; ++tile) map.base_[tile] = registers.address(slot_registers.base[tile]);
  map.height0_ = registers.get(slot_registers.height0_m1) + 1;
  map.height1_ = registers.get(slot_registers.height1_m1) + 1;
  map.width0_ = registers.get(slot_registers.width0_m1) + 1;
  map.stride_x_ = registers.stride(slot_registers.stride_x);
  map.stride_y_ = registers.stride(slot_registers.stride_y);
  map.stride_c_ = registers.stride(slot_registers.stride_c);
  map.precision_ = slot_precision(registers, slot);
  // Zero points share the value's signedness (an unsigned 8-bit zero point may be up to 255).
  map.zero_point_ = map.precision_.is_signed ? registers.get_signed(slot_registers.zero_point)
                                             : static_cast<int32_t>(registers.get(slot_registers.zero_point));
  map.extent_ = extent;
  return map;
}

int64_t FeatureMap::pixel_offset(int y, int x) const {
  const bool left = x < width0_;
  const int tile_x = left ? x : x - width0_;
  const int split_y = left ? height0_ : height1_;
  const bool top = y < split_y;
  const int tile_y = top ? y : y - split_y;
  const int tile = (top ? 0 : 2) + (left ? 0 : 1);
  return static_cast<int64_t>(base_[tile]) + tile_y * stride_y_ + tile_x * stride_x_;
}

Status FeatureMap::bind(const NpuMemory& memory) {
  if (precision_.format != DataFormat::kNhwc && precision_.format != DataFormat::kNhcwb16) {
    return Status::failure(Error::kDelegateFailed, "%s has an unknown data format %d", name_,
                           static_cast<int>(precision_.format));
  }
  if (precision_.bits > 32) {
    return Status::failure(Error::kNotSupported, "%s has %d-bit elements; the model handles 8, 16 and 32 bits", name_,
                           precision_.bits);
  }
  if (extent_.height <= 0 || extent_.width <= 0 || extent_.depth <= 0) {
    return Status::failure(Error::kDelegateFailed, "%s has an empty extent %dx%dx%d", name_, extent_.height,
                           extent_.width, extent_.depth);
  }
  // Offsets are linear in y and x within a tile, so the extremes are at the tiles' corners; the channel
  // term is scanned once (NHCWB16 is not monotonic in c for every stride).
  int64_t channel_min = channel_offset(0);
  int64_t channel_max = channel_min;
  for (int c = 1; c < extent_.depth; ++c) {
    channel_min = std::min(channel_min, channel_offset(c));
    channel_max = std::max(channel_max, channel_offset(c));
  }
  int64_t low = INT64_MAX;
  int64_t high = INT64_MIN;
  const int x_bounds[2][2] = {{0, std::min(width0_, extent_.width) - 1}, {width0_, extent_.width - 1}};
  for (const auto& xs : x_bounds) {
    if (xs[1] < xs[0]) continue;
    const int split_y = xs[0] < width0_ ? height0_ : height1_;
    const int y_bounds[2][2] = {{0, std::min(split_y, extent_.height) - 1}, {split_y, extent_.height - 1}};
    for (const auto& ys : y_bounds) {
      if (ys[1] < ys[0]) continue;
      for (int y : ys) {
        for (int x : xs) {
          const int64_t corner = pixel_offset(y, x);
          low = std::min(low, corner + channel_min);
          high = std::max(high, corner + channel_max + precision_.bytes());
        }
      }
    }
  }
  if (low < 0) {
    return Status::failure(Error::kDelegateFailed, "%s starts %s bytes before the start of region %lu", name_,
                           DecimalText(-low).c_str(), static_cast<unsigned long>(region_));
  }
  char what[48];
  std::snprintf(what, sizeof(what), "%s (%dx%dx%d)", name_, extent_.height, extent_.width, extent_.depth);
  PTE_ASSIGN_OR_RETURN(uint8_t * first, memory.region_bytes(region_, static_cast<uint64_t>(low),
                                                           static_cast<uint64_t>(high - low), what));
  region_data_ = first - low;
  return Status();
}

}  // namespace npu_model
}  // namespace pte
