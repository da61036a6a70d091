#include "runtime/core/decimal_text.h"

namespace pte {

DecimalText::DecimalText(uint64_t value) {
  char reversed[20];
  int count = 0;
  do {
    reversed[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (int i = 0; i < count; ++i) text_[i] = reversed[count - 1 - i];
  text_[count] = '\0';
}

DecimalText::DecimalText(int64_t value) {
  if (value >= 0) {
    *this = DecimalText(static_cast<uint64_t>(value));
    return;
  }
  // Negating INT64_MIN overflows; go through the unsigned complement instead.
  const DecimalText magnitude(~static_cast<uint64_t>(value) + 1);
  text_[0] = '-';
  for (int i = 0; magnitude.text_[i] != '\0'; ++i) text_[i + 1] = magnitude.text_[i];
}

}  // namespace pte
