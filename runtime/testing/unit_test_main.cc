#include <cstdio>

#include "runtime/testing/unit_test.h"

namespace pte {
namespace testing {
namespace {

struct Test {
  const char* name;
  TestFn fn;
};

constexpr int kMaxTests = 256;
Test tests[kMaxTests];
int test_count = 0;
bool current_failed = false;

}  // namespace

TestRegistration::TestRegistration(const char* name, TestFn fn) {
  if (test_count == kMaxTests) {
    std::printf("too many tests in one binary; raise kMaxTests to add %s\n", name);
    return;
  }
  tests[test_count++] = Test{name, fn};
}

void report_failure(const char* file, int line, const char* what) {
  std::printf("  %s:%d: expected %s\n", file, line, what);
  current_failed = true;
}

bool failed_with(const Status& status, Error code, const char* fragment) {
  if (status.code() == code && std::strstr(status.message(), fragment) != nullptr) return true;
  std::printf("  got %s: \"%s\"\n  want %s containing \"%s\"\n", error_name(status.code()), status.message(),
              error_name(code), fragment);
  return false;
}

}  // namespace testing
}  // namespace pte

int main() {
  using pte::testing::test_count;
  using pte::testing::tests;
  // Unbuffered, so a test that crashes still shows which one it was.
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  int failures = 0;
  for (int i = 0; i < test_count; ++i) {
    pte::testing::current_failed = false;
    std::printf("[ RUN] %s\n", tests[i].name);
    tests[i].fn();
    std::printf("[%s] %s\n", pte::testing::current_failed ? "FAIL" : " OK ", tests[i].name);
    failures += pte::testing::current_failed ? 1 : 0;
  }
  std::printf("%d of %d tests failed\n", failures, test_count);
  return failures == 0 && test_count > 0 ? 0 : 1;
}
