#include "runtime/npu_model/mlw_decoder.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

constexpr uint32_t kEndOfStream = 7;   // zero-run divisor value that ends the stream
constexpr uint32_t kNoZeroRuns = 6;    // zero-run divisor value: the slice has no zero runs
constexpr uint32_t kUncompressed = 7;  // weight divisor value: indices are stored as plain bits
constexpr int kSliceLengthBits = 15;
constexpr int kMaxPalette = 32;
// A chunk carries at most this many unary symbols.
constexpr int kChunkSymbols = 12;
// Largest slice (15-bit length field + 1).
constexpr int kMaxSliceWeights = 1 << kSliceLengthBits;

// Reads bits least significant first.
class BitReader {
 public:
  explicit BitReader(Span<const uint8_t> bytes) : bytes_(bytes) {}

  // Up to 32 bits; false (and nothing consumed) past the end of the stream.
  bool get(int count, uint32_t* value) {
    if (count == 0) {
      *value = 0;
      return true;
    }
    if (position_ + count > bytes_.size() * 8) return false;
    const size_t first = position_ >> 3;
    // The bits needed lie in at most 5 bytes from `first`.
    uint64_t window = 0;
    const size_t available = bytes_.size() - first < 8 ? bytes_.size() - first : 8;
    for (size_t i = 0; i < available; ++i) window |= static_cast<uint64_t>(bytes_[first + i]) << (8 * i);
    *value = static_cast<uint32_t>((window >> (position_ & 7)) & ((uint64_t{1} << count) - 1));
    position_ += count;
    return true;
  }
  void align_to_byte() { position_ = (position_ + 7) & ~size_t{7}; }
  size_t bits_left() const { return bytes_.size() * 8 > position_ ? bytes_.size() * 8 - position_ : 0; }
  size_t byte_position() const { return position_ / 8; }

 private:
  Span<const uint8_t> bytes_;
  size_t position_ = 0;
};

struct Palette {
  int size = 0;
  int bits = 0;
  int direct_offset = 0;
  int16_t entries[kMaxPalette] = {};
};

// Quotients decoded from one chunk's unary part, waiting for their remainders in the next chunk.
struct PendingSymbols {
  bool enabled = false;
  int count = 0;
  int quotients[kChunkSymbols] = {};
};

Status corrupt(const BitReader& reader, const char* what) {
  return Status::failure(Error::kDelegateFailed, "corrupt weight stream at byte %lu: %s",
                         as_ulong(reader.byte_position()), what);
}

// Per-slice decoding state for the two interleaved Golomb-Rice streams.
struct SliceState {
  int weight_divisor;
  bool weight_truncated;
  bool uncompressed;
  int zero_divisor;
  bool zero_runs;
  int weight_count;
  int zero_count;
};

}  // namespace

Result<size_t> decode_weights(Span<const uint8_t> stream, Span<int16_t> out, Span<int32_t> scratch) {
  if (scratch.size() < kWeightDecoderScratchWords) {
    return Status::failure(Error::kArenaTooSmall, "the weight decoder needs %lu words of scratch, got %lu",
                           as_ulong(kWeightDecoderScratchWords), as_ulong(scratch.size()));
  }
  BitReader reader(stream);
  Palette palette;
  bool has_palette = false;
  size_t written = 0;
  // Weight indices and zero-run lengths of the current slice (the slice length field bounds them).
  int32_t* indices = scratch.data();
  int32_t* zero_runs = scratch.data() + kMaxSliceWeights;

  while (true) {
    uint32_t zero_divisor = kEndOfStream;
    while (zero_divisor == kEndOfStream) {
      if (reader.bits_left() < 3) return written;
      if (!reader.get(3, &zero_divisor)) return corrupt(reader, "truncated slice header");
      if (zero_divisor == kEndOfStream) {
        reader.align_to_byte();
        if (reader.bits_left() == 0) return written;
      }
    }
    if (zero_divisor > 3 && zero_divisor != kNoZeroRuns) return corrupt(reader, "invalid zero-run divisor");
    uint32_t length = 0, weight_divisor = 0, truncated = 0, new_palette = 0;
    if (!reader.get(kSliceLengthBits, &length) || !reader.get(3, &weight_divisor) || !reader.get(1, &truncated) ||
        !reader.get(1, &new_palette)) {
      return corrupt(reader, "truncated slice header");
    }
    if (new_palette != 0) {
      uint32_t direct_offset = 0, size = 0, bits = 0;
      if (!reader.get(5, &direct_offset) || !reader.get(5, &size) || !reader.get(3, &bits)) {
        return corrupt(reader, "truncated palette header");
      }
      palette.direct_offset = static_cast<int>(direct_offset);
      palette.size = size > 0 ? static_cast<int>(size) + 1 : 0;
      palette.bits = static_cast<int>(bits) + 2;
      for (int i = 0; i < palette.size; ++i) {
        uint32_t entry = 0;
        if (!reader.get(palette.bits, &entry)) return corrupt(reader, "truncated palette");
        palette.entries[i] = static_cast<int16_t>(entry);
      }
      has_palette = true;
    }
    if (!has_palette) return corrupt(reader, "the first slice defines no palette");

    SliceState slice;
    slice.weight_count = static_cast<int>(length) + 1;
    slice.zero_runs = zero_divisor != kNoZeroRuns;
    slice.zero_divisor = slice.zero_runs ? static_cast<int>(zero_divisor) : 0;
    // A slice that sets a palette may start with zeros: it carries one more zero run.
    slice.zero_count = slice.weight_count + (new_palette != 0 ? 1 : 0);
    slice.weight_truncated = truncated != 0;
    slice.uncompressed = weight_divisor == kUncompressed;
    if (slice.uncompressed) {
      int bits = 0;
      if (palette.size > 0) {
        while ((1 << bits) < palette.size) ++bits;
      } else {
        bits = palette.bits;
      }
      slice.weight_divisor = bits;
    } else if (weight_divisor > 5) {
      return corrupt(reader, "invalid weight divisor");
    } else {
      slice.weight_divisor = static_cast<int>(weight_divisor);
    }

    // Chunks: each holds the unary parts of up to 12 symbols of each stream, followed by the
    // remainders of the previous chunk's symbols. The weight stream may run at most 8 symbols ahead.
    int weights_seen = 0, zeros_seen = 0;
    int weights_done = 0, zeros_done = 0;
    int weight_carry = 0, zero_carry = 0;
    const int zero_unary_bits = slice.zero_divisor < 3 ? 12 : 8;
    PendingSymbols pending_weights, pending_zeros;
    do {
      const int balance = slice.zero_runs ? weights_seen - zeros_seen : 0;
      const bool weights_enabled = (balance < 8 || !slice.zero_runs) && weights_seen < slice.weight_count;
      const bool zeros_enabled = balance >= 0 && slice.zero_runs && zeros_seen < slice.zero_count;
      PendingSymbols weights_now, zeros_now;
      uint32_t weight_unary0 = 0;
      if (weights_enabled && !slice.uncompressed && !reader.get(12, &weight_unary0)) {
        return corrupt(reader, "truncated weight chunk");
      }
      if (zeros_enabled) {
        uint32_t unary = 0;
        if (!reader.get(zero_unary_bits, &unary)) return corrupt(reader, "truncated zero-run chunk");
        zeros_now.enabled = true;
        for (int i = 0; i < zero_unary_bits; ++i) {
          if ((unary >> i) & 1) {
            ++zero_carry;
          } else {
            zeros_now.quotients[zeros_now.count++] = zero_carry;
            zero_carry = 0;
          }
        }
        zeros_seen += zeros_now.count;
      }
      if (weights_enabled) {
        weights_now.enabled = true;
        const int symbols = slice.uncompressed && slice.weight_divisor > 5 ? 8 : kChunkSymbols;
        int unary1_bits = 0;
        for (int i = 0; i < symbols; ++i) unary1_bits += (weight_unary0 >> i) & 1;
        uint32_t weight_unary1 = 0;
        if (!reader.get(unary1_bits, &weight_unary1)) return corrupt(reader, "truncated weight chunk");
        for (int i = 0; i < symbols && weights_now.count < slice.weight_count - weights_seen; ++i) {
          int code = 0;
          if ((weight_unary0 >> i) & 1) {
            code = 1 + static_cast<int>(weight_unary1 & 1);
            weight_unary1 >>= 1;
          }
          weight_carry += code;
          if (code < 2 || slice.weight_truncated) {
            weights_now.quotients[weights_now.count++] = weight_carry;
            weight_carry = 0;
          }
        }
        weights_seen += weights_now.count;
      }
      if (pending_weights.enabled) {
        for (int i = 0; i < pending_weights.count && weights_done < slice.weight_count; ++i) {
          uint32_t remainder = 0;
          if (!reader.get(slice.weight_divisor, &remainder)) return corrupt(reader, "truncated weight remainder");
          indices[weights_done++] = (pending_weights.quotients[i] << slice.weight_divisor) + static_cast<int>(remainder);
        }
      }
      if (pending_zeros.enabled) {
        for (int i = 0; i < pending_zeros.count && zeros_done < slice.zero_count; ++i) {
          uint32_t remainder = 0;
          if (!reader.get(slice.zero_divisor, &remainder)) return corrupt(reader, "truncated zero-run remainder");
          zero_runs[zeros_done++] = (pending_zeros.quotients[i] << slice.zero_divisor) + static_cast<int>(remainder);
        }
      }
      pending_weights = weights_now;
      pending_zeros = zeros_now;
    } while (pending_weights.enabled || pending_zeros.enabled);
    if (weights_done != slice.weight_count || (slice.zero_runs && zeros_done != slice.zero_count)) {
      return corrupt(reader, "a slice ends before all its symbols are decoded");
    }

    // Interleave: [initial zeros] w0 zeros0 w1 zeros1 ...
    const int first_run = new_palette != 0 ? 1 : 0;
    auto emit_zeros = [&](int count) -> bool {
      if (static_cast<size_t>(count) > out.size() - written) return false;
      for (int i = 0; i < count; ++i) out[written++] = 0;
      return true;
    };
    if (slice.zero_runs && first_run == 1 && !emit_zeros(zero_runs[0])) {
      return corrupt(reader, "more weights than the operation can use");
    }
    for (int i = 0; i < slice.weight_count; ++i) {
      const int index = indices[i];
      const int value = index < palette.size ? palette.entries[index] : index - palette.size + palette.direct_offset;
      if (written >= out.size()) return corrupt(reader, "more weights than the operation can use");
      const int magnitude = value >> 1;
      out[written++] = static_cast<int16_t>((value & 1) != 0 ? -magnitude : magnitude);
      if (slice.zero_runs && !emit_zeros(zero_runs[i + first_run])) {
        return corrupt(reader, "more weights than the operation can use");
      }
    }
  }
}

}  // namespace npu_model
}  // namespace pte
