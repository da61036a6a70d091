// EthosUBackend on a real Ethos-U .pte (lowered by the repository's flow with Vela): a checked blob, the
// driver handed the command stream and regions, and a clear error for a missing driver, an unregistered
// backend or a damaged blob.
#include <cstring>

#include "runtime/delegate/ethosu/npu_driver.h"
#include "runtime/testing/method_harness.h"
#include "runtime/testing/unit_test.h"

namespace pte {
namespace ethosu {
namespace {

using testing::fill_inputs;
using testing::MethodHarness;

constexpr const char* kEthosUProgram = "runtime/testdata/tiny_conv_u55.pte";

// Stands in for the NPU: records what the backend hands it and fills the scratch area with 0x7f.
class RecordingDriver final : public NpuDriver {
 public:
  Status run(Span<const uint8_t> command_stream, Span<const NpuRegion> regions) override {
    ++runs;
    command_bytes = command_stream.size();
    weight_bytes = regions[static_cast<size_t>(Region::kWeights)].size;
    const NpuRegion& scratch = regions[static_cast<size_t>(Region::kScratch)];
    scratch_bytes = scratch.size;
    std::memset(reinterpret_cast<void*>(scratch.address), 0x7f, scratch.size);
    return Status();
  }
  int runs = 0;
  size_t command_bytes = 0;
  size_t weight_bytes = 0;
  size_t scratch_bytes = 0;
};

// The offset of `text` inside `bytes` (bytes.size() when absent).
size_t find(Span<const uint8_t> bytes, const char* text) {
  const size_t length = std::strlen(text);
  for (size_t offset = 0; offset + length <= bytes.size(); ++offset) {
    if (std::memcmp(bytes.data() + offset, text, length) == 0) return offset;
  }
  return bytes.size();
}

TEST(without_a_driver_execute_says_so) {
  MethodHarness harness(testing::read_test_file(kEthosUProgram));
  EXPECT_ERROR(harness.load_and_run(harness.bytes()), Error::kNotSupported,
               "instruction 1 (delegate EthosUBackend): no NPU driver is attached");
}

TEST(the_driver_runs_the_command_stream_and_outputs_come_from_scratch) {
  RecordingDriver driver;
  MethodHarness harness(testing::read_test_file(kEthosUProgram), &driver);
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  ASSERT_OK_AND_ASSIGN(Method method, harness.load(program));
  EXPECT_OK(fill_inputs(method, 0.25f));
  EXPECT_OK(method.execute());
  EXPECT_EQ(driver.runs, 1);
  EXPECT_TRUE(driver.command_bytes > 0 && driver.command_bytes % 4 == 0);
  EXPECT_TRUE(driver.weight_bytes > 0);
  EXPECT_TRUE(driver.scratch_bytes > 0);
  // Every output byte came from the driver's 0x7f, then the CPU dequantized it: all outputs are equal.
  ASSERT_OK_AND_ASSIGN(const Tensor* output, method.output_tensor(0));
  const float* values = output->data_as<const float>();
  for (size_t i = 1; i < output->numel; ++i) EXPECT_TRUE(values[i] == values[0]);
}

TEST(an_unregistered_backend_is_named) {
  MethodHarness harness(testing::read_test_file(kEthosUProgram));
  harness.backends = BackendRegistry();
  ASSERT_OK_AND_ASSIGN(const Program program, Program::load(harness.bytes()));
  EXPECT_ERROR(harness.load(program), Error::kBackendMissing,
               "delegate 0 (EthosUBackend): backend 'EthosUBackend' is not registered");
}

TEST(a_damaged_blob_is_an_invalid_delegate_blob) {
  MethodHarness harness(testing::read_test_file(kEthosUProgram));
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

TEST(a_blob_byte_flip_never_crashes) {
  MethodHarness harness(testing::read_test_file(kEthosUProgram));
  for (size_t offset = 0; offset < harness.bytes().size(); ++offset) {
    harness.mutable_bytes()[offset] ^= 0xff;
    const Status status = harness.load_and_run(harness.bytes());
    harness.mutable_bytes()[offset] ^= 0xff;
    // Without a driver no run can succeed; every failure must still be a reported error.
    EXPECT_TRUE(!status.ok());
  }
}

}  // namespace
}  // namespace ethosu
}  // namespace pte
