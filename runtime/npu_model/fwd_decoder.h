// Decoder for the Ethos-U85's fast weight format (FWD, WEIGHT_FORMAT = 1), the inverse of Vela's
// ml_encode_fwd: a 256-bit header — raw-mode flag, small-palette flag, 102 zero bits, an 8-bit zero
// adjustment and 16 palette entries of 9 bits (sign in bit 0) — then one code per weight, least
// significant bit first: 2-bit palette indices (small palette), 4-bit ones, or raw bytes holding
// weight + zero adjustment. The stream is padded to 256 bits and does not store its length.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace npu_model {

// Decodes out.size() weights; kDelegateFailed when `stream` is too short for them.
Status decode_fast_weights(Span<const uint8_t> stream, Span<int16_t> out);

}  // namespace npu_model
}  // namespace pte
