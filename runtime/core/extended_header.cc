#include "runtime/core/extended_header.h"

#include <cstring>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace {

// The header follows the flatbuffer's u32 root offset and 4-byte file identifier.
constexpr size_t kHeaderOffset = 8;
constexpr char kMagic[4] = {'e', 'h', '0', '0'};
// magic, u32 length, u64 program size, u64 segment base offset.
constexpr uint32_t kMinimumLength = 24;
// ... and u64 segment data size.
constexpr uint32_t kLengthWithSegmentSize = 32;

uint64_t read_le(const uint8_t* bytes, size_t count) {
  uint64_t value = 0;
  for (size_t i = 0; i < count; ++i) value |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return value;
}

}  // namespace

Result<ExtendedHeader> read_extended_header(Span<const uint8_t> pte) {
  ExtendedHeader header;
  if (pte.size() < kHeaderOffset + sizeof(kMagic) ||
      std::memcmp(pte.data() + kHeaderOffset, kMagic, sizeof(kMagic)) != 0) {
    header.program_size = pte.size();
    return header;
  }
  const uint8_t* bytes = pte.data() + kHeaderOffset;
  if (pte.size() < kHeaderOffset + kMinimumLength) {
    return Status::failure(Error::kInvalidProgram, "truncated .pte: %lu bytes cannot hold the extended header",
                           as_ulong(pte.size()));
  }
  const uint32_t length = static_cast<uint32_t>(read_le(bytes + 4, 4));
  if (length < kMinimumLength || length > pte.size() - kHeaderOffset) {
    return Status::failure(Error::kInvalidProgram, "extended header length %s is invalid (minimum %s, %lu bytes available)",
                           DecimalText(uint64_t{length}).c_str(), DecimalText(uint64_t{kMinimumLength}).c_str(),
                           as_ulong(pte.size() - kHeaderOffset));
  }
  header.present = true;
  header.program_size = read_le(bytes + 8, 8);
  header.segment_base_offset = read_le(bytes + 16, 8);
  header.segment_data_size = length >= kLengthWithSegmentSize ? read_le(bytes + 24, 8) : 0;

  if (header.program_size < kHeaderOffset + length || header.program_size > pte.size()) {
    return Status::failure(Error::kInvalidProgram,
                           "truncated .pte: the header says the flatbuffer is %s bytes, the buffer has %lu",
                           DecimalText(header.program_size).c_str(), as_ulong(pte.size()));
  }
  if (header.segment_base_offset != 0 &&
      (header.segment_base_offset < header.program_size || header.segment_base_offset > pte.size())) {
    return Status::failure(Error::kInvalidProgram,
                           "segment base offset %s lies outside the segment area [%s, %lu]",
                           DecimalText(header.segment_base_offset).c_str(),
                           DecimalText(header.program_size).c_str(), as_ulong(pte.size()));
  }
  if (header.segment_data_size > pte.size() - header.segment_base_offset) {
    return Status::failure(Error::kInvalidProgram,
                           "truncated .pte: segments need %s bytes from offset %s, the buffer has %lu",
                           DecimalText(header.segment_data_size).c_str(),
                           DecimalText(header.segment_base_offset).c_str(), as_ulong(pte.size()));
  }
  return header;
}

}  // namespace pte
