#include "runtime/core/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace pte {
namespace {

// Appends `text` to the NUL-terminated `buffer` of `capacity` bytes, cutting it short when full.
void append(char* buffer, size_t capacity, const char* text) {
  size_t length = std::strlen(buffer);
  while (*text != '\0' && length + 1 < capacity) buffer[length++] = *text++;
  buffer[length] = '\0';
}

}  // namespace

Status Status::failure(Error code, const char* format, ...) {
  Status status;
  status.code_ = code;
  va_list args;
  va_start(args, format);
  std::vsnprintf(status.message_, kMessageCapacity, format, args);
  va_end(args);
  return status;
}

Status Status::with_context(const char* format, ...) && {
  char combined[kMessageCapacity];
  va_list args;
  va_start(args, format);
  std::vsnprintf(combined, kMessageCapacity, format, args);
  va_end(args);
  append(combined, kMessageCapacity, ": ");
  append(combined, kMessageCapacity, message_);
  std::memcpy(message_, combined, kMessageCapacity);
  return *this;
}

}  // namespace pte
