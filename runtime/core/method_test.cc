// Program and Method on real .pte files (exported at build time by ExecuTorch): loading, running, and an
// error code with a message, never a crash, for every kind of bad input.
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/kernels/registry.h"
#include "runtime/runner/host_files.h"
#include "runtime/testing/method_harness.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

constexpr const char* kFloatPrograms = "runtime/testdata/float_programs/";
constexpr const char* kQuantizedPrograms = "runtime/testdata/quantized_programs/";

using testing::fill_inputs;
using testing::MethodHarness;
using testing::read_test_file;

std::vector<uint8_t> float_program(const char* name) {
  return read_test_file(std::string(kFloatPrograms) + name + ".pte");
}

std::vector<uint8_t> quantized_program(const char* name) {
  return read_test_file(std::string(kQuantizedPrograms) + name + ".pte");
}

TEST(runs_the_float_mlp) {
  MethodHarness harness(float_program("mlp_fp32"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_EQ(program.method_count(), 1u);
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  EXPECT_TRUE(harness.arena_used() > 0);
  EXPECT_OK(fill_inputs(method, 0.5f));
  EXPECT_OK(method.execute());
  ASSERT_OK_AND_ASSIGN(const Tensor* output, method.output_tensor(0));
  EXPECT_EQ(output->rank, 2u);
  EXPECT_EQ(output->sizes[0], 3);
  EXPECT_EQ(output->sizes[1], 4);
  // Same inputs in every row: same outputs in every row.
  const float* values = output->data_as<const float>();
  EXPECT_TRUE(std::memcmp(values, values + 4, 4 * sizeof(float)) == 0);
}

TEST(every_test_program_loads_and_runs) {
  std::vector<std::vector<uint8_t>> programs = {quantized_program("mlp_int8")};
  for (const char* name : {"cond", "softmax", "mlp_fp32", "mlp_qdq_edges", "conv_layout"}) {
    programs.push_back(float_program(name));
  }
  for (const std::vector<uint8_t>& program : programs) {
    MethodHarness harness(program);
    EXPECT_OK(harness.load_and_run(harness.bytes()));
  }
}

TEST(an_unknown_method_is_not_found) {
  MethodHarness harness(float_program("softmax"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(program.method_meta("backward"), Error::kNotFound, "no method 'backward'");
}

TEST(not_a_pte_is_rejected_by_its_identifier) {
  std::vector<uint8_t> bytes(64, 0);
  std::memcpy(bytes.data() + 4, "TOSA", 4);
  AlignedBuffer buffer(Span<const uint8_t>(bytes.data(), bytes.size()));
  EXPECT_ERROR(Program::load(buffer.span()), Error::kInvalidProgram, "file identifier 'TOSA', expected 'ET12'");
  EXPECT_ERROR(Program::load(buffer.span().subspan(0, 4)), Error::kInvalidProgram, "cannot hold a flatbuffer header");
}

TEST(a_misaligned_buffer_is_refused) {
  const std::vector<uint8_t> pte = float_program("softmax");
  AlignedBuffer buffer(pte.size() + 1);
  std::memcpy(buffer.data() + 1, pte.data(), pte.size());
  EXPECT_ERROR(Program::load(Span<const uint8_t>(buffer.data() + 1, pte.size())), Error::kInvalidArgument,
               "16-byte aligned");
}

TEST(every_truncation_is_an_error) {
  for (const char* name : {"mlp_fp32", "softmax"}) {
    MethodHarness harness(float_program(name));
    size_t crashes_avoided = 0;
    for (size_t size = 0; size < harness.bytes().size(); ++size) {
      const Status status = harness.load_and_run(harness.bytes().subspan(0, size));
      EXPECT_TRUE(!status.ok());
      crashes_avoided += status.code() == Error::kInvalidProgram ? 1 : 0;
    }
    EXPECT_EQ(crashes_avoided, harness.bytes().size());
  }
}

TEST(truncating_the_segments_names_the_missing_bytes) {
  MethodHarness harness(float_program("mlp_fp32"));
  EXPECT_ERROR(Program::load(harness.bytes().subspan(0, harness.bytes().size() - 16)), Error::kInvalidProgram,
               "truncated .pte: segments need");
}

TEST(corrupting_any_byte_never_crashes) {
  // Every byte of the program, flipped in turn: loading and running must end in ok or an error code.
  std::vector<std::vector<uint8_t>> programs = {quantized_program("mlp_int8"), float_program("conv_layout"),
                                                float_program("cond")};
  for (const std::vector<uint8_t>& program : programs) {
    MethodHarness harness(program);
    size_t failures = 0;
    for (size_t offset = 0; offset < harness.bytes().size(); ++offset) {
      harness.mutable_bytes()[offset] ^= 0xff;
      failures += harness.load_and_run(harness.bytes()).ok() ? 0 : 1;
      harness.mutable_bytes()[offset] ^= 0xff;
    }
    EXPECT_TRUE(failures > 0);
  }
}

TEST(a_too_small_planned_buffer_states_needed_and_given) {
  MethodHarness harness(float_program("mlp_fp32"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program, 512), Error::kArenaTooSmall,
               "planned buffer 0 (memory_id 1) too small: the method needs 800 bytes, 512 given");
}

TEST(a_too_small_runtime_arena_states_a_size_that_is_enough_for_that_step) {
  MethodHarness harness(float_program("mlp_fp32"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program, -1, 256), Error::kArenaTooSmall, "runtime arena too small");
  EXPECT_ERROR(harness.load(program, -1, 256), Error::kArenaTooSmall, "the arena has 256");
}

TEST(a_missing_kernel_is_named) {
  MethodHarness harness(float_program("mlp_fp32"));
  harness.kernels = KernelRegistry();
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program), Error::kOperatorMissing,
               "operator 'aten::permute_copy.out' has no registered kernel (3 of 3 missing)");
}

TEST(inputs_must_have_the_tensor_size) {
  MethodHarness harness(float_program("mlp_fp32"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  const uint8_t bytes[8] = {};
  EXPECT_ERROR(method.set_input(0, Span<const uint8_t>(bytes)), Error::kInvalidArgument,
               "input 0 is float32 [3, 8] (96 bytes), got 8 bytes");
  EXPECT_ERROR(method.set_input(1, Span<const uint8_t>(bytes)), Error::kNotFound, "has 1 inputs, no input 1");
}

}  // namespace
}  // namespace pte
