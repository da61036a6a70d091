// Result<T>: a value or the Status saying why there is none.
#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/status.h"

namespace pte {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : ok_(true) { new (&value_) T(std::move(value)); }  // NOLINT: implicit by design
  Result(Status status) : ok_(false) { new (&status_) Status(std::move(status)); }  // NOLINT

  Result(Result&& other) : ok_(other.ok_) {
    if (ok_) {
      new (&value_) T(std::move(other.value_));
    } else {
      new (&status_) Status(std::move(other.status_));
    }
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;

  ~Result() {
    if (ok_) {
      value_.~T();
    } else {
      status_.~Status();
    }
  }

  bool ok() const { return ok_; }
  // Ok when a value is held.
  Status status() const { return ok_ ? Status() : status_; }
  Error code() const { return ok_ ? Error::kOk : status_.code(); }

  // Only valid when ok().
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  bool ok_;
  union {
    T value_;
    Status status_;
  };
};

}  // namespace pte

#define PTE_CONCAT_INNER(a, b) a##b
#define PTE_CONCAT(a, b) PTE_CONCAT_INNER(a, b)

// `PTE_ASSIGN_OR_RETURN(auto x, f());` declares x from f()'s value, or returns f()'s Status.
#define PTE_ASSIGN_OR_RETURN(declaration, expression) \
  PTE_ASSIGN_OR_RETURN_IMPL(PTE_CONCAT(pte_result_, __LINE__), declaration, expression)
#define PTE_ASSIGN_OR_RETURN_IMPL(result, declaration, expression) \
  auto result = (expression);                                      \
  if (!result.ok()) return result.status();                        \
  declaration = std::move(result).value()
