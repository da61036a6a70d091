// A minimal unit-test harness for the runtime's host tests (in the spirit of TFLite Micro's
// micro_test.h): no exceptions, no gtest dependency, one binary per test file, exit status for Bazel.
//
//   TEST(parses_a_valid_stream) {
//     EXPECT_OK(parse(...));
//     EXPECT_ERROR(parse(bad), pte::Error::kInvalidDelegateBlob, "truncated");
//   }
#pragma once

#include <cstdio>
#include <cstring>

#include "runtime/core/result.h"
#include "runtime/core/status.h"

namespace pte {
namespace testing {

using TestFn = void (*)();

// Registers a test at static-initialization time (host only).
struct TestRegistration {
  TestRegistration(const char* name, TestFn fn);
};

// Marks the running test failed and prints where.
void report_failure(const char* file, int line, const char* what);

inline Status status_of(const Status& status) { return status; }
template <typename T>
Status status_of(const Result<T>& result) {
  return result.status();
}

// Whether `status` failed with `code` and its message contains `fragment`; prints the mismatch if not.
bool failed_with(const Status& status, Error code, const char* fragment);

}  // namespace testing
}  // namespace pte

#define TEST(name)                                                                   \
  static void name();                                                                \
  static ::pte::testing::TestRegistration name##_registration(#name, name);          \
  static void name()

#define EXPECT_TRUE(condition) \
  ((condition) ? (void)0 : ::pte::testing::report_failure(__FILE__, __LINE__, #condition))

#define EXPECT_EQ(a, b) EXPECT_TRUE((a) == (b))

#define EXPECT_OK(expression)                                                                  \
  do {                                                                                         \
    const ::pte::Status pte_test_status_ = ::pte::testing::status_of(expression);              \
    if (!pte_test_status_.ok()) {                                                              \
      std::printf("  status: %s: %s\n", ::pte::error_name(pte_test_status_.code()),            \
                  pte_test_status_.message());                                                 \
      ::pte::testing::report_failure(__FILE__, __LINE__, #expression " is ok");                \
    }                                                                                          \
  } while (false)

// Fails the test unless `expression` failed with `code` and a message containing `fragment`.
#define EXPECT_ERROR(expression, code, fragment)                                                          \
  do {                                                                                                    \
    if (!::pte::testing::failed_with(::pte::testing::status_of(expression), code, fragment)) {            \
      ::pte::testing::report_failure(__FILE__, __LINE__, #expression " to fail with " #code);             \
    }                                                                                                     \
  } while (false)

// Stops the test when `result` failed; otherwise declares `declaration` from its value.
#define ASSERT_OK_AND_ASSIGN(declaration, expression)                                      \
  ASSERT_OK_AND_ASSIGN_IMPL(PTE_CONCAT(pte_test_result_, __LINE__), declaration, expression)
#define ASSERT_OK_AND_ASSIGN_IMPL(result, declaration, expression)                       \
  auto result = (expression);                                                            \
  if (!result.ok()) {                                                                    \
    std::printf("  status: %s: %s\n", ::pte::error_name(result.code()),                  \
                result.status().message());                                              \
    ::pte::testing::report_failure(__FILE__, __LINE__, #expression " is ok");            \
    return;                                                                              \
  }                                                                                      \
  declaration = std::move(result).value()
