// What the fuzzers found, one test per fixed crash or hang, on the inputs that showed it (regressions/).
#include <string>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/testing/method_harness.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

constexpr const char* kRegressions = "runtime/fuzz/regressions/pte_loader/";

// flatbuffers' verifier checks vector length words for 4-byte alignment only; an int64 vector 4 bytes off
// was read through int64_t pointers (UBSan: misaligned load).
TEST(a_misaligned_int64_vector_is_refused_at_load) {
  testing::MethodHarness harness(testing::read_test_file(kRegressions + std::string("misaligned_int64_vector.pte")));
  EXPECT_ERROR(Program::load(harness.bytes()), Error::kInvalidProgram,
               "its 8-byte elements are not 8-byte aligned (corrupt .pte)");
}

// An input with no elements, set from an empty span (whose data pointer is null): memcpy was handed null.
TEST(an_empty_input_is_set_from_an_empty_span) {
  testing::MethodHarness harness(testing::read_test_file(kRegressions + std::string("empty_input_null_span.pte")));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  size_t empty_inputs = 0;
  for (size_t i = 0; i < method.input_count(); ++i) {
    ASSERT_OK_AND_ASSIGN(const Tensor* input, method.input_tensor(i));
    if (input->nbytes != 0) continue;
    ++empty_inputs;
    EXPECT_OK(method.set_input(i, Span<const uint8_t>()));
  }
  EXPECT_TRUE(empty_inputs > 0);
}

// A JumpFalseCall jumping back over a condition nothing changes (false: the inputs are zeros, as the
// fuzzer gives them): execute() never returned.
TEST(an_endless_jump_loop_is_stopped) {
  testing::MethodHarness harness(testing::read_test_file(kRegressions + std::string("endless_jump_loop.pte")));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  for (size_t i = 0; i < method.input_count(); ++i) {
    ASSERT_OK_AND_ASSIGN(const Tensor* input, method.input_tensor(i));
    const std::vector<uint8_t> zeros(input->nbytes, 0);
    EXPECT_OK(method.set_input(i, Span<const uint8_t>(zeros.data(), zeros.size())));
  }
  EXPECT_ERROR(method.execute(), Error::kInvalidProgram,
               "instructions run without reaching the chain's end; a jump loops forever");
}

// A tensor sized [..., 0, ..., 1107296256, 16]: the zero made numel 0, so the size check passed, and the
// stride product 16 * 1107296256 overflowed int32 (UBSan: signed integer overflow in compute_strides; CI's
// 60-second fuzz run found it). Sizes and strides are now multiplied with overflow checks.
TEST(a_tensor_whose_strides_overflow_int32_is_refused_at_method_load) {
  testing::MethodHarness harness(
      testing::read_test_file(kRegressions + std::string("pte_loader_ubsan_tensor_strides.pte")));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program), Error::kInvalidProgram, "the shape's strides overflow int32");
}

}  // namespace
}  // namespace pte
