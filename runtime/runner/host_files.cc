#include "runtime/runner/host_files.h"

#include <cstdio>
#include <cstring>

namespace pte {

AlignedBuffer::AlignedBuffer(Span<const uint8_t> bytes) : AlignedBuffer(bytes.size()) {
  if (!bytes.empty()) std::memcpy(data(), bytes.data(), bytes.size());
}

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Status::failure(Error::kIoError, "cannot open '%s'", path.c_str());
  std::vector<uint8_t> bytes;
  // Small enough for a 64 KiB firmware stack (the host tests also run on Cortex-M).
  uint8_t chunk[4096];
  size_t count;
  while ((count = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes.insert(bytes.end(), chunk, chunk + count);
  const bool failed = std::ferror(file) != 0;
  std::fclose(file);
  if (failed) return Status::failure(Error::kIoError, "cannot read '%s'", path.c_str());
  return bytes;
}

Status write_file(const std::string& path, Span<const uint8_t> bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return Status::failure(Error::kIoError, "cannot create '%s'", path.c_str());
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) return Status::failure(Error::kIoError, "cannot write '%s'", path.c_str());
  return Status();
}

}  // namespace pte
