#include "runtime/delegate/ethosu/driver_payload.h"

#include "runtime/core/decimal_text.h"

namespace pte {
namespace ethosu {
namespace {

// "COP1" read as a little-endian word.
constexpr uint32_t kMagic = 0x31504f43;

enum class Action : uint8_t {
  kReserved = 0x00,
  kConfig = 0x01,
  kCommandStream = 0x02,
  kReadApb = 0x03,
  kDumpShram = 0x04,
  kNop = 0x05,
};

uint32_t word_at(Span<const uint8_t> bytes, size_t word) {
  const uint8_t* p = bytes.data() + word * 4;
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

Result<DriverPayload> parse_driver_payload(Span<const uint8_t> cmd_data) {
  if (cmd_data.size() % 4 != 0 || cmd_data.size() < 4) {
    return Status::failure(Error::kInvalidDelegateBlob, "driver payload has %lu bytes, expected whole words",
                           as_ulong(cmd_data.size()));
  }
  const size_t words = cmd_data.size() / 4;
  if (word_at(cmd_data, 0) != kMagic) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "driver payload starts with 0x%08lx, not \"COP1\": not a Vela command stream for an "
                           "Ethos-U55/U65 (recompile the model with this repository's Vela)",
                           static_cast<unsigned long>(word_at(cmd_data, 0)));
  }
  DriverPayload payload;
  size_t word = 1;
  while (word < words) {
    const uint32_t tag = word_at(cmd_data, word);
    const Action action = static_cast<Action>(tag & 0xff);
    const size_t tag_word = word++;
    switch (action) {
      case Action::kNop:
      case Action::kReadApb:
      case Action::kDumpShram:
        break;
      case Action::kConfig:
        if (words - word < 2) {
          return Status::failure(Error::kInvalidDelegateBlob, "driver payload: CONFIG at word %lu is truncated",
                                 as_ulong(tag_word));
        }
        payload.has_config = true;
        payload.config = word_at(cmd_data, word);
        payload.id = word_at(cmd_data, word + 1);
        word += 2;
        break;
      case Action::kCommandStream: {
        const size_t length = ((tag >> 8) & 0xff) << 16 | (tag >> 16);
        if (length == 0 || length > words - word) {
          return Status::failure(Error::kInvalidDelegateBlob,
                                 "driver payload: COMMAND_STREAM at word %lu declares %lu words, %lu remain",
                                 as_ulong(tag_word), as_ulong(length), as_ulong(words - word));
        }
        if (payload.command_stream_count == kMaxCommandStreams) {
          return Status::failure(Error::kNotSupported, "driver payload holds more than %lu command streams",
                                 as_ulong(kMaxCommandStreams));
        }
        payload.command_streams[payload.command_stream_count++] = cmd_data.subspan(word * 4, length * 4);
        word += length;
        break;
      }
      case Action::kReserved:
      default:
        return Status::failure(Error::kInvalidDelegateBlob, "driver payload: unknown action 0x%02lx at word %lu",
                               static_cast<unsigned long>(tag & 0xff), as_ulong(tag_word));
    }
  }
  if (payload.command_stream_count == 0) {
    return Status::failure(Error::kInvalidDelegateBlob, "driver payload holds no command stream");
  }
  return payload;
}

}  // namespace ethosu
}  // namespace pte
