// The U55 scale stream: per OFM channel, 10 bytes little endian — a 40-bit two's complement bias,
// a 32-bit multiplier and a 6-bit shift (Vela's weight encoder writes it next to the weights).
#pragma once

#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/npu_model/operation_registers.h"

namespace pte {
namespace npu_model {

constexpr size_t kScaleEntryBytes = 10;

struct ChannelScale {
  int64_t bias;
  Scale scale;
};

// Reads out.size() entries; kDelegateFailed when `stream` is shorter.
Status read_channel_scales(Span<const uint8_t> stream, Span<ChannelScale> out);

}  // namespace npu_model
}  // namespace pte
