// Status: an error code plus a human-readable message, held inline (no heap) so that every failure on
// a device can still say what went wrong.
#pragma once

#include <cstddef>

#include "runtime/core/error.h"

#if defined(__GNUC__)
#define PTE_PRINTF_FORMAT(format_index, first_arg) __attribute__((format(printf, format_index, first_arg)))
#else
#define PTE_PRINTF_FORMAT(format_index, first_arg)
#endif

namespace pte {

class [[nodiscard]] Status {
 public:
  // Long enough for a message with two layers of context ("method 'forward': instruction 3 ...: ...").
  static constexpr size_t kMessageCapacity = 224;

  // Ok.
  Status() = default;

  // A failure; the message is printf-formatted and truncated to kMessageCapacity - 1 characters.
  static Status failure(Error code, const char* format, ...) PTE_PRINTF_FORMAT(2, 3);

  bool ok() const { return code_ == Error::kOk; }
  Error code() const { return code_; }
  const char* message() const { return message_; }

  // Puts "<context>: " in front of the message, so callers up the stack can say where a failure happened
  // without the callee knowing about them.
  Status with_context(const char* format, ...) && PTE_PRINTF_FORMAT(2, 3);

 private:
  Error code_ = Error::kOk;
  char message_[kMessageCapacity] = {};
};

}  // namespace pte

// Returns the Status of `expression` from the enclosing function when it is not ok.
#define PTE_RETURN_IF_ERROR(expression)        \
  do {                                         \
    ::pte::Status pte_status_ = (expression);  \
    if (!pte_status_.ok()) return pte_status_; \
  } while (false)
