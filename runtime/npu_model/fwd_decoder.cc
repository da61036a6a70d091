#include "runtime/npu_model/fwd_decoder.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

constexpr size_t kHeaderBits = 256;
constexpr int kPaletteEntries = 16;
constexpr size_t kZeroAdjustBit = 104;
constexpr size_t kPaletteBit = 112;

uint32_t bits_at(Span<const uint8_t> stream, size_t position, int count) {
  uint32_t value = 0;
  for (int i = 0; i < count; ++i, ++position) value |= ((stream[position >> 3] >> (position & 7)) & 1u) << i;
  return value;
}

// Sign in bit 0, magnitude above it.
int16_t unfold(uint32_t folded) {
  const int magnitude = static_cast<int>(folded >> 1);
  return static_cast<int16_t>((folded & 1) != 0 ? -magnitude : magnitude);
}

}  // namespace

Status decode_fast_weights(Span<const uint8_t> stream, Span<int16_t> out) {
  if (stream.size() * 8 < kHeaderBits) {
    return Status::failure(Error::kDelegateFailed, "the fast weight stream has %lu bytes, too few for its header",
                           as_ulong(stream.size()));
  }
  const bool raw = bits_at(stream, 0, 1) != 0;
  const bool small_palette = bits_at(stream, 1, 1) != 0;
  const int bits = raw ? 8 : (small_palette ? 2 : 4);
  if (stream.size() * 8 < kHeaderBits + out.size() * bits) {
    return Status::failure(Error::kDelegateFailed, "the fast weight stream has %lu bytes, %lu %d-bit weights need %lu",
                           as_ulong(stream.size()), as_ulong(out.size()), bits,
                           as_ulong((kHeaderBits + out.size() * bits + 7) / 8));
  }
  const int zero_adjust = static_cast<int8_t>(bits_at(stream, kZeroAdjustBit, 8));
  int16_t palette[kPaletteEntries];
  for (int i = 0; i < kPaletteEntries; ++i) palette[i] = unfold(bits_at(stream, kPaletteBit + 9 * i, 9));
  size_t position = kHeaderBits;
  for (int16_t& weight : out) {
    const uint32_t code = bits_at(stream, position, bits);
    position += bits;
    weight = raw ? static_cast<int16_t>(static_cast<int8_t>(code) - zero_adjust) : palette[code];
  }
  return Status();
}

}  // namespace npu_model
}  // namespace pte
