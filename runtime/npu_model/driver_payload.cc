#include "runtime/npu_model/driver_payload.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npu_model {
namespace {

constexpr uint32_t kFourCc = 0x31504F43;  // "COP1", little endian

// Driver action ids (the low byte of a tag).
enum class Action : uint8_t { kReserved = 0, kConfig = 1, kCmdStream = 2, kReadApb = 3, kDumpShram = 4, kNop = 5 };

uint32_t read_word(Span<const uint8_t> bytes, size_t offset) {
  const uint8_t* p = bytes.data() + offset;
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

const char* product_name(NpuProduct product) {
  switch (product) {
    case NpuProduct::kEthosU55:
      return "Ethos-U55";
    case NpuProduct::kEthosU65:
      return "Ethos-U65";
    case NpuProduct::kEthosU85:
      return "Ethos-U85";
  }
  return "an unknown NPU";
}

Result<DriverPayload> parse_driver_payload(Span<const uint8_t> payload) {
  if (payload.size() % 4 != 0 || payload.size() < 4) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "the command payload has %lu bytes, not a whole number of 32-bit words",
                           as_ulong(payload.size()));
  }
  if (read_word(payload, 0) != kFourCc) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "the command payload does not start with Vela's 'COP1' driver header (found 0x%08lx)",
                           static_cast<unsigned long>(read_word(payload, 0)));
  }
  DriverPayload result = {};
  bool configured = false;
  bool has_commands = false;
  size_t offset = 4;
  while (offset < payload.size()) {
    const uint32_t tag = read_word(payload, offset);
    const auto action = static_cast<Action>(tag & 0xff);
    const uint32_t param = tag >> 16;
    const size_t action_offset = offset;
    offset += 4;
    switch (action) {
      case Action::kConfig: {
        if (payload.size() - offset < 8) {
          return Status::failure(Error::kInvalidDelegateBlob,
                                 "driver action CONFIG at byte %lu is truncated (it needs two more words)",
                                 as_ulong(action_offset));
        }
        const uint32_t config = read_word(payload, offset);
        offset += 8;  // the config word and the NPU id word
        result.product = static_cast<NpuProduct>(config >> 28);
        result.macs_per_cycle = 1u << (config & 0xf);
        result.shram_kib = (config >> 8) & 0xff;
        configured = true;
        break;
      }
      case Action::kCmdStream: {
        const size_t words = static_cast<size_t>((tag >> 8) & 0xff) << 16 | param;
        if (has_commands) {
          return Status::failure(Error::kInvalidDelegateBlob,
                                 "driver action CMD_STREAM at byte %lu is the second command stream of the payload",
                                 as_ulong(action_offset));
        }
        if (words > (payload.size() - offset) / 4) {
          return Status::failure(Error::kInvalidDelegateBlob,
                                 "driver action CMD_STREAM at byte %lu declares %lu words, only %lu remain",
                                 as_ulong(action_offset), as_ulong(words), as_ulong((payload.size() - offset) / 4));
        }
        result.commands = payload.subspan(offset, words * 4);
        result.commands_offset = offset;
        has_commands = true;
        offset += words * 4;
        break;
      }
      case Action::kReadApb:
      case Action::kDumpShram:
      case Action::kNop:
        break;  // debug actions: nothing for a functional model to do
      default:
        return Status::failure(Error::kInvalidDelegateBlob, "unknown driver action 0x%02lx at byte %lu",
                               static_cast<unsigned long>(tag & 0xff), as_ulong(action_offset));
    }
  }
  if (!configured || !has_commands) {
    return Status::failure(Error::kInvalidDelegateBlob, "the command payload has no %s driver action",
                           configured ? "CMD_STREAM" : "CONFIG");
  }
  return result;
}

}  // namespace npu_model
}  // namespace pte
