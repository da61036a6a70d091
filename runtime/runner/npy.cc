#include "runtime/runner/npy.h"

#include <cstdio>
#include <cstring>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLength = 6;
// Magic, major and minor version, then the header length (2 bytes in version 1, 4 after).
constexpr size_t kVersion1Preamble = kMagicLength + 2 + 2;
constexpr size_t kDataAlignment = 64;

struct Descriptor {
  const char* text;
  ScalarType type;
};

// numpy's dtype.str for each element type this runtime knows; '|' marks single bytes (no byte order).
constexpr Descriptor kDescriptors[] = {
    {"<f4", ScalarType::kFloat}, {"<f8", ScalarType::kDouble}, {"|i1", ScalarType::kChar},
    {"|u1", ScalarType::kByte},  {"<i2", ScalarType::kShort},  {"<u2", ScalarType::kUInt16},
    {"<i4", ScalarType::kInt},   {"<u4", ScalarType::kUInt32}, {"<i8", ScalarType::kLong},
    {"<u8", ScalarType::kUInt64}, {"|b1", ScalarType::kBool},  {"<f2", ScalarType::kHalf},
};

// A piece of the header text (not NUL-terminated).
struct Text {
  const char* data;
  size_t size;

  bool starts_with(const char* prefix) const {
    const size_t length = std::strlen(prefix);
    return size >= length && std::memcmp(data, prefix, length) == 0;
  }
  bool equals(const char* other) const { return std::strlen(other) == size && starts_with(other); }
  size_t find(const char* needle, size_t from) const {
    const size_t length = std::strlen(needle);
    for (size_t i = from; i + length <= size; ++i) {
      if (std::memcmp(data + i, needle, length) == 0) return i;
    }
    return size;
  }
};

// For error messages: at most the first 63 characters of `text`.
struct Quoted {
  explicit Quoted(Text text) {
    const size_t length = text.size < sizeof(chars) - 1 ? text.size : sizeof(chars) - 1;
    std::memcpy(chars, text.data, length);
  }
  char chars[64] = {};
};

// The value text after `'key':` in the header dict, up to the next top-level comma or closing brace.
Text dict_value(Text header, const char* key) {
  char quoted[32];
  std::snprintf(quoted, sizeof(quoted), "'%s'", key);
  size_t position = header.find(quoted, 0);
  if (position == header.size) return Text{"", 0};
  position = header.find(":", position + std::strlen(quoted));
  if (position == header.size) return Text{"", 0};
  size_t end = position + 1;
  int depth = 0;
  while (end < header.size) {
    const char c = header.data[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    ++end;
  }
  if (end < header.size && header.data[end] == ')') ++end;
  size_t first = position + 1;
  while (first < end && header.data[first] == ' ') ++first;
  return Text{header.data + first, end - first};
}

Result<ScalarType> parse_descriptor(Text value) {
  for (const Descriptor& descriptor : kDescriptors) {
    char quoted[8];
    std::snprintf(quoted, sizeof(quoted), "'%s'", descriptor.text);
    if (value.equals(quoted)) return descriptor.type;
    // numpy writes single-byte types with '|'; accept '<' too.
    quoted[1] = '<';
    if (descriptor.text[0] == '|' && value.equals(quoted)) return descriptor.type;
  }
  return Status::failure(Error::kInvalidArgument, "unsupported .npy dtype %s (little-endian numeric types only)",
                         Quoted(value).chars);
}

Status parse_shape(Text value, Header* header) {
  if (value.size < 2 || value.data[0] != '(') {
    return Status::failure(Error::kInvalidArgument, ".npy shape '%s' is not a tuple", Quoted(value).chars);
  }
  header->rank = 0;
  size_t position = 1;
  while (position < value.size) {
    while (position < value.size && (value.data[position] == ' ' || value.data[position] == ',')) ++position;
    if (position >= value.size || value.data[position] == ')') break;
    if (header->rank == kMaxRank) {
      return Status::failure(Error::kInvalidArgument, ".npy shape '%s' has more than %lu dims", Quoted(value).chars,
                             as_ulong(kMaxRank));
    }
    int64_t dim = 0;
    bool any_digit = false;
    while (position < value.size && value.data[position] >= '0' && value.data[position] <= '9') {
      // Past 2^40 elements per dim nothing fits anywhere this runtime runs; stop before overflowing.
      if (dim > (int64_t{1} << 40)) {
        return Status::failure(Error::kInvalidArgument, ".npy shape '%s' is too large", Quoted(value).chars);
      }
      dim = dim * 10 + (value.data[position++] - '0');
      any_digit = true;
    }
    if (!any_digit) {
      return Status::failure(Error::kInvalidArgument, ".npy shape '%s' is malformed", Quoted(value).chars);
    }
    header->shape[header->rank++] = dim;
  }
  return Status();
}

// The data size, or kInvalidArgument when it does not fit a size_t.
Result<size_t> data_size(const Header& header) {
  size_t bytes = element_size(header.scalar_type);
  for (uint32_t i = 0; i < header.rank; ++i) {
    const uint64_t dim = static_cast<uint64_t>(header.shape[i]);
    if (dim != 0 && bytes > SIZE_MAX / dim) {
      return Status::failure(Error::kInvalidArgument, ".npy array is larger than this target's address space");
    }
    bytes *= static_cast<size_t>(dim);
  }
  return bytes;
}

}  // namespace

Result<Header> parse_header(Span<const uint8_t> file) {
  if (file.size() < kMagicLength + 4 || std::memcmp(file.data(), kMagic, kMagicLength) != 0) {
    return Status::failure(Error::kInvalidArgument, "not a .npy file (no \\x93NUMPY magic)");
  }
  const uint8_t major = file[kMagicLength];
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || file.size() < kMagicLength + 2 + length_bytes) {
    return Status::failure(Error::kInvalidArgument, ".npy version %d is not supported", major);
  }
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) header_length |= static_cast<size_t>(file[kMagicLength + 2 + i]) << (8 * i);
  const size_t text_start = kMagicLength + 2 + length_bytes;
  if (header_length > file.size() - text_start) {
    return Status::failure(Error::kInvalidArgument, "truncated .npy header");
  }
  const Text text{reinterpret_cast<const char*>(file.data()) + text_start, header_length};

  if (!dict_value(text, "fortran_order").starts_with("False")) {
    return Status::failure(Error::kInvalidArgument, ".npy arrays must be in C order");
  }
  Header header{};
  PTE_ASSIGN_OR_RETURN(header.scalar_type, parse_descriptor(dict_value(text, "descr")));
  PTE_RETURN_IF_ERROR(parse_shape(dict_value(text, "shape"), &header));
  header.data_offset = text_start + header_length;
  PTE_ASSIGN_OR_RETURN(header.data_size, data_size(header));
  return header;
}

Result<size_t> write_header(ScalarType scalar_type, Span<const int32_t> shape, Span<uint8_t> out) {
  const char* descriptor = "|u1";
  for (const Descriptor& known : kDescriptors) {
    if (known.type == scalar_type) descriptor = known.text;
  }
  // Python's tuple syntax: "()", "(3,)", "(2, 3)".
  char tuple[kMaxRank * 13 + 4] = "(";
  size_t length = 1;
  for (size_t i = 0; i < shape.size() && i < kMaxRank; ++i) {
    length +=
        std::snprintf(tuple + length, sizeof(tuple) - length, "%s%ld", i ? ", " : "", static_cast<long>(shape[i]));
  }
  std::snprintf(tuple + length, sizeof(tuple) - length, "%s", shape.size() == 1 ? ",)" : ")");

  char text[kMaxWrittenHeaderSize];
  int text_length = std::snprintf(text, sizeof(text), "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                                  descriptor, tuple);
  // Version 1.0: the data starts on a 64-byte boundary; the header text ends with a newline.
  const size_t total = (kVersion1Preamble + static_cast<size_t>(text_length) + 1 + kDataAlignment - 1) /
                       kDataAlignment * kDataAlignment;
  if (shape.size() > kMaxRank || total > out.size()) {
    return Status::failure(Error::kInvalidArgument, ".npy header for a rank-%lu array needs %lu bytes, %lu given",
                           as_ulong(shape.size()), as_ulong(total), as_ulong(out.size()));
  }
  const size_t padded_text = total - kVersion1Preamble;
  uint8_t* cursor = out.data();
  std::memcpy(cursor, kMagic, kMagicLength);
  cursor[kMagicLength] = 1;
  cursor[kMagicLength + 1] = 0;
  cursor[kMagicLength + 2] = static_cast<uint8_t>(padded_text & 0xff);
  cursor[kMagicLength + 3] = static_cast<uint8_t>(padded_text >> 8);
  cursor += kVersion1Preamble;
  std::memcpy(cursor, text, static_cast<size_t>(text_length));
  std::memset(cursor + text_length, ' ', padded_text - static_cast<size_t>(text_length) - 1);
  cursor[padded_text - 1] = '\n';
  return total;
}

Result<Array> parse(Span<const uint8_t> file) {
  PTE_ASSIGN_OR_RETURN(const Header header, parse_header(file));
  if (file.size() - header.data_offset != header.data_size) {
    return Status::failure(Error::kInvalidArgument, ".npy holds %lu data bytes, its header says %lu",
                           as_ulong(file.size() - header.data_offset), as_ulong(header.data_size));
  }
  return Array{header.scalar_type, std::vector<int64_t>(header.shape, header.shape + header.rank),
               std::vector<uint8_t>(file.begin() + header.data_offset, file.end())};
}

std::vector<uint8_t> serialize(ScalarType scalar_type, Span<const int32_t> shape, Span<const uint8_t> data) {
  uint8_t header[kMaxWrittenHeaderSize];
  Result<size_t> length = write_header(scalar_type, shape, Span<uint8_t>(header));
  // Only a rank above kMaxRank fails, and no tensor has one.
  std::vector<uint8_t> file(header, header + (length.ok() ? length.value() : 0));
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

}  // namespace npy
}  // namespace pte
