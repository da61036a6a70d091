#include "runtime/delegate/ethosu/bin_stream.h"

#include <cstring>

#include "runtime/core/checked_math.h"
#include "runtime/core/decimal_text.h"

namespace pte {
namespace ethosu {
namespace {

constexpr size_t kNameLength = 16;
// name, u32 length, u8 external flag, 11 reserved bytes.
constexpr size_t kBlockHeaderSize = 32;
constexpr size_t kAlignment = 16;
constexpr size_t kIoEntrySize = (kIoRank + 3) * sizeof(int32_t);

constexpr const char* kBlockOrder[] = {
    "vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "vela_end_stream",
};
enum BlockIndex { kHeader, kCommands, kWeights, kScratchSize, kInputs, kOutputs, kFooter, kBlockCount };
// Vela's element sizes for int8/uint8/bool, int16, int32.
constexpr int32_t kElementSizes[] = {1, 2, 4};
// The NPU has eight base-pointer registers.
constexpr int32_t kRegionCount = 8;

uint32_t read_u32(const uint8_t* bytes) {
  return static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
         static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
}

int32_t read_i32(const uint8_t* bytes) {
  const uint32_t bits = read_u32(bytes);
  int32_t value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

Status read_block(Span<const uint8_t> blob, size_t offset, const char* expected_name, Span<const uint8_t>* data,
                  size_t* next) {
  if (blob.size() - offset < kBlockHeaderSize) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "truncated: block '%s' expected at offset %lu, only %lu bytes remain", expected_name,
                           as_ulong(offset), as_ulong(blob.size() - offset));
  }
  const uint8_t* header = blob.data() + offset;
  char name[kNameLength + 1] = {};
  std::memcpy(name, header, kNameLength);
  if (std::memchr(header, '\0', kNameLength) == nullptr || std::strcmp(name, expected_name) != 0) {
    for (char& c : name) c = (c != '\0' && (c < 0x20 || c >= 0x7f)) ? '?' : c;
    return Status::failure(Error::kInvalidDelegateBlob, "block at offset %lu is '%s', expected '%s'",
                           as_ulong(offset), name, expected_name);
  }
  const size_t length = read_u32(header + kNameLength);
  if (header[kNameLength + 4] != 0) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "block '%s' refers to external data, which this runtime does not resolve", name);
  }
  const size_t start = offset + kBlockHeaderSize;
  const size_t available = blob.size() - start;
  size_t padded_length = 0;
  if (!checked_align_up(length, kAlignment, &padded_length) || padded_length > available) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "truncated: block '%s' at offset %lu declares %lu bytes (padded to %lu), %lu remain", name,
                           as_ulong(offset), as_ulong(length), as_ulong(kAlignment), as_ulong(available));
  }
  *data = blob.subspan(start, length);
  *next = start + padded_length;
  return Status();
}

Status check_io(const VelaIo& io, uint32_t scratch_size, const char* block, size_t index) {
  bool element_size_known = false;
  for (int32_t size : kElementSizes) element_size_known |= io.element_size == size;
  if (!element_size_known) {
    return Status::failure(Error::kInvalidDelegateBlob, "%s[%lu] has element size %ld (expected 1, 2 or 4)", block,
                           as_ulong(index), static_cast<long>(io.element_size));
  }
  // Counted with zero dims as ones too, so that no later product (element_count, byte_size) can wrap.
  size_t extent = 1;
  for (int32_t dim : io.shape) {
    if (dim < 0 || !checked_mul(extent, dim == 0 ? size_t{1} : static_cast<size_t>(dim), &extent)) {
      return Status::failure(Error::kInvalidDelegateBlob, "%s[%lu] has an invalid shape dim %ld", block,
                             as_ulong(index), static_cast<long>(dim));
    }
  }
  size_t extent_bytes = 0;
  if (!checked_mul(extent, static_cast<size_t>(io.element_size), &extent_bytes)) {
    return Status::failure(Error::kInvalidDelegateBlob, "%s[%lu]'s shape overflows the address space", block,
                           as_ulong(index));
  }
  if (io.region < 0 || io.region >= kRegionCount || io.offset < 0) {
    return Status::failure(Error::kInvalidDelegateBlob, "%s[%lu] has region %ld offset %ld (regions 0..%ld)", block,
                           as_ulong(index), static_cast<long>(io.region), static_cast<long>(io.offset),
                           static_cast<long>(kRegionCount - 1));
  }
  if (io.region == static_cast<int32_t>(Region::kScratch) &&
      !range_within(static_cast<uint64_t>(io.offset), io.byte_size(), scratch_size)) {
    return Status::failure(Error::kInvalidDelegateBlob,
                           "%s[%lu] spans scratch bytes [%ld, +%lu), beyond the %lu-byte scratch area", block,
                           as_ulong(index), static_cast<long>(io.offset), as_ulong(io.byte_size()),
                           as_ulong(scratch_size));
  }
  return Status();
}

Result<VelaIoTable> read_io_table(Span<const uint8_t> data, uint32_t scratch_size, const char* block) {
  if (data.size() < sizeof(int32_t)) {
    return Status::failure(Error::kInvalidDelegateBlob, "block '%s' has %lu bytes, too few for a tensor count", block,
                           as_ulong(data.size()));
  }
  const int32_t count = read_i32(data.data());
  if (count < 0 || (data.size() - sizeof(int32_t)) / kIoEntrySize != static_cast<size_t>(count) ||
      (data.size() - sizeof(int32_t)) % kIoEntrySize != 0) {
    return Status::failure(Error::kInvalidDelegateBlob, "block '%s' declares %ld tensors but holds %lu bytes (%lu each)",
                           block, static_cast<long>(count), as_ulong(data.size()), as_ulong(kIoEntrySize));
  }
  const VelaIoTable table(data.data() + sizeof(int32_t), static_cast<size_t>(count));
  for (size_t i = 0; i < table.size(); ++i) PTE_RETURN_IF_ERROR(check_io(table.at(i), scratch_size, block, i));
  return table;
}

}  // namespace

size_t VelaIo::element_count() const {
  size_t count = 1;
  for (int32_t dim : shape) count *= static_cast<size_t>(dim);
  return count;
}

VelaIo VelaIoTable::at(size_t index) const {
  const uint8_t* entry = entries_ + index * kIoEntrySize;
  VelaIo io;
  for (size_t dim = 0; dim < kIoRank; ++dim) io.shape[dim] = read_i32(entry + dim * sizeof(int32_t));
  io.element_size = read_i32(entry + kIoRank * sizeof(int32_t));
  io.offset = read_i32(entry + (kIoRank + 1) * sizeof(int32_t));
  io.region = read_i32(entry + (kIoRank + 2) * sizeof(int32_t));
  return io;
}

Result<VelaBinStream> parse_vela_bin_stream(Span<const uint8_t> blob) {
  Span<const uint8_t> blocks[kBlockCount];
  size_t offset = 0;
  for (size_t i = 0; i < kBlockCount; ++i) {
    PTE_RETURN_IF_ERROR(read_block(blob, offset, kBlockOrder[i], &blocks[i], &offset));
  }
  if (offset != blob.size()) {
    return Status::failure(Error::kInvalidDelegateBlob, "%lu bytes follow the end-of-stream block",
                           as_ulong(blob.size() - offset));
  }
  for (BlockIndex marker : {kHeader, kFooter}) {
    if (!blocks[marker].empty()) {
      return Status::failure(Error::kInvalidDelegateBlob, "block '%s' must be empty, has %lu bytes",
                             kBlockOrder[marker], as_ulong(blocks[marker].size()));
    }
  }
  // The command stream is a sequence of 32-bit words.
  if (blocks[kCommands].empty() || blocks[kCommands].size() % 4 != 0) {
    return Status::failure(Error::kInvalidDelegateBlob, "cmd_data has %lu bytes, expected a non-empty multiple of 4",
                           as_ulong(blocks[kCommands].size()));
  }
  if (blocks[kScratchSize].size() != sizeof(uint32_t)) {
    return Status::failure(Error::kInvalidDelegateBlob, "scratch_size must hold 4 bytes, has %lu",
                           as_ulong(blocks[kScratchSize].size()));
  }
  VelaBinStream stream;
  stream.command_stream = blocks[kCommands];
  stream.weights = blocks[kWeights];
  stream.scratch_size = read_u32(blocks[kScratchSize].data());
  PTE_ASSIGN_OR_RETURN(stream.inputs, read_io_table(blocks[kInputs], stream.scratch_size, "inputs"));
  PTE_ASSIGN_OR_RETURN(stream.outputs, read_io_table(blocks[kOutputs], stream.scratch_size, "outputs"));
  return stream;
}

}  // namespace ethosu
}  // namespace pte
