#include "runtime/runner/npy.h"

#include <cstring>

#include "runtime/core/decimal_text.h"

namespace pte {
namespace npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLength = 6;

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

// The value text after `'key':` in the header dict, up to the next top-level comma or closing brace.
std::string dict_value(const std::string& header, const char* key) {
  const std::string quoted = std::string("'") + key + "'";
  size_t position = header.find(quoted);
  if (position == std::string::npos) return "";
  position = header.find(':', position + quoted.size());
  if (position == std::string::npos) return "";
  size_t end = position + 1;
  int depth = 0;
  while (end < header.size()) {
    const char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    ++end;
  }
  if (end < header.size() && header[end] == ')') ++end;
  std::string value = header.substr(position + 1, end - position - 1);
  const size_t first = value.find_first_not_of(" ");
  return first == std::string::npos ? "" : value.substr(first);
}

Result<ScalarType> parse_descriptor(const std::string& value) {
  for (const Descriptor& descriptor : kDescriptors) {
    if (value == std::string("'") + descriptor.text + "'") return descriptor.type;
    // numpy writes single-byte types with '|'; accept '<' too.
    if (descriptor.text[0] == '|' && value == std::string("'<") + (descriptor.text + 1) + "'") return descriptor.type;
  }
  return Status::failure(Error::kInvalidArgument, "unsupported .npy dtype %s (little-endian numeric types only)",
                         value.c_str());
}

Result<std::vector<int64_t>> parse_shape(const std::string& value) {
  if (value.size() < 2 || value.front() != '(') {
    return Status::failure(Error::kInvalidArgument, ".npy shape '%s' is not a tuple", value.c_str());
  }
  std::vector<int64_t> shape;
  size_t position = 1;
  while (position < value.size()) {
    while (position < value.size() && (value[position] == ' ' || value[position] == ',')) ++position;
    if (position >= value.size() || value[position] == ')') break;
    int64_t dim = 0;
    bool any_digit = false;
    while (position < value.size() && value[position] >= '0' && value[position] <= '9') {
      dim = dim * 10 + (value[position++] - '0');
      any_digit = true;
    }
    if (!any_digit) return Status::failure(Error::kInvalidArgument, ".npy shape '%s' is malformed", value.c_str());
    shape.push_back(dim);
  }
  return shape;
}

// Python's tuple syntax: "()", "(3,)", "(2, 3)".
std::string shape_tuple(Span<const int32_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

Result<Array> parse(Span<const uint8_t> file) {
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
  const size_t data_start = kMagicLength + 2 + length_bytes + header_length;
  if (data_start > file.size()) return Status::failure(Error::kInvalidArgument, "truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(file.data()) + kMagicLength + 2 + length_bytes, header_length);

  if (dict_value(header, "fortran_order").rfind("False", 0) != 0) {
    return Status::failure(Error::kInvalidArgument, ".npy arrays must be in C order");
  }
  PTE_ASSIGN_OR_RETURN(const ScalarType type, parse_descriptor(dict_value(header, "descr")));
  PTE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, parse_shape(dict_value(header, "shape")));
  size_t count = 1;
  for (int64_t dim : shape) count *= static_cast<size_t>(dim);
  const size_t bytes = count * element_size(type);
  if (file.size() - data_start != bytes) {
    return Status::failure(Error::kInvalidArgument, ".npy holds %lu data bytes, its header says %lu",
                           as_ulong(file.size() - data_start), as_ulong(bytes));
  }
  return Array{type, std::move(shape), std::vector<uint8_t>(file.begin() + data_start, file.end())};
}

std::vector<uint8_t> serialize(ScalarType scalar_type, Span<const int32_t> shape, Span<const uint8_t> data) {
  const char* descriptor = "|u1";
  for (const Descriptor& known : kDescriptors) {
    if (known.type == scalar_type) descriptor = known.text;
  }
  std::string header = std::string("{'descr': '") + descriptor + "', 'fortran_order': False, 'shape': " +
                       shape_tuple(shape) + ", }";
  // Version 1.0: the data starts on a 64-byte boundary; the header ends with a newline.
  const size_t preamble = kMagicLength + 2 + 2;
  while ((preamble + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> file(kMagic, kMagic + kMagicLength);
  file.push_back(1);
  file.push_back(0);
  file.push_back(static_cast<uint8_t>(header.size() & 0xff));
  file.push_back(static_cast<uint8_t>(header.size() >> 8));
  file.insert(file.end(), header.begin(), header.end());
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

}  // namespace npy
}  // namespace pte
