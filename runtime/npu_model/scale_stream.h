// The scale stream: per OFM channel, 10 bytes little endian (Vela's weight encoder writes it next to
// the weights). U55: a 40-bit two's complement bias, a 32-bit multiplier and a 6-bit shift. U85 with
// 32-bit accumulators: a 32-bit bias, a 31-bit multiplier, a shift and a zero byte; with 48-bit ones: a
// 48-bit bias, a 15-bit multiplier, a shift and a zero byte.
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

enum class ScaleEntryFormat : uint8_t { kU55, kU85Bias32, kU85Bias48 };

// Reads out.size() entries; kDelegateFailed when `stream` is shorter.
Status read_channel_scales(Span<const uint8_t> stream, ScaleEntryFormat format, Span<ChannelScale> out);

}  // namespace npu_model
}  // namespace pte
