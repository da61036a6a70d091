#include "runtime/firmware/file_run_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/core/decimal_text.h"
#include "runtime/core/program.h"
#include "runtime/runner/npy.h"

namespace pte {
namespace firmware {
namespace {

// The whole file, in `region`, kBufferAlignment-aligned.
Result<Span<const uint8_t>> read_into(const char* path, BumpArena& region) {
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return Status::failure(Error::kIoError, "cannot open '%s'", path);
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0 || lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return Status::failure(Error::kIoError, "cannot find the size of '%s'", path);
  }
  Result<void*> memory = region.allocate(static_cast<size_t>(size), kBufferAlignment, path);
  if (!memory.ok()) {
    close(fd);
    return memory.status();
  }
  uint8_t* bytes = static_cast<uint8_t*>(memory.value());
  size_t done = 0;
  while (done < static_cast<size_t>(size)) {
    const ssize_t count = read(fd, bytes + done, static_cast<size_t>(size) - done);
    if (count <= 0) break;
    done += static_cast<size_t>(count);
  }
  close(fd);
  if (done != static_cast<size_t>(size)) {
    return Status::failure(Error::kIoError, "read %lu of the %lu bytes of '%s'", as_ulong(done),
                           as_ulong(static_cast<size_t>(size)), path);
  }
  return Span<const uint8_t>(bytes, done);
}

bool write_all(int fd, const uint8_t* bytes, size_t size) {
  while (size > 0) {
    const ssize_t count = write(fd, bytes, size);
    if (count <= 0) return false;
    bytes += count;
    size -= static_cast<size_t>(count);
  }
  return true;
}

}  // namespace

bool parse_file_run_arguments(int argc, char** argv, FileRunArguments* arguments) {
  for (int i = 1; i < argc; ++i) {
    const char* flag = argv[i];
    if (std::strcmp(flag, "--stub-npu") == 0) {
      arguments->stub_npu = true;
      continue;
    }
    if (i + 1 == argc) return false;
    const char* value = argv[++i];
    if (std::strcmp(flag, "--model") == 0) {
      arguments->program = value;
    } else if (std::strcmp(flag, "--input") == 0 && arguments->input_count < kMaxFiles) {
      arguments->inputs[arguments->input_count++] = value;
    } else if (std::strcmp(flag, "--expected-output") == 0 && arguments->expected_output_count < kMaxFiles) {
      arguments->expected_outputs[arguments->expected_output_count++] = value;
    } else if (std::strcmp(flag, "--output-dir") == 0) {
      arguments->output_dir = value;
    } else if (std::strcmp(flag, "--method") == 0) {
      arguments->method = value;
    } else if (std::strcmp(flag, "--fill-inputs") == 0) {
      char* end = nullptr;
      arguments->fill_inputs = true;
      arguments->fill_value = std::strtof(value, &end);
      if (end == value || *end != '\0') return false;
    } else {
      return false;
    }
  }
  return arguments->program != nullptr;
}

Result<Span<const uint8_t>> FileRunIo::program(BumpArena& region) { return read_into(arguments_.program, region); }

Result<Span<const uint8_t>> FileRunIo::input(size_t index, BumpArena& region) {
  return read_into(arguments_.inputs[index], region);
}

Result<Span<const uint8_t>> FileRunIo::expected_output(size_t index, BumpArena& region) {
  return read_into(arguments_.expected_outputs[index], region);
}

Status FileRunIo::write_output(size_t index, const Tensor& output) {
  if (arguments_.output_dir == nullptr) return Status();
  char path[256];
  std::snprintf(path, sizeof(path), "%s/output%lu.npy", arguments_.output_dir, as_ulong(index));
  uint8_t header[npy::kMaxWrittenHeaderSize];
  PTE_ASSIGN_OR_RETURN(const size_t header_size,
                       npy::write_header(output.scalar_type, Span<const int32_t>(output.sizes, output.rank),
                                         Span<uint8_t>(header)));
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Status::failure(Error::kIoError, "cannot create '%s'", path);
  const bool written =
      write_all(fd, header, header_size) && write_all(fd, static_cast<const uint8_t*>(output.data), output.nbytes);
  const bool closed = close(fd) == 0;
  if (!written || !closed) return Status::failure(Error::kIoError, "cannot write '%s'", path);
  std::printf("output %lu: %s %s -> %s\n", as_ulong(index), scalar_type_name(output.scalar_type),
              ShapeText(output).c_str(), path);
  return Status();
}

}  // namespace firmware
}  // namespace pte
