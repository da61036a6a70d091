#include "runtime/npu_model/scale_stream.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {

Status read_channel_scales(Span<const uint8_t> stream, Span<ChannelScale> out) {
  if (stream.size() / kScaleEntryBytes < out.size()) {
    return Status::failure(Error::kDelegateFailed, "the scale stream has %lu bytes, %lu channels need %lu",
                           as_ulong(stream.size()), as_ulong(out.size()), as_ulong(out.size() * kScaleEntryBytes));
  }
  for (size_t channel = 0; channel < out.size(); ++channel) {
    const uint8_t* entry = stream.data() + channel * kScaleEntryBytes;
    uint64_t bias = 0;
    for (int byte = 0; byte < 5; ++byte) bias |= static_cast<uint64_t>(entry[byte]) << (8 * byte);
    constexpr uint64_t kSignBit = uint64_t{1} << 39;
    const int64_t signed_bias = (bias & kSignBit) != 0 ? static_cast<int64_t>(bias) - static_cast<int64_t>(kSignBit << 1)
                                                       : static_cast<int64_t>(bias);
    const uint32_t multiplier = static_cast<uint32_t>(entry[5]) | static_cast<uint32_t>(entry[6]) << 8 |
                                static_cast<uint32_t>(entry[7]) << 16 | static_cast<uint32_t>(entry[8]) << 24;
    out[channel] = ChannelScale{signed_bias, Scale{multiplier, entry[9] & 0x3f}};
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
