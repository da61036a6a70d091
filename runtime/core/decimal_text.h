// Formatting numbers for error messages portably. DecimalText: a 64-bit integer as text. newlib-nano's printf (Cortex-M builds) has no
// %lld/%llu, so 64-bit values go through "%s" with this instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pte {

class DecimalText {
 public:
  explicit DecimalText(uint64_t value);
  explicit DecimalText(int64_t value);
  const char* c_str() const { return text_; }

 private:
  char text_[21] = {};
};

// A size for "%lu". newlib-nano's printf has no %zu either; unsigned long is as wide as size_t on every
// target this runtime builds for (ILP32 Cortex-M, LP64 Linux).
inline unsigned long as_ulong(size_t value) { return static_cast<unsigned long>(value); }

}  // namespace pte
