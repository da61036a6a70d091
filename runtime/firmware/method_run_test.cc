// run_method, the firmware's core, on the host or an emulator: a real Ethos-U .pte whose delegate goes
// through EthosUDriver to the fake NPU (everything the NPU reads lying inside the one region), a float
// program checked against expected files, and the errors for what a device run can get wrong.
#include <cstring>
#include <string>
#include <vector>

#include "runtime/delegate/backend_registry.h"
#include "runtime/delegate/ethosu/driver.h"
#include "runtime/delegate/ethosu/driver_fake_npu.h"
#include "runtime/delegate/ethosu/ethosu_backend.h"
#include "runtime/firmware/method_run.h"
#include "runtime/kernels/reference_kernels.h"
#include "runtime/runner/host_files.h"
#include "runtime/runner/npy.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace firmware {
namespace {

constexpr uint32_t kRegionNpuAddress = 0x60000000;
constexpr size_t kRegionBytes = 1 << 20;

std::vector<uint8_t> file(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  if (!bytes.ok()) std::printf("  %s\n", bytes.status().message());
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>();
}

Result<Span<const uint8_t>> copy_into(const std::vector<uint8_t>& bytes, BumpArena& region) {
  PTE_ASSIGN_OR_RETURN(void* memory, region.allocate(bytes.size(), kBufferAlignment, "test file"));
  if (!bytes.empty()) std::memcpy(memory, bytes.data(), bytes.size());
  return Span<const uint8_t>(static_cast<const uint8_t*>(memory), bytes.size());
}

// Files held in memory, copied into the region the way FileRunIo reads them; outputs kept as .npy.
class MemoryRunIo final : public RunIo {
 public:
  Result<Span<const uint8_t>> program(BumpArena& region) override { return copy_into(program_file, region); }
  size_t input_count() const override { return inputs.size(); }
  Result<Span<const uint8_t>> input(size_t index, BumpArena& region) override {
    return copy_into(inputs[index], region);
  }
  size_t expected_output_count() const override { return expected_outputs.size(); }
  Result<Span<const uint8_t>> expected_output(size_t index, BumpArena& region) override {
    return copy_into(expected_outputs[index], region);
  }
  Status write_output(size_t index, const Tensor& output) override {
    (void)index;
    outputs.push_back(npy::serialize(output.scalar_type, Span<const int32_t>(output.sizes, output.rank),
                                     Span<const uint8_t>(static_cast<const uint8_t*>(output.data), output.nbytes)));
    return Status();
  }

  std::vector<uint8_t> program_file;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<uint8_t>> expected_outputs;
  std::vector<std::vector<uint8_t>> outputs;
};

std::vector<uint8_t> float_npy(std::initializer_list<int32_t> shape, float value) {
  size_t count = 1;
  for (int32_t dim : shape) count *= static_cast<size_t>(dim);
  std::vector<float> values(count, value);
  const std::vector<int32_t> dims(shape);
  return npy::serialize(ScalarType::kFloat, Span<const int32_t>(dims.data(), dims.size()),
                        Span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), count * sizeof(float)));
}

// The reference kernels and an Ethos-U backend on `driver` (null: no NPU).
struct Runtime {
  explicit Runtime(ethosu::NpuDriver* driver) : ethos_u(driver) {
    (void)register_reference_kernels(kernels);
    (void)backends.add(ethosu::EthosUBackend::kId, ethos_u);
  }
  ethosu::EthosUBackend ethos_u;
  KernelRegistry kernels;
  BackendRegistry backends;
};

TEST(an_ethos_u_delegate_runs_through_the_driver_inside_the_region) {
  AlignedBuffer region(kRegionBytes);
  ethosu::FakeNpu npu;
  npu.map(region.data(), region.size(), kRegionNpuAddress);
  ethosu::EthosUDriver driver(npu);
  EXPECT_OK(driver.init());
  Runtime runtime(&driver);
  MemoryRunIo io;
  io.program_file = file("runtime/testdata/tiny_conv_u55.pte");
  io.inputs.push_back(float_npy({1, 4, 8, 8}, 0.25f));

  ASSERT_OK_AND_ASSIGN(const RunReport report,
                       run_method(io, region.span(), runtime.kernels, runtime.backends, RunOptions()));
  EXPECT_EQ(npu.starts.size(), 1u);
  EXPECT_EQ(io.outputs.size(), 1u);
  // The command stream and weights come from the program's copy at the start of the region; scratch from
  // the runtime arena, after the staged files and planned buffers.
  const ethosu::FakeNpu::Start& start = npu.starts[0];
  const uint32_t staged_end = kRegionNpuAddress + static_cast<uint32_t>(report.staged_bytes);
  const uint32_t planned_end = staged_end + static_cast<uint32_t>(report.planned_bytes);
  EXPECT_TRUE(start.qbase >= kRegionNpuAddress && start.qbase + start.qsize <= staged_end);
  EXPECT_TRUE(start.base_pointers[0] >= kRegionNpuAddress && start.base_pointers[0] < staged_end);
  EXPECT_TRUE(start.base_pointers[2] >= planned_end && start.base_pointers[2] < kRegionNpuAddress + kRegionBytes);
  EXPECT_TRUE(report.staged_bytes >= io.program_file.size());
  EXPECT_TRUE(report.runtime_arena_used > 0 && report.runtime_arena_used < report.runtime_arena_capacity);
  EXPECT_EQ(report.outputs_checked, 0u);
}

TEST(without_an_npu_the_delegate_call_fails_with_its_reason) {
  AlignedBuffer region(kRegionBytes);
  Runtime runtime(nullptr);
  MemoryRunIo io;
  io.program_file = file("runtime/testdata/tiny_conv_u55.pte");
  io.inputs.push_back(float_npy({1, 4, 8, 8}, 0.25f));
  EXPECT_ERROR(run_method(io, region.span(), runtime.kernels, runtime.backends, RunOptions()), Error::kNotSupported,
               "no NPU driver is attached");
}

TEST(outputs_are_checked_against_expected_files_bit_for_bit) {
  AlignedBuffer region(kRegionBytes);
  Runtime runtime(nullptr);
  MemoryRunIo first;
  first.program_file = file("runtime/testdata/float_programs/mlp_fp32.pte");
  first.inputs.push_back(file("runtime/testdata/float_programs/mlp_fp32_input0.npy"));
  EXPECT_OK(run_method(first, region.span(), runtime.kernels, runtime.backends, RunOptions()));
  EXPECT_EQ(first.outputs.size(), 1u);

  MemoryRunIo again = first;
  again.outputs.clear();
  again.expected_outputs = first.outputs;
  ASSERT_OK_AND_ASSIGN(const RunReport same,
                       run_method(again, region.span(), runtime.kernels, runtime.backends, RunOptions()));
  EXPECT_EQ(same.outputs_checked, 1u);
  EXPECT_EQ(same.outputs_differing, 0u);

  again.expected_outputs[0].back() ^= 1;
  ASSERT_OK_AND_ASSIGN(const RunReport differing,
                       run_method(again, region.span(), runtime.kernels, runtime.backends, RunOptions()));
  EXPECT_EQ(differing.outputs_differing, 1u);
}

TEST(a_bad_program_input_or_region_is_named) {
  AlignedBuffer region(kRegionBytes);
  Runtime runtime(nullptr);
  MemoryRunIo io;
  io.program_file = file("runtime/testdata/float_programs/mlp_fp32.pte");
  io.inputs.push_back(float_npy({3, 8}, 1.0f));
  EXPECT_OK(run_method(io, region.span(), runtime.kernels, runtime.backends, RunOptions()));

  MemoryRunIo truncated = io;
  truncated.program_file.resize(truncated.program_file.size() / 2);
  EXPECT_ERROR(run_method(truncated, region.span(), runtime.kernels, runtime.backends, RunOptions()),
               Error::kInvalidProgram, "program: truncated .pte");

  MemoryRunIo wrong_shape = io;
  wrong_shape.inputs[0] = float_npy({8, 3}, 1.0f);
  EXPECT_ERROR(run_method(wrong_shape, region.span(), runtime.kernels, runtime.backends, RunOptions()),
               Error::kInvalidArgument, "input 0: the .npy file is float32 with 96 data bytes; the method wants "
               "float32 [3, 8] (96 bytes)");

  MemoryRunIo missing_input = io;
  missing_input.inputs.clear();
  EXPECT_ERROR(run_method(missing_input, region.span(), runtime.kernels, runtime.backends, RunOptions()),
               Error::kInvalidArgument, "method 'forward' takes 1 inputs, 0 given");

  EXPECT_ERROR(run_method(io, region.span().subspan(0, 256), runtime.kernels, runtime.backends, RunOptions()),
               Error::kArenaTooSmall, "program: runtime arena too small");

  RunOptions other_method;
  other_method.method = "backward";
  EXPECT_ERROR(run_method(io, region.span(), runtime.kernels, runtime.backends, other_method), Error::kNotFound,
               "the program has no method 'backward'");
}

}  // namespace
}  // namespace firmware
}  // namespace pte
