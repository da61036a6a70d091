#include "runtime/npu_model/scale_stream.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {

namespace {

// `bytes` little-endian bytes as a two's complement number.
int64_t read_signed(const uint8_t* entry, int bytes) {
  uint64_t value = 0;
  for (int byte = 0; byte < bytes; ++byte) value |= static_cast<uint64_t>(entry[byte]) << (8 * byte);
  const uint64_t sign = uint64_t{1} << (8 * bytes - 1);
  return static_cast<int64_t>(value ^ sign) - static_cast<int64_t>(sign);
}

uint32_t read_unsigned(const uint8_t* entry, int bytes) {
  uint32_t value = 0;
  for (int byte = 0; byte < bytes; ++byte) value |= static_cast<uint32_t>(entry[byte]) << (8 * byte);
  return value;
}

ChannelScale read_entry(const uint8_t* entry, ScaleEntryFormat format) {
  switch (format) {
    case ScaleEntryFormat::kU85Bias32:
      return ChannelScale{read_signed(entry, 4), Scale{read_unsigned(entry + 4, 4) & 0x7fffffffu, entry[8] & 0x3f}};
    case ScaleEntryFormat::kU85Bias48:
      return ChannelScale{read_signed(entry, 6), Scale{read_unsigned(entry + 6, 2) & 0x7fffu, entry[8] & 0x3f}};
    case ScaleEntryFormat::kU55:
      break;
  }
  return ChannelScale{read_signed(entry, 5), Scale{read_unsigned(entry + 5, 4), entry[9] & 0x3f}};
}

}  // namespace

Status read_channel_scales(Span<const uint8_t> stream, ScaleEntryFormat format, Span<ChannelScale> out) {
  if (stream.size() / kScaleEntryBytes < out.size()) {
    return Status::failure(Error::kDelegateFailed, "the scale stream has %lu bytes, %lu channels need %lu",
                           as_ulong(stream.size()), as_ulong(out.size()), as_ulong(out.size() * kScaleEntryBytes));
  }
  for (size_t channel = 0; channel < out.size(); ++channel) {
    out[channel] = read_entry(stream.data() + channel * kScaleEntryBytes, format);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
