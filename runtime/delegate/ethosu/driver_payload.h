// Vela's driver payload: what a bin stream's cmd_data holds. A "COP1" word, then driver actions, each a
// tag word (action id in bits 0-7, then 8 + 16 bits of parameter):
//   CONFIG       + 2 words: the CONFIG and ID register values the stream was compiled for
//   COMMAND_STREAM          the next (bits 8-15 << 16 | bits 16-31) words are a register command stream
//   NOP                     padding (Vela aligns command streams to 16 bytes with them)
//   READ_APB, DUMP_SHRAM    debug requests, which this driver does not serve and skips
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace ethosu {

// Vela writes one command stream per delegate; a payload with more is refused rather than guessed at.
constexpr size_t kMaxCommandStreams = 4;
// The NPU fetches commands through QBASE, which must be 16-byte aligned.
constexpr size_t kCommandStreamAlignment = 16;

struct DriverPayload {
  // The NPU the stream was compiled for, when the payload says (CONFIG action).
  bool has_config = false;
  uint32_t config = 0;
  uint32_t id = 0;
  Span<const uint8_t> command_streams[kMaxCommandStreams];
  size_t command_stream_count = 0;
};

// kInvalidDelegateBlob naming the action and word offset when `cmd_data` is not a well-formed payload.
// The command streams are views into `cmd_data`.
Result<DriverPayload> parse_driver_payload(Span<const uint8_t> cmd_data);

}  // namespace ethosu
}  // namespace pte
