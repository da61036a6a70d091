// Vela's driver payload: what the `cmd_data` block of a bin stream holds. Ethos-U drivers read it as a
// list of 32-bit "driver actions" before handing the register command stream to the NPU:
//
//   'COP1' | CONFIG tag, config word, id word | NOP* | CMD_STREAM tag (length in words) | commands
//
// Each tag is id (bits 0-7) | reserved (bits 8-15, the length's high byte for CMD_STREAM) | param
// (bits 16-31). The config word describes the NPU the stream was compiled for: log2 of the MACs per
// cycle (bits 0-3), SHRAM KiB (bits 8-15) and product (bits 28-31: 0 = Ethos-U55, 1 = U65, 2 = U85).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace pte {
namespace npu_model {

// The product field of the config word.
enum class NpuProduct : uint8_t { kEthosU55 = 0, kEthosU65 = 1, kEthosU85 = 2 };

struct DriverPayload {
  NpuProduct product;
  uint32_t macs_per_cycle;
  uint32_t shram_kib;
  // The register command stream, and its byte offset in the payload (offsets in errors and traces
  // count from the start of the payload, as a dump of `cmd_data` shows them).
  Span<const uint8_t> commands;
  size_t commands_offset;
};

// kInvalidDelegateBlob naming the action and its byte offset when `payload` is malformed, or holds no
// command stream, or more than one (a Vela payload has exactly one).
Result<DriverPayload> parse_driver_payload(Span<const uint8_t> payload);

const char* product_name(NpuProduct product);

}  // namespace npu_model
}  // namespace pte
