// Program and Method on real .pte files (made at build time by ExecuTorch and by the repository's Ethos-U
// flow): loading, running, and an error code with a message, never a crash, for every kind of bad input.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/method.h"
#include "runtime/core/program.h"
#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/bin_stream.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/kernels/reference_kernels.h"
#include "runtime/runner/host_files.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace {

constexpr const char* kPrograms = "runtime/testdata/programs/";
constexpr const char* kEthosUProgram = "runtime/testdata/tiny_conv_u55.pte";

std::vector<uint8_t> read_test_file(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  if (!bytes.ok()) std::printf("  %s\n", bytes.status().message());
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>();
}

// Everything a method needs, sized from the program unless a test shrinks it.
class Harness {
 public:
  explicit Harness(const std::vector<uint8_t>& pte, ethosu::NpuDriver* driver = nullptr)
      : pte_(Span<const uint8_t>(pte.data(), pte.size())), runtime_(kRuntimeArenaBytes), ethos_u_(driver) {
    (void)register_reference_kernels(kernels);
    (void)backends.add(ethosu::EthosUBackend::kId, ethos_u_);
  }

  Span<const uint8_t> bytes() { return Span<const uint8_t>(pte_.data(), pte_.size()); }
  uint8_t* mutable_bytes() { return pte_.data(); }

  // planned_bytes < 0: what the method asks for.
  Result<Method> load(const Program& program, long planned_bytes = -1, size_t runtime_bytes = kRuntimeArenaBytes) {
    Result<MethodMeta> meta = program.method_meta("forward");
    if (!meta.ok()) return meta.status();
    planned_.clear();
    planned_spans_.clear();
    for (size_t i = 0; i < meta->planned_buffer_count(); ++i) {
      // Capped: a corrupted program may ask for anything, and must then fail with kArenaTooSmall.
      const size_t wanted = planned_bytes < 0 ? meta->planned_buffer_size(i) : static_cast<size_t>(planned_bytes);
      const size_t size = wanted < kPlannedBytesCap ? wanted : kPlannedBytesCap;
      planned_.emplace_back(size);
      planned_spans_.push_back(planned_.back().span());
    }
    arena_.reset(new BumpArena(runtime_.data(), runtime_bytes));
    const MethodMemory memory{*arena_, Span<const Span<uint8_t>>(planned_spans_.data(), planned_spans_.size())};
    return Method::load(program, "forward", memory, kernels, backends);
  }

  size_t arena_used() const { return arena_->used(); }

  KernelRegistry kernels;
  BackendRegistry backends;

 private:
  static constexpr size_t kRuntimeArenaBytes = 64 * 1024;
  static constexpr size_t kPlannedBytesCap = 1 << 20;
  AlignedBuffer pte_;
  AlignedBuffer runtime_;
  std::unique_ptr<BumpArena> arena_;
  std::vector<AlignedBuffer> planned_;
  std::vector<Span<uint8_t>> planned_spans_;
  ethosu::EthosUBackend ethos_u_;
};

// Float inputs get `value`, bool inputs true, others zero.
Status fill_inputs(Method& method, float value) {
  for (size_t i = 0; i < method.input_count(); ++i) {
    PTE_ASSIGN_OR_RETURN(const Tensor* tensor, method.input_tensor(i));
    std::vector<uint8_t> bytes(tensor->nbytes, 0);
    for (size_t e = 0; e < tensor->numel; ++e) {
      if (tensor->scalar_type == ScalarType::kFloat) std::memcpy(&bytes[e * sizeof(float)], &value, sizeof(float));
      if (tensor->scalar_type == ScalarType::kBool) bytes[e] = 1;
    }
    PTE_RETURN_IF_ERROR(method.set_input(i, Span<const uint8_t>(bytes.data(), bytes.size())));
  }
  return Status();
}

// Loads, binds inputs and runs; the Status of the first step that fails.
Status load_and_run(Harness& harness, Span<const uint8_t> bytes) {
  PTE_ASSIGN_OR_RETURN(const Program program, Program::load(bytes));
  PTE_ASSIGN_OR_RETURN(Method method, harness.load(program));
  PTE_RETURN_IF_ERROR(fill_inputs(method, 0.5f));
  return method.execute();
}

TEST(runs_the_float_mlp) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
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
  for (const char* name : {"cond", "softmax", "mlp_fp32", "mlp_qdq_edges", "mlp_int8", "conv_layout"}) {
    Harness harness(read_test_file(std::string(kPrograms) + name + ".pte"));
    const Status status = load_and_run(harness, harness.bytes());
    if (!status.ok()) std::printf("  %s: %s\n", name, status.message());
    EXPECT_TRUE(status.ok());
  }
}

TEST(an_unknown_method_is_not_found) {
  Harness harness(read_test_file(std::string(kPrograms) + "softmax.pte"));
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
  const std::vector<uint8_t> pte = read_test_file(std::string(kPrograms) + "softmax.pte");
  AlignedBuffer buffer(pte.size() + 1);
  std::memcpy(buffer.data() + 1, pte.data(), pte.size());
  EXPECT_ERROR(Program::load(Span<const uint8_t>(buffer.data() + 1, pte.size())), Error::kInvalidArgument,
               "16-byte aligned");
}

TEST(every_truncation_is_an_error) {
  for (const char* name : {"mlp_fp32", "softmax"}) {
    Harness harness(read_test_file(std::string(kPrograms) + name + ".pte"));
    size_t crashes_avoided = 0;
    for (size_t size = 0; size < harness.bytes().size(); ++size) {
      const Status status = load_and_run(harness, harness.bytes().subspan(0, size));
      EXPECT_TRUE(!status.ok());
      crashes_avoided += status.code() == Error::kInvalidProgram ? 1 : 0;
    }
    EXPECT_EQ(crashes_avoided, harness.bytes().size());
  }
}

TEST(truncating_the_segments_names_the_missing_bytes) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
  EXPECT_ERROR(Program::load(harness.bytes().subspan(0, harness.bytes().size() - 16)), Error::kInvalidProgram,
               "truncated .pte: segments need");
}

TEST(corrupting_any_byte_never_crashes) {
  // Every byte of the program, flipped in turn: loading and running must end in ok or an error code.
  for (const char* name : {"mlp_int8", "conv_layout", "cond"}) {
    Harness harness(read_test_file(std::string(kPrograms) + name + ".pte"));
    size_t failures = 0;
    for (size_t offset = 0; offset < harness.bytes().size(); ++offset) {
      harness.mutable_bytes()[offset] ^= 0xff;
      failures += load_and_run(harness, harness.bytes()).ok() ? 0 : 1;
      harness.mutable_bytes()[offset] ^= 0xff;
    }
    EXPECT_TRUE(failures > 0);
  }
}

TEST(a_too_small_planned_buffer_states_needed_and_given) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program, 512), Error::kArenaTooSmall,
               "planned buffer 0 (memory_id 1) too small: the method needs 800 bytes, 512 given");
}

TEST(a_too_small_runtime_arena_states_a_size_that_is_enough_for_that_step) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program, -1, 256), Error::kArenaTooSmall, "runtime arena too small");
  EXPECT_ERROR(harness.load(program, -1, 256), Error::kArenaTooSmall, "the arena has 256");
}

TEST(a_missing_kernel_is_named) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
  harness.kernels = KernelRegistry();
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program), Error::kOperatorMissing,
               "operator 'aten::permute_copy.out' has no registered kernel (3 of 3 missing)");
}

TEST(inputs_must_have_the_tensor_size) {
  Harness harness(read_test_file(std::string(kPrograms) + "mlp_fp32.pte"));
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  const uint8_t bytes[8] = {};
  EXPECT_ERROR(method.set_input(0, Span<const uint8_t>(bytes)), Error::kInvalidArgument,
               "input 0 is float32 [3, 8] (96 bytes), got 8 bytes");
  EXPECT_ERROR(method.set_input(1, Span<const uint8_t>(bytes)), Error::kNotFound, "has 1 inputs, no input 1");
}

// Stands in for the NPU: records what the backend hands it and fills the scratch area with 0x7f.
class RecordingDriver final : public ethosu::NpuDriver {
 public:
  Status run(Span<const uint8_t> command_stream, Span<const ethosu::NpuRegion> regions) override {
    ++runs;
    command_bytes = command_stream.size();
    weight_bytes = regions[0].size;
    scratch_bytes = regions[1].size;
    std::memset(reinterpret_cast<void*>(regions[1].address), 0x7f, regions[1].size);
    return Status();
  }
  int runs = 0;
  size_t command_bytes = 0;
  size_t weight_bytes = 0;
  size_t scratch_bytes = 0;
};

TEST(an_ethos_u_delegate_without_a_driver_says_so) {
  Harness harness(read_test_file(kEthosUProgram));
  EXPECT_ERROR(load_and_run(harness, harness.bytes()), Error::kNotSupported,
               "instruction 1 (delegate EthosUBackend): no NPU driver is attached");
}

TEST(an_ethos_u_delegate_runs_its_command_stream_through_the_driver) {
  RecordingDriver driver;
  Harness harness(read_test_file(kEthosUProgram), &driver);
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  EXPECT_OK(fill_inputs(method, 0.25f));
  EXPECT_OK(method.execute());
  EXPECT_EQ(driver.runs, 1);
  EXPECT_TRUE(driver.command_bytes > 0 && driver.command_bytes % 4 == 0);
  EXPECT_TRUE(driver.weight_bytes > 0);
  EXPECT_TRUE(driver.scratch_bytes > 0);
  // Every output byte came from the driver's 0x7f, dequantized: all outputs are equal.
  ASSERT_OK_AND_ASSIGN(const Tensor* output, method.output_tensor(0));
  const float* values = output->data_as<const float>();
  for (size_t i = 1; i < output->numel; ++i) EXPECT_TRUE(values[i] == values[0]);
}

TEST(an_unregistered_backend_is_named) {
  Harness harness(read_test_file(kEthosUProgram));
  harness.backends = BackendRegistry();
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program), Error::kBackendMissing,
               "delegate 0 (EthosUBackend): backend 'EthosUBackend' is not registered");
}

// The offset of `text` inside the program bytes.
size_t find(Span<const uint8_t> bytes, const char* text) {
  const size_t length = std::strlen(text);
  for (size_t offset = 0; offset + length <= bytes.size(); ++offset) {
    if (std::memcmp(bytes.data() + offset, text, length) == 0) return offset;
  }
  return bytes.size();
}

TEST(a_wrong_delegate_blob_is_an_invalid_delegate_blob) {
  Harness harness(read_test_file(kEthosUProgram));
  const size_t cmd_data = find(harness.bytes(), "cmd_data");
  EXPECT_TRUE(cmd_data < harness.bytes().size());
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));

  // A block length running past the end of the blob.
  std::memcpy(harness.mutable_bytes() + cmd_data + 16, "\xff\xff\xff\x00", 4);
  EXPECT_ERROR(harness.load(program), Error::kInvalidDelegateBlob,
               "delegate 0 (EthosUBackend): truncated: block 'cmd_data'");

  // A block out of order.
  std::memcpy(harness.mutable_bytes() + cmd_data, "weight_data\0", 12);
  EXPECT_ERROR(harness.load(program), Error::kInvalidDelegateBlob, "is 'weight_data', expected 'cmd_data'");
}

}  // namespace
}  // namespace pte
