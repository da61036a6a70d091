// FeatureMap: one of an operation's tensors (IFM, IFM2, OFM) as the registers describe it, in NHWC or
// in NHCWB16 (bricks of 16 channels), split into up to four tiles:
//
//   tile 0: rows [0, height0), columns [0, width0)     tile 1: rows [0, height1), columns [width0, ...)
//   tile 2: rows [height0, ...), columns [0, width0)   tile 3: rows [height1, ...), columns [width0, ...)
//
// each tile with its own base address (Vela uses tile 2 for rolling buffers that wrap around).
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/npu_model/memory.h"
#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {

enum class FeatureMapSlot : uint8_t { kIfm, kIfm2, kOfm };

struct Extent {
  int height;
  int width;
  int depth;
};

class FeatureMap {
 public:
  // The registers of `slot`. The extent is what the operation touches; the caller derives it (the
  // IFM's height, for example, follows from the OFM's, the kernel and the padding).
  static FeatureMap from_registers(const RegisterFile& registers, FeatureMapSlot slot, Extent extent);

  // Checks that every byte the extent covers lies inside the feature map's region and keeps a pointer
  // to it; kDelegateFailed naming the feature map otherwise. Element access below is unchecked.
  Status bind(const NpuMemory& memory);

  const char* name() const { return name_; }
  const Extent& extent() const { return extent_; }
  const Precision& precision() const { return precision_; }
  int32_t zero_point() const { return zero_point_; }
  uint32_t region() const { return region_; }

  // Reads come from a chaining buffer's dense values instead of memory (U85 chained storage).
  void bind_chained(const int64_t* values) { chained_ = values; }
  bool chained() const { return chained_ != nullptr; }

  // Element access by coordinates, and (memory only) by pointer for loops that walk a pixel's channels:
  // pixel(y, x) + channel_offset(c) addresses element (y, x, c).
  int64_t read(int y, int x, int c) const {
    if (chained_ != nullptr) return chained_[(static_cast<size_t>(y) * extent_.width + x) * extent_.depth + c];
    return load(pixel(y, x) + channel_offset(c));
  }
  void write(int y, int x, int c, int64_t value) const { store(pixel(y, x) + channel_offset(c), value); }
  uint8_t* pixel(int y, int x) const { return region_data_ + pixel_offset(y, x); }
  int64_t channel_offset(int c) const {
    // The U55 ignores the channel stride for NHWC: channels are contiguous.
    return precision_.format == DataFormat::kNhcwb16 ? (c >> 4) * stride_c_ + (c & 15) * precision_.bytes()
                                                     : static_cast<int64_t>(c) * precision_.bytes();
  }
  int64_t load(const uint8_t* element) const {
    switch (precision_.bits) {
      case 8:
        return precision_.is_signed ? static_cast<int64_t>(static_cast<int8_t>(element[0])) : element[0];
      case 16: {
        const uint16_t bits = static_cast<uint16_t>(element[0] | element[1] << 8);
        return precision_.is_signed ? static_cast<int64_t>(static_cast<int16_t>(bits)) : bits;
      }
      default: {
        const uint32_t bits = static_cast<uint32_t>(element[0]) | static_cast<uint32_t>(element[1]) << 8 |
                              static_cast<uint32_t>(element[2]) << 16 | static_cast<uint32_t>(element[3]) << 24;
        return precision_.is_signed ? static_cast<int64_t>(static_cast<int32_t>(bits)) : bits;
      }
    }
  }
  // Little endian, truncated to the element size (callers saturate first).
  void store(uint8_t* element, int64_t value) const {
    const uint64_t bits = static_cast<uint64_t>(value);
    element[0] = static_cast<uint8_t>(bits);
    for (int byte = 1; byte < precision_.bytes(); ++byte) element[byte] = static_cast<uint8_t>(bits >> (8 * byte));
  }

 private:
  // Byte offset of pixel (y, x) (its channel 0 brick) from the start of the region.
  int64_t pixel_offset(int y, int x) const;

  const char* name_ = "";
  uint32_t region_ = 0;
  uint64_t base_[4] = {};
  int height0_ = 0;
  int height1_ = 0;
  int width0_ = 0;
  int64_t stride_x_ = 0;
  int64_t stride_y_ = 0;
  int64_t stride_c_ = 0;
  Precision precision_ = {};
  int32_t zero_point_ = 0;
  Extent extent_ = {};
  uint8_t* region_data_ = nullptr;
  const int64_t* chained_ = nullptr;
};

}  // namespace npu_model
}  // namespace pte
