// Decoder for the Ethos-U55/U65 compressed weight format ("MLW"), the inverse of Vela's mlw_codec
// encoder: a sequence of slices, each with a header (zero-run and weight Golomb-Rice divisors, a
// length, an optional palette) followed by interleaved unary/remainder chunks of weight indices and
// zero-run lengths. Indices below the palette size select a palette entry; the rest are direct values
// offset by the palette size. Values are sign-magnitude with the sign in bit 0 (9 bits on the U55).
// A 3-bit divisor of 7 marks the end of the stream; the encoder pads with such markers to 16 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace npu_model {

// Working memory the decoder needs for one slice's weight indices and zero runs.
constexpr size_t kWeightDecoderScratchWords = 2 * (size_t{1} << 15) + 1;

// Decodes `stream` into `out` and returns how many weights it held; kDelegateFailed when the stream is
// corrupt or holds more than out.size() weights. `scratch` holds kWeightDecoderScratchWords.
Result<size_t> decode_weights(Span<const uint8_t> stream, Span<int16_t> out, Span<int32_t> scratch);

}  // namespace npu_model
}  // namespace pte
